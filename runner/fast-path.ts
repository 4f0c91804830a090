/**
 * Entry of the attempt loop, and its fast path — the common case: a call with no journal
 * transitions whose first attempt is a success (decide() always says "stop" for one). It does
 * exactly what the loop in command-runner.ts does for that attempt, minus the loop's bookkeeping, in
 * the same async frame (no extra hop per call); anything else continues in the loop from there.
 */
import { classify } from "./classify";
import type { CallContext } from "./call-context";
import { isDeadlineExceededError, RequestAbortedError } from "../core";
import type { AttemptInfo, CommandTelemetry } from "../core";
import { attemptEvent, replayEvent, buildOutcome } from "./finalize";
import { runAttemptLoop } from "./command-runner";
import { deadlineAtOf } from "./deadline";
import { pacedAttempt, type PacedAttemptResult } from "./paced-attempt";
import type { RunnerDeps, RunResult } from "./runner-types";
import type { AttemptRequest, FetchLike, PreparedRequest } from "./transport";

const noop = (): void => undefined;

/** One command's attempts; runCommand (run-command.ts) decides whether it runs observed. */
export async function runAttempts(
  deps: RunnerDeps,
  ctx: CallContext,
  templateOf: () => AttemptRequest,
  prepared: PreparedRequest | undefined,
  baseUrl: string,
  fetchFn: FetchLike,
  telemetry: CommandTelemetry | undefined,
): Promise<RunResult> {
  const { op, signal } = ctx;
  const timeoutMs = ctx.timeoutMs ?? deps.timeoutMs;
  const deadlineAt = deadlineAtOf(ctx.deadlineMs ?? deps.deadlineMs, deps.clock);
  const journalled = (ctx.commandId ? ctx.journalState : undefined) !== undefined;
  if (!prepared || journalled || signal?.aborted) {
    return runAttemptLoop(deps, ctx, templateOf, baseUrl, fetchFn, telemetry, {
      timeoutMs,
      deadlineAt,
      prepared,
      sent: false,
    });
  }
  const isWrite = op.method !== "GET";
  let sent = false;
  let attempt: PacedAttemptResult;
  try {
    attempt = await pacedAttempt(deps, prepared, {
      attemptNo: 0,
      signal,
      timeoutMs,
      deadlineAt,
      fetchFn,
      onSend: isWrite ? () => void (sent = true) : noop,
      telemetry,
      priority: ctx.priority,
    });
  } catch (error) {
    // The loop turns a late slot into an Outcome, and the abort of a sent write into `unknown`.
    const slotTooLate = isDeadlineExceededError(error) ? error : undefined;
    if (!slotTooLate && !signal?.aborted) throw error;
    if (signal?.aborted && !(isWrite && sent)) throw new RequestAbortedError(op.operationId, signal.reason);
    return runAttemptLoop(deps, ctx, templateOf, baseUrl, fetchFn, telemetry, {
      timeoutMs,
      deadlineAt,
      slotTooLate,
      sent,
    });
  }
  const { transport } = attempt;
  const classified = transport.ok ? classify(op, transport.raw, deps.redactor) : undefined;
  if (!transport.ok || classified!.kind !== "success") {
    return runAttemptLoop(deps, ctx, templateOf, baseUrl, fetchFn, telemetry, {
      timeoutMs,
      deadlineAt,
      pending: { attempt, classified },
      sent,
    });
  }
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
  return { outcome, raw: transport.raw };
}
