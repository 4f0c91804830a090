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
import { DEFAULT_FLEET, InvalidOptionsError } from "../core";
import type { RecoverOptions, RecoverSummary } from "../recovery";
import { checkOptionsShape } from "./options-shape";
import { validateLanguage } from "../middleware";

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
  workerId?: string | undefined;
  /**
   * How long the worker's hold on a command lasts without a heartbeat, ms: a survivor takes a dead
   * worker's commands this long after its last heartbeat. Must exceed the longest pause you expect.
   * @default 30_000 (DEFAULT_FLEET.leaseMs)
   */
  leaseMs?: number | undefined;
  /**
   * Time between heartbeats (one journal write renews every lease the worker holds), ms; < leaseMs.
   * @default leaseMs / 3 (DEFAULT_FLEET.heartbeatsPerLease)
   */
  heartbeatMs?: number | undefined;
  /**
   * Keep recovering commands whose lease expired (a dead worker's), in the background, through the
   * key's pacer — in its recovery lane, ahead of new work. `true` uses the defaults; stop it with
   * `client.close()`. A dead worker's commands are claimed within leaseMs + intervalMs of its death.
   * @default false
   */
  continuousRecovery?:
    | boolean
    | {
        /**
         * The longest pause between two rounds, ms; each pause is jittered in [intervalMs / 2, intervalMs].
         * @default 2_000 (DEFAULT_FLEET.recoveryIntervalMs)
         */
        intervalMs?: number | undefined;
        /** @default 4 (DEFAULT_FLEET.recoveryBatch) */
        batch?: number | undefined;
        /** @default 2 (DEFAULT_FLEET.recoveryConcurrency) */
        concurrency?: number | undefined;
        /** Each round's summary (e.g. to log what a survivor settled). */
        onRound?: ((summary: RecoverSummary) => void) | undefined;
      }
    | undefined;
}

/**
 * Options of {@link createResellerClient}. Every one is checked when the client is created: a mistake
 * throws {@link InvalidOptionsError} (or another `ResellerClientError`) naming the option, before
 * anything is sent. Rule IDs in brackets (A1, C3, …) refer to the behaviour document shipped as
 * `docs/contract.md` in the package.
 */
