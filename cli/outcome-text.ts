/** One-line descriptions of client outcomes for result rows (codes and request ids, never secrets). */
import type { CommandRecord, Outcome } from "../src/index";
import type { RowResult } from "./jobs";

export function requestIdsOf(outcome: Outcome): string[] {
  return outcome.attempts.map((a) => a.requestId).filter((id): id is string => typeof id === "string");
}

export function describeOutcome(outcome: Outcome): string {
  switch (outcome.kind) {
    case "rejected": {
      const e = outcome.error;
      const fields =
        e?.details && typeof e.details === "object" && !Array.isArray(e.details)
          ? ` (${Object.entries(e.details as Record<string, unknown>)
              .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join("; ") : String(v)}`)
              .join(", ")})`
          : "";
      return `HTTP ${outcome.status} ${e?.code ?? "(no API envelope)"}${e?.message ? `: ${e.message}` : ""}${fields}`;
    }
    case "conflict":
      return `HTTP 409 ${
        outcome.error?.code ?? "conflict"
      }: the key is busy or belongs to another command; run \`reseller recover\`, never a new key`;
    case "unknown":
      return `outcome unknown (${outcome.reason}${outcome.status ? ` ${outcome.status}` : ""})${
        outcome.reconciliation ? `: ${outcome.reconciliation}` : ""
      }; re-run to reconcile — do not buy again by hand`;
    default:
      return `HTTP ${outcome.status}`;
  }
}

/** A row's journalled command that is neither done nor refused: a human checks it, or recover() settles it. */
export function unsettledRow(row: RowResult, record: CommandRecord, verb: "order" | "renew"): RowResult {
  if (record.state === "needs_manual_check")
    return { ...row, kind: "manual", message: `needs a manual check (command ${record.id}): reseller commands notes` };
  return {
    ...row,
    kind: "unknown",
    message: `command ${record.id} is ${record.state}; run \`reseller recover\` — never ${verb} it again by hand`,
  };
}
