/**
 * Reconciliation inside the attempt loop (I4, F5): after an unknown outcome of a write whose policy
 * is `reconcile`, look the order up by its external_id. Found: the command succeeded (not created
 * again). Not found: resend with the SAME key and bytes (G4), within the retry bounds. The lookup
 * itself failed: the command stays `unknown` and must not be created again.
 */
import { operationRoles } from "../generated/operations";
import { classify } from "./classify";
import type { Outcome } from "../core";
import type { Command } from "./command";
import { externalIdOf, lookupOrder, lookupRequest } from "./reconcile";
import { isDeadlineExceededError } from "../core";
import type { RunResult } from "./runner-types";
import type { PacedAttemptResult } from "./paced-attempt";

/**
 * I4/F5: look the order up by external_id; undefined means "resend now with the same key and bytes".
 * Drives the command through its own methods (finish, move, attempt, aborted, atDeadline).
 */
export async function reconcileStep(command: Command, resuming = false): Promise<RunResult | undefined> {
  const { deps, ctx, attempts, signal } = command;
  const { op } = ctx;
  const { events, redactor } = deps;
  const externalId = externalIdOf(ctx.body);
  // The last response as classified (none when the last attempt got no HTTP answer).
  const lastRaw = command.lastRaw;
  const lastClassified = attempts.at(-1)?.status !== undefined && lastRaw ? classify(op, lastRaw, redactor) : undefined;
  const unknownOf = (why: string) => {
    const tail = attempts.at(-1);
    const reason =
      tail?.error === "timeout"
        ? "timeout"
        : tail?.error === "network"
          ? "network"
          : lastClassified?.kind === "unknown"
            ? lastClassified.reason
            : "server_error";
    return { reason, reconciliation: why } as const;
  };
  if (resuming) {
    // D7/F5: a command another call (or a crashed process) may have sent, possibly past the replay
    // TTL, when the server no longer replays its key: nothing is resent before the lookup.
    if (!externalId) return undefined; // the schema requires it; without one the send goes as before
    await toReconciling(command);
    if (command.record.race) return command.journalRaced();
  } else {
    await command.move("unknown");
    if (!externalId)
      return command.finish({
        last: lastClassified,
        unknown: unknownOf("no external_id in the body: cannot look the order up"),
      });
    await command.move("reconciling");
  }
  const req = lookupRequest(command.baseUrl, command.templateOf().headers, externalId);
  let found;
  for (let i = 0; ; i++) {
    try {
      found = await lookupOrder(
        (r) => lookupAttempt(command, command.attempt(r, i, "/orders"), i + 1),
        req,
        externalId,
        redactor,
      );
    } catch (error) {
      if (signal?.aborted) return command.aborted(signal.reason);
      if (isDeadlineExceededError(error)) return command.atDeadline(error.retryAt, error.waitingFor);
      if (command.sent) return command.storeFailed(error); // the order went out: an Outcome, never a throw
      throw error;
    }
    // C12: a 429 on the lookup waits out the key's pause like any other request.
    if (!(found.result === "lookup_failed" && found.status === 429 && i < deps.retry.maxRateLimitRetries)) break;
  }
  if (signal?.aborted) return command.aborted(signal.reason);
  events.emit({
    type: "reconcile",
    operationId: op.operationId,
    externalId,
    result: found.result,
    idempotencyKey: ctx.sentIdempotencyKey,
  });
  if (found.result === "found") {
    const body = new TextEncoder().encode(JSON.stringify({ data: found.order }));
    command.lastRaw = {
      status: found.status,
      headers: new Headers({ "content-type": "application/json" }),
      bytes: body,
    };
    const r = await command.finish({
      last: { kind: "success", status: found.status, data: { data: found.order }, replayed: false },
      note: `found by external_id ${externalId} after an unknown outcome; not created again`,
    });
    return { ...r, outcome: { ...r.outcome, reconciled: true } as Outcome };
  }
  if (found.result === "lookup_failed") {
    await command.move("unknown");
    const why = `order lookup by external_id failed (${found.why}); do not create it again`;
    return command.finish({
      last: lastClassified,
      unknown: resuming ? { reason: lookupFailure(found), reconciliation: why } : unknownOf(why),
    });
  }
  if (resuming) {
    await command.move("sending"); // not found: the resend below is the first send of this call
    return undefined;
  }
  // Nothing was created: a resend with the SAME key and bytes is safe (G4), within the bounds.
  const cost = command.counted < deps.retry.maxAttempts ? deps.budget.tryAcquire("error") : false;
  if (cost === false) {
    await command.move("unknown");
    return command.finish({
      last: lastClassified,
      unknown: unknownOf("no order with this external_id yet; retry bound reached — resend later with the same key"),
    });
  }
  command.spent += cost;
  await command.move("sending");
  return undefined;
}

/** I7: the lookup is an HTTP request of its own, so it gets its own `attempt` event (one per request). */
async function lookupAttempt(
  command: Command,
  sent: Promise<PacedAttemptResult>,
  attempt: number,
): Promise<PacedAttemptResult> {
  const { deps, ctx } = command;
  const r = await sent;
  if (deps.events.enabled) {
    const { transport } = r;
    deps.events.emit({
      type: "attempt",
      operationId: ctx.op.operationId,
      lookup: operationRoles.reconcileLookup,
      attempt,
      status: transport.ok ? transport.raw.status : undefined,
      requestId: (transport.ok && transport.raw.headers.get("x-request-id")) || r.requestId,
      delayMs: r.waitedMs,
      error: transport.ok ? undefined : transport.error,
      idempotencyKey: ctx.sentIdempotencyKey,
      commandId: ctx.commandId,
    });
  }
  return r;
}

/** From wherever a resumed command stands to `reconciling`, by the journal's allowed moves (I5). */
async function toReconciling(command: Command): Promise<void> {
  const state = command.record.state;
  if (state === "recorded") await command.move("sending");
  if (state === "recorded" || state === "sending") await command.move("unknown");
  if (command.record.state !== "reconciling") await command.move("reconciling");
}

/** Why a resumed command stays unknown when its lookup failed (no attempt of this call to name). */
function lookupFailure(found: {
  why: string;
  status?: number;
}): "timeout" | "network" | "server_error" | "unexpected_status" {
  if (found.status === undefined) return found.why.includes("timeout") ? "timeout" : "network";
  return found.status >= 500 ? "server_error" : "unexpected_status";
}