export interface ResellerClientOptions {
  /**
   * The API's base URL: the HTTPS origin the provider handed out followed by the API base path
   * `/api/reseller/v1`, e.g. `https://reseller.example.kz/api/reseller/v1` (A1: HTTPS only). A URL
   * without that path is refused. `http://` is accepted for loopback hosts (the emulator) only,
   * unless `allowInsecureHttp` is set.
   */
  baseUrl: string;
  /**
   * The reseller API key: `rsl_test_…` or `rsl_live_…` (A3). Kept in memory only and redacted from
   * every event, error and journal record (A4: never logged).
   */
  token: string;
  /**
   * A `fetch` to send requests with (tests pass the emulator's in-process fetch). It is called with
   * one Request per attempt; the attempt's AbortSignal (timeout, your `signal`) is on it
   * (`input.signal`, a genuine AbortSignal) — pass it on to the fetch you call, or a timed-out
   * attempt cannot close its connection. The attempt ends on time either way.
   * @default globalThis.fetch
   */
  fetch?: ((input: Request, init?: { signal?: AbortSignal }) => Promise<Response>) | undefined;
  /** Source of time for backoff, pacing and deadlines; tests pass a `VirtualClock`. @default systemClock */
  clock?: Clock | undefined;
  /** Uniform in [0, 1): backoff jitter and pacing margins. @default Math.random */
  random?: (() => number) | undefined;
  /** Default `X-Language` of error messages (E6), e.g. `"en"`. @default the server's own default */
  language?: string | undefined;
  /**
   * Per-attempt timeout, ms. Each attempt also ends at the call's deadline, whichever comes first.
   * @default DEFAULT_CALL.timeoutMs (30 000)
   */
  timeoutMs?: number | undefined;
  /**
   * Bound on every call as a whole, ms: pacer waits, 429 pauses (even a proxy's Retry-After of a day),
   * backoff between retries and every attempt. When waiting would pass it the call returns at once:
   * `unknown` with reason "deadline", `sent` (did anything of this call reach the wire) and `retryAt`
   * (when the key may send again). `Infinity` turns it off (background jobs). Per call: `{ deadlineMs }`.
   * @default DEFAULT_CALL.deadlineMs (60 000)
   */
  deadlineMs?: number | undefined;
  /**
   * Longest response body read into memory, bytes. A longer body is not read on: a 2xx becomes
   * `unknown` with reason "response_too_large" (the side effect may have happened), an error keeps
   * its ≤ 2 KiB snippet.
   * @default DEFAULT_CALL.maxResponseBytes (4 MiB)
   */
  maxResponseBytes?: number | undefined;
  /** Retries after a 5xx, a network error, a timeout or a 429 (I2: bounded, with backoff and jitter). */
  retry?:
    | {
        /**
         * Attempts per command after a 5xx, network error or timeout, the first one included.
         * @default DEFAULT_RETRY.maxAttempts (6 = 1 + 5 retries)
         */
        maxAttempts?: number | undefined;
        /**
         * Backoff base, ms: the n-th retry waits about `baseMs · 2^(n−1)`, jittered.
         * @default DEFAULT_RETRY.baseMs (1000)
         */
        baseMs?: number | undefined;
        /**
         * Backoff cap, ms, jitter included.
         * @default DEFAULT_RETRY.capMs (32 000)
         */
        capMs?: number | undefined;
        /**
         * 429 retries per command; each first waits out the key's pause (C12: after a 429 the whole key waits).
         * @default DEFAULT_RETRY.maxRateLimitRetries (10)
         */
        maxRateLimitRetries?: number | undefined;
        /** The retry budget shared by every command of this client. @default DEFAULT_RETRY_BUDGET */
        budget?: RetryBudgetOptions | undefined;
      }
    | undefined;
  /** Pacing that fits the server's fixed per-key window, so the client is not throttled (C1–C12). */
  pacing?:
    | {
        /**
         * The server's fixed rate-limit window, ms (C3).
         * @default DEFAULT_PACING.windowMs (60 000)
         */
        windowMs?: number | undefined;
        /**
         * Where the window's counters live. Clients of one key in one process share an in-memory store;
         * pass the Redis store (`reseller-api/stores/redis`) to share the window across processes (I1).
         * @default one in-memory store per clock, shared by the clients of this process
         */
        store?: WindowStore | undefined;
        /**
         * Requests of one key in flight at once in this process (C8).
         * @default DEFAULT_PACING.maxConcurrency (4)
         */
        maxConcurrency?: number | undefined;
        /**
         * Requests per window assumed until the key's own limit is learned from `context.get` (C1).
         * @default DEFAULT_PACING.initialLimit (120)
         */
        initialLimit?: number | undefined;
      }
    | undefined;
  /** A pacer shared by several clients of the SAME key in one process (advanced; overrides `pacing`). */
  pacer?: Pacer | undefined;
  /**
   * The command journal (G1: every write is recorded before its first byte is sent, so a crash never
   * loses or doubles a command). Needed by `recover()` and `recoverOnStart`. Journals live in
   * `reseller-api/stores/{memory,sqlite,postgres}`.
   * @default none: commands are not journalled
   */
  journal?: Journal | undefined;
  /** Attempt, retry, pause, replay, unknown-outcome, reconcile and outcome events, already redacted (I7: log every retry and failure). */
  onEvent?: EventHandler | undefined;
  /**
   * A standard logger for the same events (I7) as structured lines — `console`, a pino logger, or any
   * object with `info`/`warn`/`error` (and optionally `debug`). Levels: debug per attempt, info per
   * command outcome and retry, warn on 429 pauses, retry-budget exhaustion and unknown outcomes,
   * error on needs_manual_check. Lines are redacted like events: never the token or a secret field.
   * @default undefined (nothing is logged)
   */
  logger?: Logger | undefined;
  /**
   * Spans and metrics for every command and attempt: pass `otelTelemetry(…)` from
   * `reseller-api/otel`, or your own ClientTelemetry. Absent, the client does no telemetry work.
   * @default undefined (no telemetry)
   */
  telemetry?: ClientTelemetry | undefined;
  /**
   * Send live-only operations (B1–B4: support tickets, balance and ledger) with a test key anyway.
   * The server answers 403 to them, so this is only useful to test that answer.
   * @default false: such a call throws LiveOnlyError before anything is sent
   */
  allowLiveOnlyWithTestKey?: boolean | undefined;
  /**
   * Allow `http://` to a non-loopback host (A1: the token must not travel in clear text). Loopback
   * hosts never need it.
   * @default false
   */
  allowInsecureHttp?: boolean | undefined;
  /**
   * Run `client.recover()` as soon as the client is created (needs `journal`). Writes made through
   * the facade wait until it has finished; its summary is `client.recovery`.
   * @default false
   */
  recoverOnStart?: boolean | RecoverOptions | undefined;
  /** Fleet mode (needs `journal`): leases on every command this instance sends, and background recovery. */
  fleet?: FleetOptions | undefined;
}

