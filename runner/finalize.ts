/**
 * Turns the last attempt's classification into the public Outcome and the journal state (G3, I5).
 * Pure apart from building objects; the journal body is redacted (H2), the Outcome data is not.
 */
import { operationTable } from "../generated/operations";
import type { AttemptRecord, CommandState, CommandResources } from "../journal";
import type { ClientEvent } from "../core";
import type { Classified } from "./classify";
import type {
  AttemptInfo,
  Outcome,
  OperationResource,
  RateLimitSnapshot,
  RejectedOutcome,
  UnknownReason,
} from "../core";
import type { CallContext } from "./call-context";
import type { NetworkError, TimeoutError } from "../core";
import type { Redactor } from "../core";

export interface FinalizeInput {
  ctx: CallContext;
  attempts: AttemptInfo[];
  rateLimit: RateLimitSnapshot;
  /** Last classified response, or undefined when the last attempt got none. */
  last?: Classified;
  /** Forced unknown reason (timeout, network, aborted, budget…), overriding `last`. */
  unknown?: {
    reason: UnknownReason;
    cause?: NetworkError | TimeoutError;
    reconciliation?: string;
    /** reason "deadline": whether this call sent anything, and when to call again. */
    sent?: boolean;
    retryAt?: number | null;
  };
}

export function buildOutcome(input: FinalizeInput): Outcome {
  const { ctx, attempts, rateLimit, last } = input;
  // Plain literals (no spreads): this runs once per call on the hot path.
  const operationId = ctx.op.operationId;
  const idempotencyKey = ctx.sentIdempotencyKey;
  const commandId = ctx.commandId;
  const requestId = attempts.length > 0 ? attempts[attempts.length - 1].requestId : undefined;
  if (input.unknown || !last) {
    const u = input.unknown ?? { reason: "network" as const };
    const failed = last && last.kind !== "success" ? last : undefined;
    const outcome: Outcome = {
      kind: "unknown",
      operationId,
      attempts,
      idempotencyKey,
      rateLimit,
      commandId,
      requestId,
      reason: u.reason,
      cause: u.cause,
      reconciliation: u.reconciliation,
      status: failed?.status,
      error: failed?.error,
      snippet: failed?.snippet,
    };
    if (u.reason === "deadline") {
      outcome.sent = u.sent ?? attempts.length > 0;
      outcome.retryAt = u.retryAt ?? null;
    }
    return outcome;
  }
  switch (last.kind) {
    case "success": {
      const op = (last.data as { data?: unknown } | undefined)?.data as OperationResource | undefined;
      if (ctx.op.asyncOperation && last.status === 202 && op && typeof op.uuid === "string") {
        return {
          kind: "accepted",
          operationId,
          attempts,
          idempotencyKey,
          rateLimit,
          commandId,
          requestId,
          status: last.status,
          data: last.data,
          operation: op,
          operationUuid: op.uuid,
          replayed: last.replayed,
        };
      }
      return {
        kind: "succeeded",
        operationId,
        attempts,
        idempotencyKey,
        rateLimit,
        commandId,
        requestId,
        status: last.status,
        data: last.data,
        replayed: last.replayed,
      };
    }
    case "conflict":
      return {
        kind: "conflict",
        operationId,
        attempts,
        idempotencyKey,
        rateLimit,
        commandId,
        requestId,
        status: 409,
        error: last.error,
        snippet: last.snippet,
      };
    case "rejected":
    case "rate_limited":
      // A 429 whose retries ran out: the limiter answered before any processing (C5) — nothing happened.
      return {
        kind: "rejected",
        operationId,
        attempts,
        idempotencyKey,
        rateLimit,
        commandId,
        requestId,
        status: last.status,
        error: last.error,
        snippet: last.snippet,
      } as RejectedOutcome; // classify() gives 4xx only; the union ties each status to its codes (E4)
    case "unknown":
      return {
        kind: "unknown",
        operationId,
        attempts,
        idempotencyKey,
        rateLimit,
        commandId,
        requestId,
        reason: last.reason,
        status: last.status,
        error: last.error,
        snippet: last.snippet,
      };
  }
}

const STATE_OF: Record<Outcome["kind"], CommandState> = {
  succeeded: "succeeded",
  accepted: "accepted",
  rejected: "rejected",
  conflict: "conflict",
  unknown: "unknown",
};

export function journalStateOf(outcome: Outcome): CommandState {
  return STATE_OF[outcome.kind];
}

/** H2: what the journal keeps of the response — status and the redacted JSON, never a secret. */
export function journalPatch(outcome: Outcome, redactor: Redactor) {
  const resources: CommandResources = {};
  let body: unknown = null;
  if (outcome.kind === "succeeded" || outcome.kind === "accepted") {
    body = redactor.value(outcome.data);
    const d = (outcome.data as { data?: Record<string, unknown> } | undefined)?.data;
    if (d && typeof d === "object") {
      const uuid = typeof d.uuid === "string" ? d.uuid : undefined;
      if (operationTable[outcome.operationId].producesResource === "order") resources.orderUuid = uuid;
      if (outcome.kind === "accepted") resources.operationUuid = uuid;
      if (typeof d.domain_uuid === "string") resources.domainUuid = d.domain_uuid;
    }
  } else {
    body = outcome.error ? { error: outcome.error } : outcome.snippet ? { snippet: outcome.snippet } : null;
  }
  const status = "status" in outcome && typeof outcome.status === "number" ? outcome.status : null;
  return { response: status === null ? null : { status, body }, resources };
}

/** I7: the journal's record of one attempt (H2: status, code, request id — never a body). */
export function journalAttempt(info: AttemptInfo, classified: Classified | undefined, at: number): AttemptRecord {
  const transportError =
    info.error && info.error !== "malformed_response" && info.error !== "response_too_large" ? info.error : undefined;
  return {
    at,
    delayMs: info.delayMs,
    status: info.status,
    errorCode: classified && classified.kind !== "success" ? classified.error?.code : undefined,
    requestId: info.requestId,
    transportError,
    replayed: info.replayed,
  };
}

/** I7: the "attempt" event for the integrator's logger. */
export function attemptEvent(ctx: CallContext, info: AttemptInfo, attempt: number): ClientEvent {
  return {
    type: "attempt",
    operationId: ctx.op.operationId,
    attempt,
    status: info.status,
    requestId: info.requestId,
    delayMs: info.delayMs,
    error: info.error,
    idempotencyKey: ctx.sentIdempotencyKey,
    commandId: ctx.commandId,
  };
}

/** D9: the server answered from its idempotency store (Idempotency-Replayed: true). */
export function replayEvent(ctx: CallContext, info: AttemptInfo): ClientEvent {
  return {
    type: "replay",
    operationId: ctx.op.operationId,
    status: info.status!,
    idempotencyKey: ctx.sentIdempotencyKey,
    requestId: info.requestId,
  };
}
