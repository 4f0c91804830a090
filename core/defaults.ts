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

/** Defaults of the timeouts: per attempt, and of `client.operations.wait()`. */
export const DEFAULT_TIMEOUTS = Object.freeze({
  /** One HTTP attempt gets no complete response within this many ms → a timeout (an `unknown` outcome). */
  attemptMs: 30_000,
  /** `operations.wait()` gives up this long after it started, ms (15 minutes). */
  waitDeadlineMs: 15 * ONE_MINUTE_MS,
  /** `operations.wait()` never polls more often than this, ms. */
  waitMinIntervalMs: 2000,
  /** Longest pause between polls when the server gives no `next_check_at`, ms. */
  waitMaxIntervalMs: ONE_MINUTE_MS,
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
});
