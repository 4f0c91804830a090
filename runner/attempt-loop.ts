/**
 * The attempt loop of one command (E4, E5, G2–G5, C12, I2, I4): pacer slot → attempt with a
 * per-attempt X-Request-ID and timeout → release the slot → record and classify → decide → the
 * step the decision names. Every attempt of a write carries the same Idempotency-Key and the same
 * body bytes (D3, D4); a 409 is never answered with a new key. The journal sees every attempt and
 * the final state (G1, I5, I7). All state lives on the Command (command.ts).
 */
import { isDeadlineExceededError } from "../core";
import { isLeaseLostError } from "../journal";
import type { Command } from "./command";
import { elsewhere, raceOf } from "./command-journal";
import type { PacedAttemptResult } from "./paced-attempt";
import { recordAttempt } from "./record-attempt";
import { decide } from "./retry-policy";
import { rateLimitStep, retryStep } from "./retry-step";
import type { RunResult } from "./runner-types";

/** Runs the command to its end; in fleet mode under this worker's lease on it. */
export async function runAttemptLoop(command: Command): Promise<RunResult> {
  const { deps, ctx } = command;
  if (!deps.leases || !ctx.commandId || command.record.state === undefined) return loop(command);
  // Fleet mode: held (and renewed by the heartbeat) while this call works on the command.
  const leases = deps.leases;
  const commandId = ctx.commandId;
  try {
    await leases.acquire(commandId);
  } catch (error) {
    // Another live worker holds it (a raw client.http resend): nothing is sent, it is theirs (D5).
    if (!isLeaseLostError(error)) throw error;
    return { outcome: elsewhere(ctx, error.currentOwner) };
  }
  try {
    return await loop(command);
  } finally {
    leases.release(commandId);
  }
}

/** Look again (the journal refused a write: the loop's checks run again before anything is sent). */
const AGAIN = Symbol("again");

/** The next attempt, or the command's end when none can be made (aborted, past the deadline, a journal race). */
async function nextAttempt(command: Command): Promise<PacedAttemptResult | RunResult | typeof AGAIN> {
  const { deps, record, signal } = command;
  if (deps.clock.now() >= command.deadlineAt) return command.atDeadline(deps.clock.now(), "attempt");
  if (record.race) return command.journalRaced();
  try {
    if (record.state === "unknown" || record.state === "conflict") await command.move("reconciling"); // G4: a resend after reconciliation
    if (record.race) return AGAIN; // the journal refused the move: another mover has it
    // recorded/reconciling → sending is written with this attempt (one commit, see command-journal.ts).
    return await command.attempt(command.nextRequest(), command.rateLimited);
  } catch (error) {
    if (signal?.aborted) return command.aborted(signal.reason);
    if (isDeadlineExceededError(error)) return command.atDeadline(error.retryAt, error.waitingFor);
    // E4/I5: once the command may have run, any journal refusal (a lost lease, an unreachable journal on
    // the heartbeat) ends it as an Outcome — never a throw after a send.
    if ((isLeaseLostError(error) || command.leaseCheckFailed) && (command.sent || record.state !== "recorded")) {
      command.leaseCheckFailed = false;
      record.race = raceOf(error); // noticed before a resend: it may have run already, so an Outcome
      return AGAIN;
    }
    // No throw after a send: the pacer (its window store) failed before a further attempt.
    if (command.isWrite && command.sent) return command.storeFailed(error);
    throw error;
  }
}

async function loop(command: Command): Promise<RunResult> {
  const { deps, ctx, signal } = command;
  if (command.mustLookUpFirst) {
    const end = await command.reconcile(true);
    if (end) return end;
  }
  for (;;) {
    if (signal?.aborted) return command.aborted(signal.reason);
    const attempt = await nextAttempt(command);
    if (attempt === AGAIN) continue;
    if ("outcome" in attempt) return attempt;
    const { transport } = attempt;
    const { info, result, classified } = recordAttempt(command, attempt);
    if (!transport.ok && transport.error === "aborted") return command.aborted(transport.reason);
    const decision = decide(ctx.op, result, {
      attempts: command.counted,
      rateLimitRetries: command.rateLimited,
      maxAttempts: deps.retry.maxAttempts,
      maxRateLimitRetries: deps.retry.maxRateLimitRetries,
    });
    const transportUnknown = transport.ok
      ? undefined
      : { reason: transport.error === "timeout" ? ("timeout" as const) : ("network" as const), cause: transport.cause };
    switch (decision.action) {
      case "stop":
        return command.finish({ last: classified });
      case "give_up":
        return command.finish({ last: classified, unknown: transportUnknown });
      case "rate_limit":
        await rateLimitStep(command, info, classified, transport.ok ? transport.raw.headers.get("retry-after") : null);
        continue;
      case "retry": {
        const end = await retryStep(command, info, classified, decision.charge, transportUnknown);
        if (end) return end;
        continue;
      }
      case "reconcile": {
        const end = await command.reconcile();
        if (end) return end;
        continue;
      }
    }
  }
}
