/**
 * Errors the client throws. Programmer errors (bad options, arguments, tokens, transport rules)
 * throw BEFORE anything is sent; an HTTP result never throws — it becomes an Outcome.
 * Transport failures (NetworkError, TimeoutError) are separate from HTTP errors (like ky's
 * NetworkError vs HTTPError) and travel inside an `unknown` Outcome (E4: a failure after sending
 * means the result is unknown). No message here ever contains the token (A4): callers pass field
 * names, never values.
 */

// The base class, its brand and the codes live in runtime/ so the emulator (which never imports the
// client) throws the same family.
import { ResellerClientError, errorGuard } from "../runtime/error-base";
export { ResellerClientError, errorGuard, isResellerClientError } from "../runtime/error-base";
export type { ResellerErrorCode } from "../runtime/error-base";

/** createResellerClient() options are invalid. */
export class InvalidOptionsError extends ResellerClientError {
  override readonly name = "InvalidOptionsError";
  override readonly code = "invalid_options" as const;
  constructor(
    message: string,
    readonly option: string,
  ) {
    super(message);
  }
}

/** A call argument is invalid (A9 malformed UUID, H1 per_page, D2 Idempotency-Key, a body on a bodiless op). */
export class InvalidArgumentError extends ResellerClientError {
  override readonly name = "InvalidArgumentError";
  override readonly code = "invalid_argument" as const;
  constructor(
    message: string,
    readonly argument: string,
    /** A9: what the server would have answered (422 or 500) had the value been sent. */
    readonly serverWouldAnswer?: number,
  ) {
    super(message);
  }
}

/** A3: the token does not have the reseller-key format. The message never contains the token. */
export class InvalidTokenError extends ResellerClientError {
  override readonly name = "InvalidTokenError";
  override readonly code = "invalid_token" as const;
}

/**
 * A live-only operation (support tickets, balance, ledger) was called with a test key; the server
 * would answer 403 (B1–B4). Nothing was sent. `allowLiveOnlyWithTestKey` sends it anyway.
 */
export class LiveOnlyError extends ResellerClientError {
  override readonly name = "LiveOnlyError";
  override readonly code = "live_only" as const;
  constructor(readonly operationId: string) {
    super(
      `${operationId} is live-only: support and finance resources answer 403 to a test key, so nothing was sent. ` +
        "Use a rsl_live_ key, or set the client option allowLiveOnlyWithTestKey: true to send it anyway " +
        "(the server's 403 then comes back as a rejected outcome, useful to test that path).",
    );
  }
}

/**
 * An optional peer dependency that a store needs (better-sqlite3, pg, ioredis) is not installed.
 * Install it next to reseller-api; nothing was created or sent.
 */
export class MissingDependencyError extends ResellerClientError {
  override readonly name = "MissingDependencyError";
  override readonly code = "missing_dependency" as const;
  constructor(
    /** The npm package to install, e.g. `better-sqlite3`. */
    readonly packageName: string,
    /** What needs it, e.g. `reseller-api/stores/sqlite`. */
    readonly feature: string,
    /** The fix when it is not `npm install <packageName>` (e.g. a module this runtime cannot have). */
    fix?: string,
  ) {
    super(
      fix === undefined
        ? `${feature} needs the package "${packageName}", which is not installed (it is an optional peer ` +
            `dependency of reseller-api). Install it: npm install ${packageName}`
        : `${feature} needs "${packageName}", which is not available here. ${fix}`,
    );
  }
}

/** A1/A4: the token would travel over plain HTTP to a non-loopback host. */
export class InsecureTransportError extends ResellerClientError {
  override readonly name = "InsecureTransportError";
  override readonly code = "insecure_transport" as const;
  /** The option at fault, as InvalidOptionsError names it. */
  readonly option = "baseUrl";
}

/**
 * The caller's AbortSignal fired before any byte of a write was sent, or during a read.
 * (An abort after a write may have been sent is NOT thrown: it is an `unknown` Outcome, E4.)
 */
export class RequestAbortedError extends ResellerClientError {
  override readonly name = "RequestAbortedError";
  override readonly code = "request_aborted" as const;
  constructor(
    readonly operationId: string,
    readonly reason?: unknown,
    /**
     * A journalled write: true when the journal no longer holds it (the cancel withdrew it — recovery
     * will not send it, and its domain's lock is free); false when it still does (it could not be
     * withdrawn: recover() would send it). Undefined for a read or without a journal.
     */
    readonly withdrawn?: boolean,
  ) {
    super(
      withdrawn === undefined
        ? `${operationId} was aborted by the caller before a result arrived.`
        : withdrawn
          ? `${operationId} was aborted by the caller before it was sent: nothing was sent, and the journal no longer holds it (a call with the same key starts it afresh).`
          : `${operationId} was aborted by the caller before it was sent: nothing was sent, but the journal still holds it as recorded (it could not be withdrawn — with PostgreSQL, the application role needs DELETE on the journal's commands and command_attempts tables), so recover() would send it.`,
    );
  }
}

