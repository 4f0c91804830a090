/**
 * createResellerClient() options, validated up front (InvalidOptionsError) so that a
 * misconfiguration fails at start-up, never mid-purchase.
 */
import type { Clock } from "../runtime/clock";
import type { Journal } from "../journal";
import type { ClientTelemetry, EventHandler } from "../core";
import type { Logger } from "./logging";
import type { RetryBudgetOptions } from "../runner";
import type { WindowStore } from "../pacing";
import type { Pacer } from "../pacing";
import { InvalidOptionsError } from "../core";
import type { RecoverOptions, RecoverSummary } from "../recovery";

/** Fleet-mode defaults (the option docs below cite these; the code reads them from here). */
export const FLEET_DEFAULTS = {
  /** How long a worker's hold on a command lasts without a heartbeat, ms. */
  leaseMs: 30_000,
  /** Heartbeats per lease period (heartbeatMs = leaseMs / this). */
  heartbeatsPerLease: 3,
  /** Time between background recovery rounds, ms. */
  recoveryIntervalMs: 5_000,
  /** Commands one background round claims at most. */
  recoveryBatch: 25,
  /** Commands a background round settles in parallel (its requests still go through the key's pacer). */
  recoveryConcurrency: 2,
} as const;

/**
 * Fleet mode: several instances of a service on one API key and one shared journal (PostgreSQL, or
 * SQLite on one host). Each instance is a worker that owns the commands it sends.
 */
export interface FleetOptions {
  /**
   * Stable id of this client instance, at most 200 characters. A restarted instance with the SAME
   * id takes its commands back at once; with a new id it waits until their leases run out.
   * @default "worker-" + a random UUID per client
   */
  workerId?: string;
  /**
   * How long the worker's hold on a command lasts without a heartbeat, ms: a survivor takes a dead
   * worker's commands this long after its last heartbeat. Must exceed the longest pause you expect.
   * @default 30_000 (FLEET_DEFAULTS.leaseMs)
   */
  leaseMs?: number;
  /**
   * Time between heartbeats (one journal write renews every lease the worker holds), ms; < leaseMs.
   * @default leaseMs / 3 (FLEET_DEFAULTS.heartbeatsPerLease)
   */
  heartbeatMs?: number;
  /**
   * Keep recovering commands whose lease expired (a dead worker's), in the background, through the
   * key's pacer. `true` uses the defaults; stop it with `client.close()`.
   * @default false
   */
  continuousRecovery?:
    | boolean
    | {
        /** @default 5_000 (FLEET_DEFAULTS.recoveryIntervalMs) */
        intervalMs?: number;
        /** @default 25 (FLEET_DEFAULTS.recoveryBatch) */
        batch?: number;
        /** @default 2 (FLEET_DEFAULTS.recoveryConcurrency) */
        concurrency?: number;
        /** Each round's summary (e.g. to log what a survivor settled). */
        onRound?: (summary: RecoverSummary) => void;
      };
}

