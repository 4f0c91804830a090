/**
 * The result of every call: a discriminated union on `kind`. An HTTP-level result never throws
 * (E4: every failure is classified as definitive or unknown, never guessed).
 */
import type { OperationId } from "../generated/operations";
import type { ApiError, ApiErrorOf, ApiErrorStatus } from "../generated/errors";
import type { NetworkError, TimeoutError } from "./errors";
import type { CommandState } from "./states";

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

/** The last X-RateLimit-Limit/Remaining the server sent (C10); null when absent (e.g. on the limiter's 429). */
export interface RateLimitSnapshot {
  limit: number | null;
  remaining: number | null;
}

/** The async operation resource (F2); `status` stays open to future values (F3: unknown statuses are not failures). */
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

export interface OutcomeBase {
  operationId: OperationId;
  attempts: AttemptInfo[];
  /** The Idempotency-Key every attempt of a write carried (D1); undefined for reads. */
  idempotencyKey?: string;
  rateLimit: RateLimitSnapshot;
  /** Journal command id, when a journal is configured (G1). */
  commandId?: string;
  /** X-Request-ID of the last attempt (for support tickets, F4). */
  requestId?: string;
  /**
   * Set when this call sent NOTHING and answered from what this process already knows (D5, G4): the
   * journal's record of a settled command, or the outcome of the same call in flight in this process.
   */
  localReplay?: LocalReplay;
  /**
   * Set when the server answered but the journal refused the write that records it: another worker
   * took the command over, or the journal moved first (I5). The outcome is still what the server said
   * (or `unknown` with reason `journal_race` when no final answer came); the command is that worker's now.
   */
  journalRace?: JournalRace;
}

/** Where a local replay came from (Outcome.localReplay). */
export interface LocalReplay {
  /**
   * "journal": the key belongs to a settled command (succeeded, accepted, completed, failed,
   * rejected, needs_manual_check) — its journalled outcome, rebuilt from state, status, resource
   * UUIDs and request ids (the stored body when the journal still has it).
   * "joined": a call with the same key was in flight in this process; this is its outcome.
   */
  source: "journal" | "joined";
  /** The command's journal state when the replay was built. */
  state: CommandState;
  /** X-Request-IDs of the attempts the journal holds for the command, oldest first. */
  requestIds: string[];
  /** false: the journal no longer holds the response body (pruned); `data` has the resource UUIDs only. */
  bodyAvailable: boolean;
}

/** Why the journal refused a write after the server may have executed the call (Outcome.journalRace). */
export interface JournalRace {
  /** lease_lost: another worker owns the command; invalid_transition: the journal moved first; journal_error: the write failed. */
  error: "lease_lost" | "invalid_transition" | "journal_error";
  /** The worker that owns the command now, when known (lease_lost). */
  currentOwner?: string | null;
  /** What to do, in words. */
  message: string;
}

/**
 * A 2xx with the operation's data. `replayed` is true when the server answered from its idempotency
 * record (D5, D9: the same key and bytes return the first response; nothing happened twice).
 */
export interface SucceededOutcome<D = unknown> extends OutcomeBase {
  kind: "succeeded";
  status: number;
  data: D;
  /** The server replayed the first response to this Idempotency-Key (header Idempotency-Replayed: true). */
  replayed: boolean;
  /** orders.create only: the result was found by external_id after an unknown outcome (F5, I4). */
  reconciled?: boolean;
}

/**
 * A 202 from an async domain operation (F1: acceptance, not the registry's result). Keep
 * `operationUuid` and poll it with `client.operations.wait()`.
 */
export interface AcceptedOutcome<D = unknown> extends OutcomeBase {
  kind: "accepted";
  status: number;
  data: D;
  operation: OperationResource;
  operationUuid: string;
  replayed: boolean;
}

type Digit = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;
/** 400…499 as number literals, so a `switch (outcome.status)` can narrow. */
type ClientErrorStatus = `4${Digit}${Digit}` extends infer S
  ? S extends `${infer N extends number}`
    ? N
    : never
  : never;

