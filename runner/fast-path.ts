/**
 * The attempt loop's fast path — the common case: a call with no journal transitions whose first
 * attempt is a success (decide() always says "stop" for one). It does exactly what the loop in
 * command-runner.ts does for that attempt, minus the loop's bookkeeping; anything else hands the
 * attempt (or the deadline that stopped it) to the loop.
 */
import { classify, type Classified } from "./classify";
import type { CallContext } from "./call-context";
import { isDeadlineExceededError, RequestAbortedError, type DeadlineExceededError } from "../core";
import type { AttemptInfo, CommandTelemetry } from "../core";
import { attemptEvent, replayEvent, buildOutcome } from "./finalize";
import { pacedAttempt, type PacedAttemptResult } from "./paced-attempt";
import type { RunnerDeps, RunResult } from "./runner-types";
import type { FetchLike, PreparedRequest } from "./transport";

const noop = (): void => undefined;

/** What the loop continues from when the first attempt did not finish the command. */
export interface FirstAttemptLeft {
  /** The attempt made (and its classification), for the loop to decide on. */
  pending?: { attempt: PacedAttemptResult; classified?: Classified };
  /** The slot would have come after the deadline (nothing sent). */
  slotTooLate?: DeadlineExceededError;
  /** Whether a write's bytes may have left (an abort after this is `unknown`, not a throw). */
  sent: boolean;
}

export async function firstAttempt(
  deps: RunnerDeps,
  ctx: CallContext,
  prepared: PreparedRequest,
  options: { timeoutMs: number; deadlineAt: number; fetchFn: FetchLike; telemetry: CommandTelemetry | undefined },
): Promise<{ done: RunResult } | FirstAttemptLeft> {
  const { op, signal } = ctx;
  const isWrite = op.method !== "GET";
  let sent = false;
  let attempt: PacedAttemptResult;
  try {
    attempt = await pacedAttempt(deps, prepared, {
      attemptNo: 0,
      signal,
      timeoutMs: options.timeoutMs,
      deadlineAt: options.deadlineAt,
      fetchFn: options.fetchFn,
      onSend: isWrite ? () => void (sent = true) : noop,
      telemetry: options.telemetry,
    });
  } catch (error) {
    // The loop turns a late slot into an Outcome, and the abort of a sent write into `unknown`.
    const slotTooLate = isDeadlineExceededError(error) ? error : undefined;
    if (!slotTooLate && !signal?.aborted) throw error;
    if (signal?.aborted && !(isWrite && sent)) throw new RequestAbortedError(op.operationId, signal.reason);
    return { slotTooLate, sent };
  }
  const { transport } = attempt;
  const classified = transport.ok ? classify(op, transport.raw, deps.redactor) : undefined;
  if (!transport.ok || classified!.kind !== "success") return { pending: { attempt, classified }, sent };
  const last = classified!;
  const info: AttemptInfo = {
    delayMs: attempt.waitedMs,
    requestId: transport.raw.headers.get("x-request-id") ?? attempt.requestId,
    status: transport.raw.status,
  };
  if (last.replayed) info.replayed = true;
  const { events } = deps;
  if (events.enabled) events.emit(attemptEvent(ctx, info, 1));
  if (info.replayed) events.emit(replayEvent(ctx, info));
  const outcome = buildOutcome({
    ctx,
    attempts: [info],
    rateLimit: attempt.rateLimit ?? { limit: null, remaining: null },
    last,
  });
  deps.budget.onSuccess(0);
  return { done: { outcome, raw: transport.raw } };
}