function positive(name: string, value: unknown, integer = false): void {
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new InvalidOptionsError(`${name} must be a positive ${integer ? "integer" : "number"}.`, name);
  }
}

export function checkOptions(options: ResellerClientOptions): void {
  if (!options || typeof options !== "object") throw new InvalidOptionsError("options are required.", "options");
  checkOptionsShape(options);
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
  if (options.language !== undefined) {
    try {
      validateLanguage(options.language);
    } catch (error) {
      throw new InvalidOptionsError((error as Error).message, "language");
    }
  }
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
  checkRetryBudget(options.retry?.budget);
  positive("pacing.windowMs", options.pacing?.windowMs);
  positive("pacing.maxConcurrency", options.pacing?.maxConcurrency, true);
  positive("pacing.initialLimit", options.pacing?.initialLimit, true);
  if (options.pacing?.initialLimit !== undefined && options.pacing.initialLimit > 10_000)
    throw new InvalidOptionsError(
      "pacing.initialLimit must be at most 10000 (C1: a key's limit is 1..10000 per window).",
      "pacing.initialLimit",
    );
  if (options.pacer !== undefined && options.pacing !== undefined)
    throw new InvalidOptionsError(
      "pacing and pacer cannot both be given: a pacer brings its own window, limit, concurrency and store — pass those to createPacer(…) and drop pacing.",
      "pacing",
    );
  if (options.recoverOnStart !== undefined && options.recoverOnStart !== false) {
    if (options.recoverOnStart !== true && typeof options.recoverOnStart !== "object")
      throw new InvalidOptionsError("recoverOnStart must be a boolean or recover() options.", "recoverOnStart");
    if (!options.journal)
      throw new InvalidOptionsError(
        "recoverOnStart needs the journal option: pass journal (e.g. createSqliteJournal from reseller-api/stores/sqlite).",
        "recoverOnStart",
      );
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
  const leaseMs = fleet.leaseMs ?? DEFAULT_FLEET.leaseMs;
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

/** retry.budget: an object of finite numbers ≥ 0 (checked here so a bad one is an InvalidOptionsError, not a RangeError). */
function checkRetryBudget(budget: unknown): void {
  if (budget === undefined) return;
  if (budget === null || typeof budget !== "object") {
    throw new InvalidOptionsError(
      "retry.budget must be an object like { capacity: 500, retryCost: 5, timeoutCost: 10, successRefill: 1 }.",
      "retry.budget",
    );
  }
  for (const [k, v] of Object.entries(budget)) {
    if (v !== undefined && !(typeof v === "number" && Number.isFinite(v) && v >= 0)) {
      throw new InvalidOptionsError(
        `retry.budget.${k} must be a finite number ≥ 0 (got ${JSON.stringify(v)}); leave it out for the default.`,
        `retry.budget.${k}`,
      );
    }
  }
}