export interface ResellerClientOptions {
  /** The HTTPS origin + /api/reseller/v1 the provider handed out (A1). */
  baseUrl: string;
  /** rsl_test_… or rsl_live_… (A3). Kept in memory only; redacted everywhere else (A4). */
  token: string;
  /**
   * Custom fetch (tests pass the emulator's in-process fetch). Declared with two parameters
   * `(input, init)`, it gets the first attempt's AbortSignal (timeout, your `signal`) as `init.signal`
   * — pass `init` on to the fetch you call, or a timed-out attempt cannot close its connection; with
   * one parameter (and on retries), the signal is on the Request (`input.signal`). The attempt ends on
   * time either way.
   */
  fetch?: (input: Request, init?: { signal?: AbortSignal }) => Promise<Response>;
  clock?: Clock;
  /** Uniform in [0, 1): backoff jitter and pacing margins. */
  random?: () => number;
  /** E6: default X-Language. */
  language?: string;
  /**
   * Per-attempt timeout, ms. Each attempt also ends at the call's deadline, whichever comes first.
   * @default CALL_DEFAULTS.timeoutMs (30 000)
   */
  timeoutMs?: number;
  /**
   * Bound on every call as a whole, ms: pacer waits, 429 pauses (even a proxy's Retry-After of a day),
   * backoff between retries and every attempt. When waiting would pass it the call returns at once:
   * `unknown` with reason "deadline", `sent` (did anything of this call reach the wire) and `retryAt`
   * (when the key may send again). `Infinity` turns it off (background jobs). Per call: `{ deadlineMs }`.
   * @default CALL_DEFAULTS.deadlineMs (60 000)
   */
  deadlineMs?: number;
  /**
   * Longest response body read into memory, bytes. A longer body is not read on: a 2xx becomes
   * `unknown` with reason "response_too_large" (the side effect may have happened), an error keeps
   * its ≤ 2 KiB snippet.
   * @default CALL_DEFAULTS.maxResponseBytes (4 MiB)
   */
  maxResponseBytes?: number;
  retry?: {
    /** Attempts per command after 5xx/network/timeout, first included (default 6 = 1 + 5 retries, seed 002). */
    maxAttempts?: number;
    /** Backoff base (default 1000 ms, I2). */
    baseMs?: number;
    /** Backoff cap, jitter included (default 32 000 ms, I2). */
    capMs?: number;
    /** 429 retries per command (default 10); each waits out the key's pause (C12). */
    maxRateLimitRetries?: number;
    budget?: RetryBudgetOptions;
  };
  pacing?: {
    /** Server window (C3, default 60 000 ms). */
    windowMs?: number;
    /** Shared window store (Redis across processes, I1). */
    store?: WindowStore;
    /** In-flight requests per key in this process (C8, default 4). */
    maxConcurrency?: number;
    /** Limit assumed until one is learned (C1, default 120). */
    initialLimit?: number;
  };
  /** A pacer shared by several clients of the SAME key in one process (advanced; overrides `pacing`). */
  pacer?: Pacer;
  /** G1: the command journal; every write is recorded before its first byte is sent. */
  journal?: Journal;
  /** I7: attempt/retry/pause/replay/unknown-outcome/reconcile/outcome events, already redacted. */
  onEvent?: EventHandler;
  /**
   * I7: a standard logger for the same events as structured lines — `console`, a pino logger, or any
   * object with `info`/`warn`/`error` (and optionally `debug`). Levels: debug per attempt, info per
   * command outcome and retry, warn on 429 pauses, retry-budget exhaustion and unknown outcomes,
   * error on needs_manual_check. Lines are redacted like events: never the token or a secret field.
   * @default undefined (nothing is logged)
   */
  logger?: Logger;
  /**
   * Spans and metrics for every command and attempt: pass `otelTelemetry(…)` from
   * `reseller-api/otel`, or your own ClientTelemetry. Absent, the client does no telemetry work.
   * @default undefined (no telemetry)
   */
  telemetry?: ClientTelemetry;
  /** B4: send live-only operations with a test key anyway (the server answers 403). */
  allowLiveOnlyWithTestKey?: boolean;
  /** A1: allow http:// to a non-loopback host. Loopback hosts never need it. */
  allowInsecureHttp?: boolean;
  /**
   * G4/I5: run `client.recover()` as soon as the client is created (needs `journal`). Writes made
   * through the facade wait until it has finished; its summary is `client.recovery`.
   */
  recoverOnStart?: boolean | RecoverOptions;
  /** Fleet mode (needs `journal`): leases on every command this instance sends, and background recovery. */
  fleet?: FleetOptions;
}

/**
 * Defaults of the call-bounding options, read by createResellerClient and named in their JSDoc.
 * A web checkout can live with them: no call takes longer than `deadlineMs` — 60 s, the default
 * idle timeout of common reverse proxies and load balancers, and room for seed 002's five retries
 * (≤ 46.5 s of backoff) — whatever the key's queue or a proxy's Retry-After says; and no body is read
 * past `maxResponseBytes` (4 MiB; a 100-item page of the largest resource is ≈ 100 KiB).
 */
export const CALL_DEFAULTS = {
  timeoutMs: 30_000,
  deadlineMs: 60_000,
  maxResponseBytes: 4 * 1024 * 1024,
} as const;

function positive(name: string, value: unknown, integer = false): void {
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new InvalidOptionsError(`${name} must be a positive ${integer ? "integer" : "number"}.`, name);
  }
}

