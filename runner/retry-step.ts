/**
 * The steps after an attempt that asked for another one (C12, E4, I2): a 429 pauses the whole key
 * and the same request goes again; any other retry waits its jittered backoff — unless that would
 * pass the deadline, or the client's retry budget is spent.
 */
import type { Classified } from "./classify";
import type { AttemptInfo } from "../core";
import type { Command } from "./command";
import { budgetExhaustedEvent, pauseEvent, retryEvent } from "./loop-events";
import { backoffDelay } from "../pacing";
import type { RunResult } from "./runner-types";

/** C12: the pacer now holds the whole key until Retry-After (+ margin); the same request goes again. */
export async function rateLimitStep(
  command: Command,
  info: AttemptInfo,
  classified: Classified | undefined,
  retryAfter: string | null,
): Promise<void> {
  command.rateLimited += 1;
  await command.record.flush();
  const { events } = command.deps;
  if (events.observed) events.emit(pauseEvent(command.ctx, info, classified, retryAfter));
}

/**
 * I2: backoff, then the same request again. Returns the command's end when it cannot retry (the
 * deadline, the budget, the caller's abort), undefined to go on.
 */
export async function retryStep(
  command: Command,
  info: AttemptInfo,
  classified: Classified | undefined,
  charge: "error" | "timeout",
  unknown: { reason: "timeout" | "network"; cause: NonNullable<Command["lastCause"]> } | undefined,
): Promise<RunResult | undefined> {
  const { deps } = command;
  const { clock, events } = deps;
  const delay = backoffDelay(command.counted - 1, {
    baseMs: deps.retry.baseMs,
    capMs: deps.retry.capMs,
    random: deps.random,
  });
  // The backoff alone would pass the deadline: return now, saying when the retry was due.
  if (clock.now() + delay >= command.deadlineAt) return command.atDeadline(clock.now() + delay, "backoff");
  const cost = deps.budget.tryAcquire(charge);
  if (cost === false) {
    if (events.observed) events.emit(budgetExhaustedEvent(command.ctx, deps.budget.available()));
    return command.finish({ last: classified, unknown });
  }
  command.spent += cost;
  await command.record.flush(); // the attempt is on disk before the backoff wait
  if (events.observed) events.emit(retryEvent(command.ctx, info, command.attempts.length, delay));
  command.telemetry?.backoff(delay, info.error ?? `status ${info.status}`);
  try {
    await clock.sleep(delay, command.signal);
  } catch {
    return command.aborted(command.signal?.reason);
  }
  command.waitBefore = delay;
  return undefined;
}
