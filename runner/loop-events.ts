/**
 * The events the attempt loop emits when a command leaves its happy path (I7: log every retry and
 * failure): a 429 pause, a retry, a spent retry budget, a deadline stop and an unknown outcome. Each
 * carries the ids a support ticket quotes (Idempotency-Key, command id, X-Request-IDs).
 */
import type { Classified } from "./classify";
import type { CallContext } from "./call-context";
import type { AttemptInfo, ClientEvent, Outcome } from "../core";

/** C12, C11: a 429 paused the key; `source` says whether the API's limiter or a proxy answered. */
export function pauseEvent(
  ctx: CallContext,
  info: AttemptInfo,
  classified: Classified | undefined,
  retryAfter: string | null,
): ClientEvent {
  const api = classified?.kind === "rate_limited" && classified.error?.code === "rate_limit_exceeded";
  return {
    type: "pause",
    operationId: ctx.op.operationId,
    status: 429,
    retryAfter,
    requestId: info.requestId,
    source: api ? "api" : "proxy",
    idempotencyKey: ctx.sentIdempotencyKey,
    commandId: ctx.commandId,
  };
}

/** A retry after a backoff of `delayMs`. */
export function retryEvent(ctx: CallContext, info: AttemptInfo, attempt: number, delayMs: number): ClientEvent {
  return {
    type: "retry",
    operationId: ctx.op.operationId,
    attempt,
    delayMs,
    reason: info.error ?? `status ${info.status}`,
    idempotencyKey: ctx.sentIdempotencyKey,
  };
}

/** I2: the process-wide retry budget had nothing left for this retry. */
export function budgetExhaustedEvent(ctx: CallContext, available: number): ClientEvent {
  return {
    type: "budget-exhausted",
    operationId: ctx.op.operationId,
    available,
    idempotencyKey: ctx.sentIdempotencyKey,
    commandId: ctx.commandId,
  };
}

/** The call's deadline stopped it while waiting for `waitingFor`. */
export function deadlineEvent(
  ctx: CallContext,
  waitingFor: "pause" | "window" | "queue" | "backoff" | "attempt",
  sent: boolean,
  retryAt: number | null,
  deadlineAt: number,
): ClientEvent {
  return {
    type: "deadline",
    operationId: ctx.op.operationId,
    waitingFor,
    sent,
    retryAt,
    deadlineAt,
    idempotencyKey: ctx.sentIdempotencyKey,
    commandId: ctx.commandId,
  };
}

/** The command ended `unknown`: whether it happened is not known (E4). */
export function unknownOutcomeEvent(
  ctx: CallContext,
  outcome: Extract<Outcome, { kind: "unknown" }>,
  attempts: readonly AttemptInfo[],
): ClientEvent {
  return {
    type: "unknown-outcome",
    operationId: ctx.op.operationId,
    reason: outcome.reason,
    status: outcome.status,
    idempotencyKey: ctx.sentIdempotencyKey,
    commandId: ctx.commandId,
    requestIds: attempts.map((a) => a.requestId).filter((r): r is string => !!r),
  };
}
