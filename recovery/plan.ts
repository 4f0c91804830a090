/**
 * Recovery planning (G4, D3, D6, D7, F4, I4, I5) — pure. Given one journalled command and the
 * time, says what recover() may do with it: poll its operation, look the order up by external_id, resend the SAME key and bytes, or ask for a manual check. Nothing here
 * ever invents a new Idempotency-Key or new body bytes: a resend always uses the journal's own.
 */
import { operationTable, type OperationMeta } from "../generated/operations";
import type { CommandRecord, CommandState } from "../journal";
import { looksUpBeforeResend } from "../runner";

/** States recover() looks at. `needs_manual_check` only when asked (recheckManual). */
export const RECOVERABLE_STATES: readonly CommandState[] = [
  "recorded",
  "sending",
  "unknown",
  "conflict",
  "reconciling",
  "accepted",
];

export interface PlanOptions {
  /** D6: the provider's replay TTL (default 24 h), counted from the command's createdAt. */
  replayTtlMs: number;
  /** Resends stop this long before the TTL ends (clock skew, first reservation after createdAt). */
  safetyMarginMs: number;
  /**
   * D7: async domain operations bind key → task durably beyond the TTL, so a resend with the same
   * key and bytes past the TTL returns the bound task instead of a second one. Default true.
   */
  asyncResendPastTtl: boolean;
}

export type RecoveryPlan =
  /** accepted: GET /operations/{uuid} decides completed / failed / still running (F1, F3). */
  | { action: "poll_operation"; operationUuid: string }
  /** orders.create: GET /orders?external_id=… first (I4, F5); resend only if not found and `resendAllowed`. */
  | { action: "lookup_order"; externalId: string; resendAllowed: boolean }
  /** Resend with the journal's key and bytes (D3); `pastTtl` means we rely on D7's durable binding. */
  | { action: "resend"; pastTtl: boolean }
  /** Cannot be decided automatically (F4): the reason for the ticket. */
  | { action: "manual"; reason: string };

export function operationOf(record: CommandRecord): OperationMeta | undefined {
  return (operationTable as Record<string, OperationMeta>)[record.operationId];
}

/** True while a resend still falls inside the server's replay TTL (D6), minus the margin. */
export function withinReplayTtl(record: CommandRecord, now: number, options: PlanOptions): boolean {
  return now < record.createdAt + options.replayTtlMs - options.safetyMarginMs;
}

/**
 * A command in this state may have reached the server (E4: unknown is not failed). That includes
 * "recorded": the move to sending is written with the first attempt (one commit per attempt), so a
 * process killed mid-send leaves its command recorded.
 */
export function possiblySent(record: CommandRecord): boolean {
  return record.state !== "accepted";
}

export function planRecovery(record: CommandRecord, now: number, options: PlanOptions): RecoveryPlan {
  const op = operationOf(record);
  if (!op) return { action: "manual", reason: `unknown operation ${record.operationId} in the journal` };
  if (record.state === "accepted") {
    const uuid = record.resources.operationUuid;
    return uuid
      ? { action: "poll_operation", operationUuid: uuid }
      : { action: "manual", reason: "accepted without an operation UUID in the journal" };
  }
  const fresh = withinReplayTtl(record, now, options);
  if (record.query !== "") {
    // Writes in this API take no query; a stored one cannot be resent through the typed facade.
    return { action: "manual", reason: `a write with a query string (${record.query}) cannot be resent as is` };
  }
  switch (op.unknownOutcome) {
    case "reconcile": {
      // The runner's rule too (looksUpBeforeResend): never resent before the lookup by external_id.
      if (record.externalId && looksUpBeforeResend(op, record.state))
        return { action: "lookup_order", externalId: record.externalId, resendAllowed: fresh };
      return fresh
        ? { action: "resend", pastTtl: false }
        : { action: "manual", reason: "no external_id to look the order up and the replay TTL has passed (D6, D7)" };
    }
    case "resend":
      if (fresh) return { action: "resend", pastTtl: false };
      if (op.asyncOperation && options.asyncResendPastTtl) return { action: "resend", pastTtl: true };
      return {
        action: "manual",
        reason: op.asyncOperation
          ? "replay TTL passed and resends past the TTL are disabled (asyncResendPastTtl: false)"
          : "replay TTL passed: a resend could execute again, and the state cannot be checked by GET (D6, D7)",
      };
    case "report":
    default:
      // x-unknown-outcome: report — a 5xx may have executed without a stored replay (D5): never resend.
      return {
        action: "manual",
        reason: `${record.operationId} may have been executed and cannot be resent safely or checked by GET (D5, F4)`,
      };
  }
}

/** Path parameters of `op` read back from a journalled path ("/domains/<uuid>/renew"). */
export function pathParamsOf(op: OperationMeta, path: string): Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = op.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{(\w+)\\?\}/g, (_m, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  const match = new RegExp(`^${pattern}$`).exec(path);
  if (!match) return undefined;
  const out: Record<string, string> = {};
  names.forEach((name, i) => (out[name] = decodeURIComponent(match[i + 1])));
  return out;
}

/** Every X-Request-ID the command's attempts carried (F4: what a support ticket needs). */
export function requestIdsOf(record: CommandRecord, extra: readonly (string | undefined)[] = []): string[] {
  const ids = record.attempts.map((a) => a.requestId).concat(extra);
  return [...new Set(ids.filter((id): id is string => typeof id === "string" && id.length > 0))];
}

/**
 * C12 across a restart: the latest 429 journalled for this key, so a new process does not send
 * before the pause the previous process was honouring could have ended. The journal keeps the
 * attempt time (when the 429 was received), not the Retry-After value, so the caller supplies an
 * upper bound (the limiter's own Retry-After never exceeds one window, C3, C11).
 */
export function pauseAfterJournalled429(records: readonly CommandRecord[], boundMs: number): number {
  let latest = -Infinity;
  for (const r of records) for (const a of r.attempts) if (a.status === 429 && a.at > latest) latest = a.at;
  return latest === -Infinity ? 0 : latest + boundMs;
}
