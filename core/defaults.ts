/**
 * Every default of the client's options, one frozen object per option group. The code reads these
 * objects and the options' JSDoc `@default` tags cite them, so a default is written exactly once.
 */

/** One minute: the server's fixed rate-limit window (C3) and the longest pause between operation polls. */
const ONE_MINUTE_MS = 60_000;

/** Defaults of `retry` (I2: bounded retries with capped, jittered exponential backoff). */
export const DEFAULT_RETRY = Object.freeze({
  /** Attempts per command after a 5xx, network error or timeout, the first one included (1 + 5 retries). */
  maxAttempts: 6,
  /** Backoff base, ms: the n-th retry waits up to `baseMs · 2^(n−1)`. */
  baseMs: 1000,
  /** Backoff cap, ms, jitter included. */
  capMs: 32_000,
  /** 429 retries per command; each waits out the key's pause first (C12). */
  maxRateLimitRetries: 10,
});

/** Defaults of `retry.budget`: a token bucket shared by every command of one client. */
export const DEFAULT_RETRY_BUDGET = Object.freeze({
  /** Bucket size in tokens. */
  capacity: 500,
  /** Cost of a retry after a 5xx, network error or malformed body. */
  retryCost: 5,
  /** Cost of a retry after a timeout (timeouts hold resources longer). */
  timeoutCost: 10,
  /** Tokens returned by every successful attempt that needed no retry. */
  successRefill: 1,
});

/** Defaults of `pacing` (C1, C3, C8: fit the server's fixed per-key window). */
export const DEFAULT_PACING = Object.freeze({
  /** The server's fixed window length, ms. */
  windowMs: ONE_MINUTE_MS,
  /** Requests per window assumed until the key's own limit is learned from `context.get`. */
  initialLimit: 120,
  /** Requests of one key in flight at once in this process. */
  maxConcurrency: 4,
});

/**
 * Defaults of the options that bound every call (client-wide and per call). A web checkout can live
 * with them: no call takes longer than `deadlineMs`, whatever the key's queue or a proxy's Retry-After
 * says, and no body is read past `maxResponseBytes`.
 */
export const DEFAULT_CALL = Object.freeze({
  /** One HTTP attempt gets no complete response within this many ms → a timeout (an `unknown` outcome). */
  timeoutMs: 30_000,
  /**
   * The whole call (pacer waits, 429 pauses, backoff, attempts), ms: 60 s, the usual idle timeout of
   * reverse proxies and load balancers, with room for the five retries of I2 (≤ 46.5 s of backoff).
   */
  deadlineMs: ONE_MINUTE_MS,
  /** Longest response body read into memory, bytes (a 100-item page of the largest resource is ≈ 100 KiB). */
  maxResponseBytes: 4 * 1024 * 1024,
});

/** Defaults of `client.operations.wait()`. */
export const DEFAULT_WAIT = Object.freeze({
  /** `operations.wait()` gives up this long after it started, ms (15 minutes). */
  deadlineMs: 15 * ONE_MINUTE_MS,
  /** `operations.wait()` never polls more often than this, ms. */
  minIntervalMs: 2000,
  /** Longest pause between polls when the server gives no `next_check_at`, ms. */
  maxIntervalMs: ONE_MINUTE_MS,
});

/** Defaults of `client.recover()` and `recoverOnStart` (G4: settle journalled commands after a restart). */
export const DEFAULT_RECOVER = Object.freeze({
  /** The provider's idempotency replay TTL, ms (D6: 24 hours). */
  replayTtlMs: 24 * 60 * ONE_MINUTE_MS,
  /** No resend later than `createdAt + replayTtlMs − safetyMarginMs`, ms (1 hour). */
  safetyMarginMs: 60 * ONE_MINUTE_MS,
  /** Past the TTL, resend async domain operations with the same key and bytes (D7). */
  asyncResendPastTtl: true,
  /** Only commands not updated for this long, ms. */
  staleAfterMs: 0,
  /** Also re-examine commands in needs_manual_check. */
  recheckManual: false,
  /** Commands reconciled in parallel. */
  concurrency: 4,
  /** At most this many commands in one call, oldest first. */
  maxCommands: 10_000,
});

/** Defaults of `fleet` (several instances on one key and one shared journal). */
export const DEFAULT_FLEET = Object.freeze({
  /** How long a worker's hold on a command lasts without a heartbeat, ms. */
  leaseMs: 30_000,
  /** Heartbeats per lease period (heartbeatMs = leaseMs / this). */
  heartbeatsPerLease: 3,
  /**
   * Time between background recovery rounds, ms. Part of the documented bound on death → settled
   * (leaseMs + recoveryIntervalMs + one rate-limit window, docs/guides/fleet.md).
   */
  recoveryIntervalMs: 2_000,
  /**
   * Commands one background round claims at most: twice its concurrency, so a dead worker's commands
   * spread over every survivor instead of queueing behind one survivor's lanes (a full batch starts
   * the next round at once).
   */
  recoveryBatch: 4,
  /** Commands a background round settles in parallel (its requests still go through the key's pacer). */
  recoveryConcurrency: 2,
});
