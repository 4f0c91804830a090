/**
 * A needs_manual_check command as a note a support agent can act on (F4, G6): what was attempted,
 * when, every request id, the operation/order/domain UUIDs and the key id. Built from the journal,
 * which never holds the token or any x-sensitive-fields value (H2); nothing else is added.
 */
import type { CommandRecord } from "../src/index";
import { isoOf } from "./shape";

export function supportNote(record: CommandRecord): string {
  const check = record.manualCheck;
  const ids = [
    ...new Set([
      ...(check?.requestIds ?? []),
      ...record.attempts.map((a) => a.requestId).filter((x): x is string => !!x),
    ]),
  ];
  const body = record.body ? new TextDecoder().decode(record.body) : "(no body)";
  const lines = [
    `Subject: manual check needed — ${record.method} ${record.path} (${record.environment})`,
    "",
    "Hello, please check the outcome of this command; our client could not confirm it and will not repeat it.",
    "",
    `Reason:           ${check?.reason ?? record.reconciliation ?? "not recorded"}`,
    `API key id:       ${record.apiKeyId} (${record.environment})`,
    `Request:          ${record.method} /api/reseller/v1${record.path}${record.query}`,
    `Body:             ${body}`,
    `Idempotency-Key:  ${record.idempotencyKey}`,
    `First sent:       ${isoOf(record.createdAt)}`,
    `Last update:      ${isoOf(record.updatedAt)}`,
  ];
  const operation = check?.operationUuid ?? record.resources.operationUuid;
  const order = check?.orderUuid ?? record.resources.orderUuid;
  const domain = check?.domainUuid ?? record.resources.domainUuid;
  if (operation) lines.push(`Operation UUID:   ${operation}`);
  if (order) lines.push(`Order UUID:       ${order}`);
  if (domain) lines.push(`Domain UUID:      ${domain}`);
  if (record.externalId) lines.push(`external_id:      ${record.externalId}`);
  lines.push(`X-Request-IDs:    ${ids.length ? ids.join(", ") : "(none received)"}`);
  lines.push("Attempts:");
  for (const a of record.attempts) {
    const what =
      a.status !== undefined
        ? `HTTP ${a.status}${a.errorCode ? ` ${a.errorCode}` : ""}`
        : (a.transportError ?? "no response");
    lines.push(
      `  ${isoOf(a.at)}  ${what}${a.requestId ? `  request ${a.requestId}` : ""}${a.replayed ? "  (replayed)" : ""}`,
    );
  }
  lines.push("", `Local command id: ${record.id}`);
  return lines.join("\n") + "\n";
}
