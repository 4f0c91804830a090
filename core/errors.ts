/**
 * Errors the client throws. Programmer errors (bad options, arguments, tokens, transport rules)
 * throw BEFORE anything is sent; an HTTP result never throws — it becomes an Outcome.
 * Transport failures (NetworkError, TimeoutError) are separate from HTTP errors (like ky's
 * NetworkError vs HTTPError) and travel inside an `unknown` Outcome (E4).
 * A4: no message here ever contains the token; callers pass field names, never values.
 */

/** Base class of every error the client creates. */
export class ResellerClientError extends Error {
  override readonly name: string = "ResellerClientError";
}

/** createResellerClient() options are invalid. */
export class InvalidOptionsError extends ResellerClientError {
  override readonly name = "InvalidOptionsError";
  constructor(message: string, readonly option: string) {
    super(message);
  }
}

/** A call argument is invalid (A9 malformed UUID, H1 per_page, D2 Idempotency-Key, a body on a bodiless op). */
export class InvalidArgumentError extends ResellerClientError {
  override readonly name = "InvalidArgumentError";
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
}

/** B1–B4: a live-only operation was called with a test key (the server would answer 403). */
export class LiveOnlyError extends ResellerClientError {
  override readonly name = "LiveOnlyError";
  constructor(readonly operationId: string) {
    super(`${operationId} is available only to live credentials (B1–B3); a test key would get 403.`);
  }
}

/** A1/A4: the token would travel over plain HTTP to a non-loopback host. */
export class InsecureTransportError extends ResellerClientError {
  override readonly name = "InsecureTransportError";
}

/**
 * The caller's AbortSignal fired before any byte of a write was sent, or during a read.
 * (An abort after a write may have been sent is NOT thrown: it is an `unknown` Outcome, E4.)
 */
export class RequestAbortedError extends ResellerClientError {
  override readonly name = "RequestAbortedError";
  constructor(readonly operationId: string, readonly reason?: unknown) {
    super(`${operationId} was aborted by the caller before a result arrived.`);
  }
}

/** A page fetched during iteration did not succeed; the page's Outcome is attached. */
export class PaginationError extends ResellerClientError {
  override readonly name = "PaginationError";
  constructor(readonly outcome: { kind: string; operationId: string }, readonly pageIndex: number) {
    super(`Page ${pageIndex + 1} of ${outcome.operationId} ended as "${outcome.kind}".`);
  }
}

/** Transport failure: the connection failed or was reset; no HTTP response was read (E4). */
export class NetworkError extends ResellerClientError {
  override readonly name = "NetworkError";
  constructor(
    message: string,
    /** undici-style code when known, e.g. UND_ERR_SOCKET, ECONNRESET. */
    readonly code?: string,
  ) {
    super(message);
  }
}

/** Transport failure: the attempt exceeded its per-attempt timeout (E4). */
export class TimeoutError extends ResellerClientError {
  override readonly name = "TimeoutError";
  constructor(readonly timeoutMs: number) {
    super(`The attempt got no complete response within ${timeoutMs} ms.`);
  }
}
