/**
 * The per-call context every middleware of one call shares. The facade's call step (openapi-fetch's
 * documented per-request `middleware` option) hands it to the client's chain, which passes it to each
 * step beside the step's own parameters; a call made directly through `client.http` gets one derived
 * from the method and the schema path. Nothing is written onto openapi-fetch's objects.
 */
import { operationTable, type OperationMeta } from "../generated/operations";
import type { CommandState } from "../journal";
import type { PacingPriority } from "../pacing";
import type { Outcome } from "../core";

/** Options of one call, the second argument of every facade method. */
export interface CallOptions {
  /**
   * Your own id of the logical command, the same on every retry and resend (D1, D2: 1..160
   * characters, sent as Idempotency-Key on writes). Writes only.
   * @default a random UUID
   */
  idempotencyKey?: string | undefined;
  /** Caller cancellation. A write that may already have been sent ends as `unknown`; otherwise it throws. */
  signal?: AbortSignal | undefined;
  /**
   * Per-attempt timeout for this call, ms.
   * @default the client's `timeoutMs` (DEFAULT_CALL.timeoutMs, 30 000)
   */
  timeoutMs?: number | undefined;
  /**
   * Bound on this whole call, ms: pacer waits, 429 pauses, backoff and attempts; `Infinity` for none.
   * When waiting would pass it, the call returns at once as `unknown` with reason "deadline", `sent`
   * and `retryAt`.
   * @default the client's `deadlineMs` (DEFAULT_CALL.deadlineMs, 60 000)
   */
  deadlineMs?: number | undefined;
  /**
   * `X-Language` of this call's error messages: ru, en or kk, a regional suffix allowed (E6).
   * @default the client's `language`
   */
  language?: string | undefined;
}

/**
 * Options of one call to an operation that takes no Idempotency-Key (the reads): {@link CallOptions}
 * without `idempotencyKey`, which such a call refuses (D1).
 */
export type ReadCallOptions = Omit<CallOptions, "idempotencyKey">;

export interface CallContext extends CallOptions {
  op: OperationMeta;
  /** D3/D4: the exact body bytes, frozen once (null = no body, never "{}"). */
  body?: Uint8Array | null;
  /** Trimmed key actually sent. */
  sentIdempotencyKey?: string;
  commandId?: string;
  /**
   * Journal state the command is in when the attempt loop starts; undefined = do not journal this
   * call's transitions (no journal, or a resend of a command that already reached a final state).
   */
  journalState?: CommandState;
  /**
   * Set by the idempotency middleware: the command was already in the journal under this key (a
   * restart, a retry of an unknown, another worker's command), so it may have reached the server.
   */
  resumed?: boolean;
  outcome?: Outcome;
  /** Set by the facade, which reads `outcome` only: the attempt loop skips rebuilding the Response. */
  outcomeOnly?: boolean;
  /** Set by the facade: openapi-fetch's Request is sent as is as the first attempt. */
  sendsOwnRequest?: boolean;
  /**
   * Set by the facade with a custom `fetch`: the AbortController whose signal openapi-fetch's Request
   * carries (given as the documented `signal` init option). With the platform's fetch there is none:
   * the first attempt's signal goes as fetch's `init.signal` (runner/transport.ts).
   */
  firstAttempt?: AbortController;
  /** Set by the facade for recover()'s calls: their attempts wait in the pacer's recovery lane. */
  priority?: PacingPriority;
  /**
   * Set by the idempotency middleware: frees this call's key and command in the process's registry
   * (journal/holders.ts) once the call has its Outcome, so a same-key call joins it until then.
   */
  settleHold?: (outcome?: Outcome) => void;
}

const byRoute = new Map<string, OperationMeta>(
  Object.values(operationTable).map((op) => [`${op.method} ${op.path}`, op as OperationMeta]),
);

function operationFor(method: string, schemaPath: string): OperationMeta | undefined {
  return byRoute.get(`${method.toUpperCase()} ${schemaPath}`);
}

/** The context of a direct client.http call, derived from its route; undefined for an undocumented one. */
export function callContextFor(method: string, schemaPath: string): CallContext | undefined {
  const op = operationFor(method, schemaPath);
  return op ? { op } : undefined;
}
