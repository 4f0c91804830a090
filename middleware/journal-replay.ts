/**
 * Local replays (D5, G4): a call whose Idempotency-Key belongs to a settled command is answered from
 * the journal WITHOUT sending. The Outcome is rebuilt from what the journal keeps even after its
 * bodies are pruned — state, response status, resource UUIDs, request ids — and from the stored
 * response body only while it is there. Never from the stored request body.
 */
import type { CommandRecord, CommandState } from "../journal";
import { isRecord, type LocalReplay, type OperationResource, type Outcome, type RejectedOutcome } from "../core";
import type { ApiError } from "../generated/errors";

/** States answered locally: nothing is sent again for them (settled, or waiting on a human, F4). */
export const REPLAYED_STATES: ReadonlySet<CommandState> = new Set<CommandState>([
  "succeeded",
  "accepted",
  "completed",
  "failed",
  "rejected",
  "needs_manual_check",
]);

function replayOf(record: CommandRecord, source: LocalReplay["source"]): LocalReplay {
  return {
    source,
    state: record.state,
    requestIds: record.attempts.flatMap((a) => (a.requestId ? [a.requestId] : [])),
    bodyAvailable: record.response?.body !== null && record.response?.body !== undefined,
  };
}

/** The resource the journal knows of, when the response body is gone: its UUIDs only. */
function dataOf(record: CommandRecord): unknown {
  const body = record.response?.body;
  if (body !== null && body !== undefined) return body;
  const { orderUuid, operationUuid, domainUuid } = record.resources;
  const uuid = orderUuid ?? operationUuid;
  const data: Record<string, unknown> = {};
  if (uuid) data.uuid = uuid;
  if (domainUuid) data.domain_uuid = domainUuid;
  return { data };
}

function errorOf(record: CommandRecord): ApiError | undefined {
  const body = record.response?.body;
  return isRecord(body) && isRecord(body.error) ? (body.error as unknown as ApiError) : undefined;
}

/** What every answer from the journal carries: nothing was sent for it, so no attempts and no snapshot. */
function answerBase(record: CommandRecord) {
  return {
    operationId: record.operationId,
    attempts: [],
    idempotencyKey: record.idempotencyKey,
    rateLimit: { limit: null, remaining: null },
    commandId: record.id,
    requestId: record.attempts.at(-1)?.requestId,
  };
}

/** The journalled outcome of a command in one of REPLAYED_STATES. */
export function outcomeFromJournal(record: CommandRecord): Outcome {
  const base = { ...answerBase(record), localReplay: replayOf(record, "journal") };
  const status = record.response?.status;
  switch (record.state) {
    case "succeeded":
      return { ...base, kind: "succeeded", status: status ?? 200, data: dataOf(record), replayed: true };
    case "accepted":
    case "completed":
    case "failed": {
      // The 202 the command got, with the operation as last seen (its final state once settled, F1).
      const data = dataOf(record);
      const seen = isRecord(data) && isRecord(data.data) ? (data.data as Partial<OperationResource>) : {};
      const operationUuid = record.resources.operationUuid ?? (typeof seen.uuid === "string" ? seen.uuid : "");
      const operation: OperationResource = {
        ...seen,
        uuid: operationUuid,
        status: typeof seen.status === "string" ? seen.status : record.state === "accepted" ? "unknown" : record.state,
      };
      return { ...base, kind: "accepted", status: 202, data, operation, operationUuid, replayed: true };
    }
    case "rejected":
      return { ...base, kind: "rejected", status: status ?? 400, error: errorOf(record) } as RejectedOutcome;
    default:
      // needs_manual_check (F4): it may have happened; a human decides, nothing is sent meanwhile.
      return {
        ...base,
        kind: "unknown",
        reason: "needs_manual_check",
        status,
        error: errorOf(record),
        reconciliation:
          record.reconciliation ??
          "needs a manual check (F4): resolve the command in the journal before doing anything else with this key",
      };
  }
}

/**
 * A call joined to one with its key in flight in this process, whose own signal fired first: the
 * command may have been sent by the other call, so it is `unknown` (E4), never a throw — the other
 * call goes on and the journal settles it.
 */
export function abortedWhileJoined(record: CommandRecord): Outcome {
  return {
    ...answerBase(record),
    localReplay: replayOf(record, "joined"),
    kind: "unknown",
    reason: "aborted",
    reconciliation:
      "cancelled while another call with this key was in flight in this client: that call goes on and may buy — read its outcome with the SAME key later, never with a new key",
  };
}

/** A call with this key was in flight in this process: its outcome, marked as joined. */
export function joinedOutcome(outcome: Outcome, state: CommandState): Outcome {
  const requestIds = outcome.attempts.flatMap((a) => (a.requestId ? [a.requestId] : []));
  return { ...outcome, localReplay: { source: "joined", state, requestIds, bodyAvailable: true } };
}

/** "in_flight_elsewhere": another live worker holds the command; nothing was sent (D5: still processing). */
export function inFlightElsewhere(record: CommandRecord, heldBy: string | null, retryAt: number | null): Outcome {
  return {
    ...answerBase(record),
    kind: "conflict",
    status: 409,
    reason: "in_flight_elsewhere",
    heldBy,
    retryAt,
  };
}

/** For a raw client.http caller: the Response a local answer stands for (status and JSON). */
export function responseOf(outcome: Outcome): Response {
  const headers = { "content-type": "application/json", "idempotency-replayed": "true" };
  if (outcome.kind === "succeeded" || outcome.kind === "accepted")
    return new Response(JSON.stringify(outcome.data ?? null), { status: outcome.status, headers });
  const status = outcome.status ?? 409;
  const error = outcome.error ?? { code: outcome.kind, message: `answered locally: ${outcome.kind}`, details: [] };
  return new Response(JSON.stringify({ error }), { status, headers });
}

/** The journal could not be asked for the lease of a command that may have run: nothing sent, `unknown`. */
export function journalUnreachable(record: CommandRecord, error: unknown): Outcome {
  const message = `the journal could not be reached to take this command's lease (${error instanceof Error ? error.name : "error"}): nothing was sent — call again later with the SAME key`;
  return {
    kind: "unknown",
    operationId: record.operationId,
    attempts: [],
    idempotencyKey: record.idempotencyKey,
    rateLimit: { limit: null, remaining: null },
    commandId: record.id,
    reason: "journal_race",
    reconciliation: message,
    journalRace: { error: "journal_error", message },
  };
}
