/**
 * Entry of the attempt engine: one command, observed or not. With no `telemetry` option and nobody
 * listening to events, the attempt loop runs bare; otherwise it runs inside
 * a telemetry command scope and ends with one `outcome` event (I7). Either way one Command
 * (command.ts) carries the command through the loop.
 */
import type { ClientEvent, CommandEndInfo, Outcome } from "../core";
import type { CallContext } from "./call-context";
import { runAttemptLoop } from "./attempt-loop";
import { Command, type CommandInput } from "./command";
import type { RunnerDeps, RunResult } from "./runner-types";

export function runCommand(deps: RunnerDeps, input: CommandInput): Promise<RunResult> {
  // Nobody listens: no wrapper, no end-of-command summary.
  if (!deps.telemetry && !deps.events.enabled) return runAttemptLoop(new Command(deps, input, undefined));
  return runObserved(deps, input);
}

/** The attempt loop plus the command's telemetry span and the one `outcome` event per command (I7). */
async function runObserved(deps: RunnerDeps, input: CommandInput): Promise<RunResult> {
  const { ctx } = input;
  const { op } = ctx;
  const telemetry = deps.telemetry?.startCommand({
    operationId: op.operationId,
    method: op.method,
    pathTemplate: op.path,
    idempotencyKey: ctx.sentIdempotencyKey,
    commandId: ctx.commandId,
  });
  let result: RunResult;
  try {
    result = await runAttemptLoop(new Command(deps, input, telemetry));
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    telemetry?.end({ requestIds: [], thrown: { name: e.name, message: deps.redactor.text(e.message) } });
    throw error;
  }
  telemetry?.end(endInfo(result.outcome));
  if (deps.events.enabled) deps.events.emit(outcomeEvent(ctx, result.outcome));
  return result;
}

/**
 * A call answered without sending anything (a local replay from the journal, a call joined to one in
 * flight, a command another worker holds): it is observed as a command all the same (I7) — one
 * command scope, marked with where its answer came from, and one `outcome` event.
 */
export function observeAnswer(
  deps: Pick<RunnerDeps, "telemetry" | "events">,
  ctx: CallContext,
  outcome: Outcome,
  source: NonNullable<CommandEndInfo["localReplay"]>,
): void {
  const { op } = ctx;
  deps.telemetry
    ?.startCommand({
      operationId: op.operationId,
      method: op.method,
      pathTemplate: op.path,
      idempotencyKey: ctx.sentIdempotencyKey,
      commandId: outcome.commandId,
    })
    .end({ ...endInfo(outcome), localReplay: source });
  if (deps.events.enabled) deps.events.emit(outcomeEvent(ctx, outcome));
}

function outcomeEvent(ctx: CallContext, outcome: Outcome): ClientEvent {
  const end = endInfo(outcome);
  return {
    type: "outcome",
    operationId: ctx.op.operationId,
    kind: outcome.kind,
    status: end.status,
    reason: end.reason,
    errorCode: end.errorCode,
    reconciled: end.reconciled,
    idempotencyKey: ctx.sentIdempotencyKey,
    commandId: ctx.commandId ?? outcome.commandId,
    requestIds: end.requestIds,
  };
}

function endInfo(outcome: Outcome): CommandEndInfo {
  const requestIds: string[] = [];
  for (const a of outcome.attempts) if (a.requestId) requestIds.push(a.requestId);
  const o = outcome as Partial<{
    status: number;
    reason: string;
    error: { code?: string };
    reconciled: boolean;
    replayed: boolean;
    sent: boolean;
    retryAt: number | null;
  }>;
  const deadline = outcome.kind === "unknown" && o.reason === "deadline";
  return {
    kind: outcome.kind,
    reason: outcome.kind === "unknown" ? o.reason : undefined,
    status: typeof o.status === "number" ? o.status : undefined,
    errorCode: typeof o.error?.code === "string" ? o.error.code : undefined,
    reconciled: o.reconciled === true ? true : undefined,
    replayed: o.replayed === true ? true : undefined,
    sent: deadline ? o.sent === true : undefined,
    retryAt: deadline ? (o.retryAt ?? null) : undefined,
    requestIds,
  };
}