/** Statuses of a rejected outcome: every 4xx but 408/499 (unknown outcome) and 409 (a conflict outcome). */
type RejectedStatus = Exclude<ClientErrorStatus, 408 | 409 | 499>;

/**
 * A definitive answer that nothing happened (400, 401, 403, 404, 405, 422, or a 429 after the
 * rate-limit retries ran out), for one status `S`. Fix the cause; do not repeat the call unchanged (G5).
 */
interface RejectedOutcomeOf<S extends RejectedStatus> extends OutcomeBase {
  kind: "rejected";
  status: S;
  /**
   * Typed ErrorEnvelope when the body was one (E1); undefined for router/proxy bodies (E5). Its `code`
   * is one the spec ties to `status` (E4), or an unknown code (`unknownCode: true`).
   */
  error?: ApiErrorOf<S>;
  /** ≤ 2 KiB redacted diagnostic snippet of a non-envelope body (E5). */
  snippet?: string;
}

type DeclaredRejectedStatus = Extract<ApiErrorStatus, RejectedStatus>;

/**
 * A definitive answer that nothing happened: one `RejectedOutcomeOf` per status the spec
 * declares, so `switch (outcome.status)` narrows `outcome.error` to that status's codes, plus one
 * for every other 4xx (a proxy's, with any code).
 */
export type RejectedOutcome =
  | { [S in DeclaredRejectedStatus]: RejectedOutcomeOf<S> }[DeclaredRejectedStatus]
  | RejectedOutcomeOf<Exclude<RejectedStatus, ApiErrorStatus>>;

/**
 * A 409: the Idempotency-Key is in use by a request still running, or belongs to other bytes (D6).
 * Reconcile with the journal and a GET; never retry with a new key.
 */
export interface ConflictOutcome extends OutcomeBase {
  kind: "conflict";
  /** 409: the server's, or the client's own local answer to "same key, first attempt still processing" (D5). */
  status: 409;
  error?: ApiError;
  snippet?: string;
  /**
   * "in_flight_elsewhere": nothing was sent — another live worker of the fleet holds this command's
   * lease and is sending, reconciling or polling it. Call again with the same key after `retryAt`;
   * a settled command then replays from the journal.
   */
  reason?: "in_flight_elsewhere";
  /** reason "in_flight_elsewhere": the worker holding the command. */
  heldBy?: string | null;
  /** reason "in_flight_elsewhere": when that worker's lease runs out (journal clock, ms), if known. */
  retryAt?: number | null;
}

/** Why an outcome is unknown. */
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
  | "response_too_large"
  /** The journal refused a write after a send (see `journalRace`): another worker settles the command. */
  | "journal_race"
  /**
   * The key's pacer (its shared window store, e.g. Redis) failed before a further attempt, after one
   * was sent: nothing more was sent; the command stays in the journal for the same key or `recover()`.
   */
  | "store_unavailable"
  /** The command is in `needs_manual_check` (F4): nothing is sent until a human resolves it. */
  | "needs_manual_check";

/**
 * The side effect MAY have happened: a timeout, a reset connection, a 5xx, or a non-JSON, truncated or
 * empty body where JSON was expected (E4, E5). Reconcile (the journal, `client.recover()`, a GET);
 * do not buy again.
 */
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

/**
 * What every call resolves to, a union on `kind`; switch on it (TypeScript checks exhaustiveness):
 * - `succeeded`: 2xx data ({@link SucceededOutcome});
 * - `accepted`: 202 for an async operation, poll `operationUuid` ({@link AcceptedOutcome});
 * - `rejected`: nothing happened, fix the cause ({@link RejectedOutcome});
 * - `conflict`: 409, reconcile, never a new key ({@link ConflictOutcome});
 * - `unknown`: it may have happened, reconcile, never buy again ({@link UnknownOutcome}).
 *
 * An HTTP result never throws; only a mistake found before sending does (a `ResellerClientError`).
 */
export type Outcome<D = unknown> =
  SucceededOutcome<D> | AcceptedOutcome<D> | RejectedOutcome | ConflictOutcome | UnknownOutcome;

/** `"succeeded" | "accepted" | "rejected" | "conflict" | "unknown"`. */
export type OutcomeKind = Outcome["kind"];
