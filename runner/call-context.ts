/**
 * The per-call context every middleware of one call shares. The facade passes it through
 * openapi-fetch's init (`resellerCall`, which openapi-fetch copies onto the Request); a call made
 * directly through `client.http` gets one derived from the method and the schema path.
 */
import { operationTable, type OperationMeta } from "../generated/operations";
import type { CommandState } from "../journal";
import type { PacingPriority } from "../pacing";
import type { Outcome } from "../core";
import type { AttemptController } from "./attempt-signal";

export const CALL_CONTEXT_KEY = "resellerCall";

/** Options of one call, the second argument of every facade method. */
export interface CallOptions {
  /**
   * Your own id of the logical command, the same on every retry and resend (D1, D2: 1..160
   * characters, sent as Idempotency-Key on writes). Writes only.
   * @default a random UUID
   */
  idempotencyKey?: string;
  /** Caller cancellation. A write that may already have been sent ends as `unknown`; otherwise it throws. */
  signal?: AbortSignal;
  /**
   * Per-attempt timeout for this call, ms.
   * @default the client's `timeoutMs` (DEFAULT_CALL.timeoutMs, 30 000)
   */
  timeoutMs?: number;
  /**
   * Bound on this whole call, ms: pacer waits, 429 pauses, backoff and attempts; `Infinity` for none.
   * When waiting would pass it, the call returns at once as `unknown` with reason "deadline", `sent`
   * and `retryAt`.
   * @default the client's `deadlineMs` (DEFAULT_CALL.deadlineMs, 60 000)
   */
  deadlineMs?: number;
  /**
   * `X-Language` of this call's error messages: ru, en or kk, a regional suffix allowed (E6).
   * @default the client's `language`
   */
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