export function checkOptions(options: ResellerClientOptions): void {
  if (!options || typeof options !== "object") throw new InvalidOptionsError("options are required.", "options");
  if (options.fetch !== undefined && typeof options.fetch !== "function")
    throw new InvalidOptionsError("fetch must be a function.", "fetch");
  if (options.onEvent !== undefined && typeof options.onEvent !== "function")
    throw new InvalidOptionsError("onEvent must be a function.", "onEvent");
  if (options.logger !== undefined) {
    const l = options.logger as unknown as Record<string, unknown> | null;
    const missing = ["info", "warn", "error"].filter((m) => typeof l?.[m] !== "function");
    if (missing.length > 0)
      throw new InvalidOptionsError(
        `logger must have ${missing.join(", ")} method(s): pass console, a pino logger, or an object with debug/info/warn/error.`,
        "logger",
      );
  }
  if (options.telemetry !== undefined && typeof options.telemetry?.startCommand !== "function")
    throw new InvalidOptionsError(
      "telemetry must be a ClientTelemetry (startCommand is missing): pass otelTelemetry(…) from reseller-api/otel.",
      "telemetry",
    );
  if (options.random !== undefined && typeof options.random !== "function")
    throw new InvalidOptionsError("random must be a function.", "random");
  positive("timeoutMs", options.timeoutMs);
  positive("maxResponseBytes", options.maxResponseBytes, true);
  if (options.deadlineMs !== undefined && !isDeadline(options.deadlineMs)) {
    throw new InvalidOptionsError(
      "deadlineMs must be a positive number of milliseconds, or Infinity for none.",
      "deadlineMs",
    );
  }
  positive("retry.maxAttempts", options.retry?.maxAttempts, true);
  positive("retry.baseMs", options.retry?.baseMs);
  positive("retry.capMs", options.retry?.capMs);
  if (
    options.retry?.maxRateLimitRetries !== undefined &&
    !(Number.isInteger(options.retry.maxRateLimitRetries) && options.retry.maxRateLimitRetries >= 0)
  ) {
    throw new InvalidOptionsError("retry.maxRateLimitRetries must be an integer ≥ 0.", "retry.maxRateLimitRetries");
  }
  positive("pacing.windowMs", options.pacing?.windowMs);
  positive("pacing.maxConcurrency", options.pacing?.maxConcurrency, true);
  positive("pacing.initialLimit", options.pacing?.initialLimit, true);
  if (options.recoverOnStart !== undefined && options.recoverOnStart !== false) {
    if (options.recoverOnStart !== true && typeof options.recoverOnStart !== "object")
      throw new InvalidOptionsError("recoverOnStart must be a boolean or recover() options.", "recoverOnStart");
    if (!options.journal) throw new InvalidOptionsError("recoverOnStart needs a journal (G1).", "recoverOnStart");
  }
  if (options.fleet !== undefined) checkFleet(options);
}

function checkFleet(options: ResellerClientOptions): void {
  const fleet = options.fleet!;
  if (fleet === null || typeof fleet !== "object") throw new InvalidOptionsError("fleet must be an object.", "fleet");
  if (!options.journal) throw new InvalidOptionsError("fleet needs a shared journal (PostgreSQL or SQLite).", "fleet");
  if (
    fleet.workerId !== undefined &&
    (typeof fleet.workerId !== "string" || fleet.workerId.length === 0 || fleet.workerId.length > 200)
  ) {
    throw new InvalidOptionsError(
      "fleet.workerId must be a non-empty string of at most 200 characters.",
      "fleet.workerId",
    );
  }
  positive("fleet.leaseMs", fleet.leaseMs);
  positive("fleet.heartbeatMs", fleet.heartbeatMs);
  const leaseMs = fleet.leaseMs ?? FLEET_DEFAULTS.leaseMs;
  if (fleet.heartbeatMs !== undefined && fleet.heartbeatMs >= leaseMs) {
    throw new InvalidOptionsError(
      "fleet.heartbeatMs must be shorter than fleet.leaseMs (a third of it is a good choice).",
      "fleet.heartbeatMs",
    );
  }
  const cr = fleet.continuousRecovery;
  if (cr !== undefined && typeof cr !== "boolean") {
    if (cr === null || typeof cr !== "object")
      throw new InvalidOptionsError(
        "fleet.continuousRecovery must be a boolean or an object.",
        "fleet.continuousRecovery",
      );
    positive("fleet.continuousRecovery.intervalMs", cr.intervalMs);
    positive("fleet.continuousRecovery.batch", cr.batch, true);
    positive("fleet.continuousRecovery.concurrency", cr.concurrency, true);
  }
}

/** A deadline is a positive number of ms; Infinity means none. */
export function isDeadline(value: unknown): value is number {
  return typeof value === "number" && value > 0 && !Number.isNaN(value);
}