/** A page fetched during iteration did not succeed; the page's Outcome is attached. */
export class PaginationError extends ResellerClientError {
  override readonly name = "PaginationError";
  override readonly code = "pagination_failed" as const;
  constructor(
    readonly outcome: { kind: string; operationId: string },
    readonly pageIndex: number,
  ) {
    super(`Page ${pageIndex + 1} of ${outcome.operationId} ended as "${outcome.kind}".`);
  }
}

/** Transport failure: the connection failed or was reset; no HTTP response was read (E4). */
export class NetworkError extends ResellerClientError {
  override readonly name = "NetworkError";
  override readonly code = "network_error" as const;
  constructor(
    message: string,
    /** The transport's own code when known, e.g. UND_ERR_SOCKET, ECONNRESET. */
    readonly causeCode?: string,
  ) {
    super(message);
  }
}

/** Transport failure: the attempt exceeded its per-attempt timeout (E4). */
export class TimeoutError extends ResellerClientError {
  override readonly name = "TimeoutError";
  override readonly code = "timeout" as const;
  constructor(readonly timeoutMs: number) {
    super(`The attempt got no complete response within ${timeoutMs} ms.`);
  }
}

/**
 * The pacer could not give a send slot before the call's deadline (`deadlineMs`): the key is paused
 * after a 429, its window is full, or the queue ahead is too long. Nothing was sent for that slot.
 * The runner turns it into an `unknown` Outcome with reason "deadline"; only a direct
 * `pacer.acquire(key, signal, deadlineAt)` caller sees it thrown.
 */
export class DeadlineExceededError extends ResellerClientError {
  override readonly name = "DeadlineExceededError";
  override readonly code = "deadline_exceeded" as const;
  constructor(
    /** Earliest time (ms since the epoch, the client's clock) the key may send again; null when not known. */
    readonly retryAt: number | null,
    /** What the slot was waiting for. */
    readonly waitingFor: "pause" | "window" | "queue",
  ) {
    const at = typeof retryAt === "number" && Number.isFinite(retryAt) ? new Date(retryAt).toISOString() : null;
    super(
      `The key's next send slot ${at === null ? "is not known yet" : `is at ${at}`} (waiting for the ${waitingFor}), ` +
        "after the call's deadline: nothing was sent. Call again later with the same Idempotency-Key, or raise deadlineMs.",
    );
  }
}

/**
 * A response body was larger than `maxResponseBytes` and was not read past it. Thrown only to a raw
 * `client.http` caller, which would otherwise get a truncated body; facade calls get an `unknown`
 * Outcome with reason "response_too_large" instead.
 */
export class ResponseTooLargeError extends ResellerClientError {
  override readonly name = "ResponseTooLargeError";
  override readonly code = "response_too_large" as const;
  constructor(
    readonly status: number,
    readonly maxResponseBytes: number,
  ) {
    super(
      `The ${status} response body is larger than maxResponseBytes (${maxResponseBytes}); it was not read past that. Raise maxResponseBytes if such bodies are expected.`,
    );
  }
}

/** A shared store (Redis) cannot be reached or is closed; the caller paces locally or retries. */
export class StoreUnavailableError extends ResellerClientError {
  override readonly name = "StoreUnavailableError";
  override readonly code = "store_unavailable" as const;
}

/**
 * A call, `operations.wait` or `recover()` started after `client.close()`: nothing was recorded or
 * sent. Create a new client (a restart with the same journal resumes whatever was left open).
 */
export class ClientClosedError extends ResellerClientError {
  override readonly name = "ClientClosedError";
  override readonly code = "client_closed" as const;
  constructor(readonly what: string) {
    super(
      `${what} was called after client.close(), so nothing was recorded or sent: create a new client for new work.`,
    );
  }
}

/** Guards by class; each also recognises errors from a duplicate copy of the package. */
export const isInvalidOptionsError = errorGuard<InvalidOptionsError>("invalid_options");
export const isInvalidArgumentError = errorGuard<InvalidArgumentError>("invalid_argument");
export const isInvalidTokenError = errorGuard<InvalidTokenError>("invalid_token");
export const isLiveOnlyError = errorGuard<LiveOnlyError>("live_only");
export const isInsecureTransportError = errorGuard<InsecureTransportError>("insecure_transport");
export const isRequestAbortedError = errorGuard<RequestAbortedError>("request_aborted");
export const isPaginationError = errorGuard<PaginationError>("pagination_failed");
export const isNetworkError = errorGuard<NetworkError>("network_error");
export const isTimeoutError = errorGuard<TimeoutError>("timeout");
export const isMissingDependencyError = errorGuard<MissingDependencyError>("missing_dependency");
export const isDeadlineExceededError = errorGuard<DeadlineExceededError>("deadline_exceeded");
export const isResponseTooLargeError = errorGuard<ResponseTooLargeError>("response_too_large");
export const isStoreUnavailableError = errorGuard<StoreUnavailableError>("store_unavailable");
export const isClientClosedError = errorGuard<ClientClosedError>("client_closed");
