/**
 * The result of every call: a discriminated union on `kind`. An HTTP-level result never throws (E4).
 * - succeeded: 2xx data; `replayed` from Idempotency-Replayed: true (D5, D9).
 * - accepted: 202 + Operation on an async operation (F1): keep `operationUuid` and poll.
 * - rejected: a definitive answer that nothing happened (400/401/403/404/405/422, or 429 after the
 *   rate-limit retries ran out): fix the cause; do not repeat unchanged (G5).
 * - conflict: 409 — reconcile via the journal and a GET; never a new key (D6, E4).
 * - unknown: timeout, reset, 5xx, or a non-JSON/truncated/empty body where JSON was expected: the
 *   side effect may have happened (E4, E5). Reconcile; do not buy again. Also the call's deadline
 *   (reason "deadline"): `sent` says whether this call sent anything, `retryAt` when to call again.
 */
import type { OperationId } from "../generated/operations";
import type { ApiError } from "../generated/errors";
import type { NetworkError, TimeoutError } from "./errors";

/** Transport-level failure kind of an attempt that got no usable response. */
export type AttemptErrorKind = "timeout" | "network" | "aborted" | "malformed_response" | "response_too_large";

export interface AttemptInfo {
  /** HTTP status; absent when no response came. */
  status?: number;
  /** X-Request-ID the server returned, else the one this attempt sent. */
  requestId?: string;
  /** Delay waited before this attempt (pacing, Retry-After or backoff), ms. */
  delayMs: number;
  error?: AttemptErrorKind;
  /** Idempotency-Replayed: true on this attempt (D9). */
  replayed?: boolean;
}

/** C10: the last snapshot the server sent; null fields when absent (e.g. on the limiter's 429). */
export interface RateLimitSnapshot {
  limit: number | null;
  remaining: number | null;
}

/** The async operation resource (F2); `status` stays open to future values (F3). */
export interface OperationResource {
  uuid: string;
  domain_uuid?: string | null;
  action?: string;
  status: string;
  result?: unknown;
  error?: { code: string; message: string } | null;
  created_at?: string;
  completed_at?: string | null;
  next_check_at?: string | null;
}

interface OutcomeBase {
  operationId: OperationId;
  attempts: AttemptInfo[];
  /** The Idempotency-Key every attempt of a write carried (D1); undefined for reads. */
  idempotencyKey?: string;
  rateLimit: RateLimitSnapshot;
  /** Journal command id, when a journal is configured (G1). */
  commandId?: string;
  /** X-Request-ID of the last attempt (for support tickets, F4). */
  requestId?: string;
}

export interface SucceededOutcome<D = unknown> extends OutcomeBase {
  kind: "succeeded";
  status: number;
  data: D;
  replayed: boolean;
  /** orders.create only: the result was found by external_id after an unknown outcome (F5, I4). */
  reconciled?: boolean;
}

export interface AcceptedOutcome<D = unknown> extends OutcomeBase {
  kind: "accepted";
  status: number;
  data: D;
  operation: OperationResource;
  operationUuid: string;
  replayed: boolean;
}

export interface RejectedOutcome extends OutcomeBase {
  kind: "rejected";
  status: number;
  /** Typed ErrorEnvelope when the body was one (E1); undefined for router/proxy bodies (E5). */
  error?: ApiError;
  /** ≤ 2 KiB redacted diagnostic snippet of a non-envelope body (E5). */
  snippet?: string;
}

export interface ConflictOutcome extends OutcomeBase {
  kind: "conflict";
  status: 409;
  error?: ApiError;
  snippet?: string;
}

export type UnknownReason =
  | "timeout"
  | "network"
  | "server_error"
  | "malformed_response"
  | "unexpected_status"
  | "aborted"
  | "retry_budget_exhausted"
  /** Waiting on (pacer slot, 429 pause, backoff) would pass the call's `deadlineMs`. */
  | "deadline"
  /** The body was larger than `maxResponseBytes`; it was not read past it. */
  | "response_too_large";

export interface UnknownOutcome extends OutcomeBase {
  kind: "unknown";
  reason: UnknownReason;
  /** Status of the last response, when one came. */
  status?: number;
  error?: ApiError;
  snippet?: string;
  /** The transport failure of the last attempt, when there was no response. */
  cause?: NetworkError | TimeoutError;
  /** reconcile policy: what the lookup found out (F5), in words. */
  reconciliation?: string;
  /**
   * reason "deadline" only: whether this call put an attempt on the wire. false → nothing of this
   * call reached the server; calling again with the same Idempotency-Key is safe (D2).
   */
  sent?: boolean;
  /**
   * reason "deadline" only: the earliest time worth calling again (ms since the epoch, the client's
   * clock) — the end of the key's pause or window, or when the next retry was due; null when unknown.
   */
  retryAt?: number | null;
}

export type Outcome<D = unknown> =
  SucceededOutcome<D> | AcceptedOutcome<D> | RejectedOutcome | ConflictOutcome | UnknownOutcome;

export type OutcomeKind = Outcome["kind"];
