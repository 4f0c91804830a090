/**
 * The CLI's defaults, one object per option group; help texts and JSDoc read them from here. What
 * the package already defines (timeouts, the window, the wait) is read from its own defaults, not
 * typed again.
 */
import { DEFAULT_CALL, DEFAULT_PACING, DEFAULT_WAIT } from "../src/index";

export const CLI_DEFAULTS = {
  job: {
    /** Rows in flight at once (each one's HTTP attempts still go through the key's shared pacer). */
    concurrency: 8,
    /** What a bad input row or an API rejection does to the rest of the job. */
    onError: "continue" as "continue" | "stop",
    /** Years added by a renewal (RenewRequest.period, 1..10). */
    period: 1,
    /** A domain this journal renewed (or is renewing) within this many ms is not renewed again. */
    renewedWithinMs: 30 * 86_400_000,
    /** Longest wait for one async operation before it is reported as pending. */
    waitTimeoutMs: DEFAULT_WAIT.deadlineMs,
  },
  http: {
    /** Per-attempt timeout, ms. */
    requestTimeoutMs: DEFAULT_CALL.timeoutMs,
    /** Connect timeout (DNS + TCP + TLS) of the first request of a command, ms: a wrong URL fails fast. */
    connectTimeoutMs: 3_000,
    /**
     * The command's first request (GET /context) waits at most this long per attempt (or the
     * request timeout, when shorter), and its retries end this long later: a port that accepts
     * connections but never answers HTTP fails in seconds, not after the call's whole deadline.
     */
    firstAnswerMs: 10_000,
    /** The API's fixed rate-limit window (C3); only an emulator started with --window-ms differs. */
    windowMs: DEFAULT_PACING.windowMs,
    /** Sends the client's pacer lets go at once when a window opens: its burst allowance, maxConcurrency (C8). */
    pacingBurst: DEFAULT_PACING.maxConcurrency,
  },
  input: {
    /** Zones the registrar sells; a name in another zone is refused before anything is sent. */
    zones: ["kz", "com.kz", "org.kz", "net.kz", "қаз"],
    /** Names per POST /domains/check (DomainCheckRequest.names: 1..50). */
    checkBatch: 50,
  },
} as const;
