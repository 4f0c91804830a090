/**
 * A needs_manual_check command as a note a support agent can act on (F4, G6): what was attempted,
 * when, every request id, the operation/order/domain UUIDs and the key id. Built from the journal,
 * which never holds the token or any x-sensitive-fields value (H2); nothing else is added.
 */
import type { CommandRecord } from "../src/index";
import { redactSecretShapes, redactValue } from "./redact";
import { isoOf, recordOf } from "./shape";

/** Body fields that hold free text a person wrote (ticket messages): left out unless asked for (H2). */
const FREE_TEXT_FIELDS: ReadonlySet<string> = new Set(["message", "subject", "text", "comment", "description", "note"]);

const LEFT_OUT = "[free text left out; --include-text prints it]";

/** A journalled request body as text, its free-text fields left out unless `includeText`. */
export function bodyText(record: CommandRecord, includeText: boolean): string | null {
  if (!record.body) return null;
  // A4: the body is printed redacted as the SDK redacts: a URL's password and secret-looking query
  // values (a webhook URL with basic auth), secret fields (auth_code, signing_secret, passwords),
  // and whatever a person pasted into a ticket (a token, a webhook signing secret).
  const text = new TextDecoder().decode(record.body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return includeText ? redactSecretShapes(text) : "[a body that is not JSON, left out; --include-text prints it]";
  }
  parsed = redactValue(parsed);
  if (includeText) return JSON.stringify(parsed);
  const strip = (value: unknown, depth: number): unknown => {
    if (Array.isArray(value)) return value.map((v) => strip(v, depth + 1));
    const obj = recordOf(value);
    if (!obj || depth > 32) return value;
    return Object.fromEntries(
      Object.entries(obj).map(([k, v]) => [
        k,
        FREE_TEXT_FIELDS.has(k.toLowerCase()) && typeof v === "string" ? LEFT_OUT : strip(v, depth + 1),
      ]),
    );
  };
  return JSON.stringify(strip(parsed, 0));
}

/** A journalled path and query as printed: secret-looking query values redacted (as redactUrl does). */
export function pathText(record: CommandRecord): string {
  if (!record.query) return record.path;
  const redacted = redactSecretShapes(`http://x.invalid${record.path}${record.query}`);
  return redacted.startsWith("http://x.invalid/")
    ? redacted.slice("http://x.invalid".length)
    : record.path + "?[REDACTED]";
}

/**
 * Internal rule ids ("(D6)", "F4:", "(E4, F1)") mean nothing to a support agent: the note says the
 * same thing in plain words without them.
 */
export function plainWords(text: string): string {
  return text
    .replace(/\s*\((?:[A-J]\d{1,2}(?:\s*[,/;]\s*|\s+and\s+)?)+\)/g, "")
    .replace(/\b[A-J]\d{1,2}(?:\/[A-J]\d{1,2})*:\s*/g, "")
    .replace(/\s{2,}/g, " ")
    .trim();
}

export function supportNote(record: CommandRecord, options: { includeText?: boolean } = {}): string {
  const check = record.manualCheck;
  const ids = [
    ...new Set([
      ...(check?.requestIds ?? []),
      ...record.attempts.map((a) => a.requestId).filter((x): x is string => !!x),
    ]),
  ];
  const body = bodyText(record, options.includeText === true) ?? "(no body)";
  const lines = [
    `Subject: manual check needed — ${record.method} ${record.path} (${record.environment})`,
    "",
    "Hello, please check the outcome of this command; our client could not confirm it and will not repeat it.",
    "",
    `Reason:           ${plainWords(check?.reason ?? record.reconciliation ?? "not recorded")}`,
    `API key id:       ${record.apiKeyId} (${record.environment})`,
    `Request:          ${record.method} /api/reseller/v1${pathText(record)}`,
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
      `  ${isoOf(a.at)}  ${plainWords(what)}${a.requestId ? `  request ${a.requestId}` : ""}${a.replayed ? "  (replayed)" : ""}`,
    );
  }
  lines.push("", `Local command id: ${record.id}`);
  return lines.join("\n") + "\n";
}
