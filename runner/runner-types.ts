/** Types shared by the attempt loop's modules (command-runner.ts, paced-attempt.ts, attempt-loop.ts). */
import type { Clock } from "../runtime/clock";
import type { ClientTelemetry, EventSink } from "../core";
import type { Journal, LeaseKeeper } from "../journal";
import type { Outcome } from "../core";
import type { Pacer } from "../pacing";
import type { Redactor } from "../core";
import type { RetryBudget } from "./retry-budget";
import type { RawResponse } from "./classify";

interface RetryOptions {
  /** Attempts per command for 5xx/network/timeout/malformed bodies, first included (DEFAULT_RETRY.maxAttempts: 6 = 1 + 5 retries, I2). */
  maxAttempts: number;
  baseMs: number;
  capMs: number;
  /** Rate-limit (429) retries per command before it ends as `rejected` (default 10). */
  maxRateLimitRetries: number;
}

export interface RunnerDeps {
  pacer: Pacer;
  apiKeyId: string;
  clock: Clock;
  random: () => number;
  budget: RetryBudget;
  retry: RetryOptions;
  timeoutMs: number;
  /** Bound on the whole call (pacer waits, 429 pauses, backoff, attempts), ms; +Infinity for none. */
  deadlineMs: number;
  /** Longest response body read into memory, bytes. */
  maxResponseBytes: number;
  /** The rate-limit window (C3): a Retry-After longer than it is a proxy's, not the API's. */
  windowMs: number;
  journal?: Journal;
  /** Fleet mode: this worker's leases; every journal write of a command is fenced by them. */
  leases?: LeaseKeeper;
  events: EventSink;
  redactor: Redactor;
  newRequestId: () => string;
  /**
   * No `fetch` option: requests go through the platform's fetch, and each attempt's signal is given as
   * fetch's documented `init.signal` (transport.ts). A custom fetch gets it on the Request instead.
   */
  signalInInit: boolean;
  /** Spans and metrics (reseller-api/otel); absent: the runner does no telemetry work at all. */
  telemetry?: ClientTelemetry;
}

export interface RunResult {
  outcome: Outcome;
  /** The last HTTP response, for openapi-fetch (client.http) callers; undefined when none came. */
  raw?: RawResponse;
}
