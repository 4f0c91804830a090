/**
 * The per-call context every middleware of one call shares. The facade passes it through
 * openapi-fetch's init (`resellerCall`, which openapi-fetch copies onto the Request); a call made
 * directly through `client.http` gets one derived from the method and the schema path.
 */
import { operationTable, type OperationMeta } from "../generated/operations";
import type { CommandState } from "../journal";
import type { Outcome } from "../core";
import type { AttemptController } from "./attempt-signal";

export const CALL_CONTEXT_KEY = "resellerCall";

export interface CallOptions {
  /** D1/D2: the logical command's key; a UUID is generated when absent. */
  idempotencyKey?: string;
  /** Caller cancellation. A write already (possibly) sent ends as `unknown`; otherwise it throws. */
  signal?: AbortSignal;
  /** Per-attempt timeout, ms (the client's `timeoutMs` when absent). */
  timeoutMs?: number;
  /**
   * Bound on this whole call, ms: pacer waits, 429 pauses, backoff and attempts (the client's
   * `deadlineMs` when absent; `Infinity` for none). When waiting would pass it, the call returns at
   * once as `unknown` with reason "deadline", `sent` and `retryAt`.
   */
  deadlineMs?: number;
  /** E6: X-Language for this call (ru | en | kk, regional suffix allowed). */
  language?: string;
}

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
  outcome?: Outcome;
  /** Set by the facade, which reads `outcome` only: the attempt loop skips rebuilding the Response. */
  outcomeOnly?: boolean;
  /**
   * Set by the facade: the controller whose signal openapi-fetch's Request carries, so the first
   * attempt can send that Request as is (no second Request on the common path).
   */
  firstAttempt?: AttemptController;
  /** Set by the facade when the first attempt's signal goes to fetch as `init.signal`, not on the Request. */
  signalViaInit?: boolean;
}

const byRoute = new Map<string, OperationMeta>(
  Object.values(operationTable).map((op) => [`${op.method} ${op.path}`, op as OperationMeta]),
);

function operationFor(method: string, schemaPath: string): OperationMeta | undefined {
  return byRoute.get(`${method.toUpperCase()} ${schemaPath}`);
}

/** The call's context; created (and attached) on first use for a direct client.http call. */
export function callContextOf(request: Request, schemaPath: string): CallContext | undefined {
  const holder = request as unknown as Record<string, CallContext | undefined>;
  const existing = holder[CALL_CONTEXT_KEY];
  if (existing) return existing;
  const op = operationFor(request.method, schemaPath);
  if (!op) return undefined;
  const ctx: CallContext = { op };
  holder[CALL_CONTEXT_KEY] = ctx;
  return ctx;
}
