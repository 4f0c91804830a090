/**
 * Request samples for the HTTP reference (Redoc's `x-codeSamples`) and the SDK method pages: a curl
 * line with every header the operation needs (Authorization, and Idempotency-Key and Content-Type on
 * writes, D1) and the same call through the SDK. Both are built from the spec's own request example and
 * the operation table, so a sample cannot name a field or header the operation does not have.
 */
import { operationTable, type OperationId, type OperationMeta } from "../../generated/operations";

type Json = Record<string, unknown>;

/** Follows local `$ref`s (`#/components/...`) to the node they name. */
export function resolveRef(spec: Json, node: unknown): Json {
  let value = node as Json;
  for (let depth = 0; value && typeof value.$ref === "string" && depth < 10; depth++) {
    const path = value.$ref.replace(/^#\//, "").split("/");
    value = path.reduce<unknown>((n, key) => (n as Json | undefined)?.[key], spec) as Json;
  }
  return value ?? {};
}

/** The spec's example request body of an operation (its `example`, else its first `examples` entry). */
function requestExample(spec: Json, op: Json): unknown {
  const content = resolveRef(spec, op.requestBody).content as Json | undefined;
  const json = content?.["application/json"] as Json | undefined;
  if (!json) return undefined;
  if (json.example !== undefined) return json.example;
  const first = Object.values((json.examples ?? {}) as Record<string, Json>)[0];
  return first ? resolveRef(spec, first).value : undefined;
}

export const camel = (name: string): string => name.replace(/[-_](\w)/g, (_, c: string) => c.toUpperCase());

function literal(value: unknown, indent: string): string {
  return JSON.stringify(value, null, 2)
    .replace(/"([A-Za-z_$][\w$]*)":/g, "$1:")
    .split("\n")
    .join(`\n${indent}`);
}

/**
 * A domain name the emulator does not hold (it seeds example.kz, example.com.kz and shop.kz), so a
 * registration example succeeds there instead of ending `rejected 422` for a taken name.
 */
export const FREE_DOMAIN = "my-new-shop.kz";

/**
 * The example request body of an operation: the spec's own, except that a registration (a quote or
 * an order with `action: "register"`) names a domain that is still free.
 */
function exampleBody(spec: Json, op: Json, meta: OperationMeta): unknown {
  const body = requestExample(spec, op) ?? (meta.hasBody ? {} : undefined);
  const fields = body as Json | undefined;
  if (fields?.action === "register" && typeof fields.domain === "string") return { ...fields, domain: FREE_DOMAIN };
  return body;
}

const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/^https?:\/\//, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 48)
    .replace(/-$/, "");

/**
 * The Idempotency-Key of an operation's example: a name of the business command itself (D2), never
 * shared between two examples — one key per command (D5, D7). Parts are text, or `{ param }` for a
 * path parameter (a `${domainUuid}` in a template literal, `$DOMAIN_UUID` in shell).
 */
type KeyPart = string | { param: string };

const KEY_PARTS: Partial<Record<OperationId, (body: Json) => KeyPart[]>> = {
  // The term the renewal buys: next year's renewal of the same domain is another command.
  "domains.renew": () => ["renew", { param: "domainUuid" }, "2027"],
  "domains.sync": () => ["sync", { param: "domainUuid" }, "2026-12-07"],
  "domains.setNameservers": (b) => ["nameservers", { param: "domainUuid" }, ...texts(b.nameservers)],
  "domains.check": (b) => ["check", ...texts(b.names)],
  "quotes.create": (b) => ["quote", String(b.action), String(b.domain), `${String(b.period)}y`],
  // Your own order id (external_id) names the purchase: the same key for every retry of it.
  "orders.create": (b) => ["order", String(b.external_id)],
  "webhooks.create": (b) => ["webhook", String(b.url)],
  "webhooks.update": (b) => ["webhook", { param: "webhookUuid" }, b.is_active === false ? "deactivate" : "update"],
  "webhooks.delete": () => ["webhook", { param: "webhookUuid" }, "delete"],
  "webhooks.test": () => ["webhook", { param: "webhookUuid" }, "test-2026-12-07"],
  "webhooks.rotateSecret": () => ["webhook", { param: "webhookUuid" }, "rotate-2026-12"],
  "tickets.create": (b) => ["ticket", String(b.subject)],
  "tickets.addMessage": () => ["ticket", { param: "ticketUuid" }, "message-expiry-updated"],
};

function texts(value: unknown): string[] {
  return Array.isArray(value) ? value.map((v) => String(v)) : [];
}

/** The key's parts: the table's, else the operation and its path parameters (a new write gets one too). */
function keyParts(spec: Json, op: Json, meta: OperationMeta): KeyPart[] {
  const body = (exampleBody(spec, op, meta) ?? {}) as Json;
  const own = KEY_PARTS[meta.operationId];
  if (own) return own(body);
  return [meta.operationId, ...meta.pathParams.map((p) => ({ param: camel(p) }))];
}

/** The example's Idempotency-Key as a TypeScript expression: a string, or a template literal. */
function exampleKeyExpression(spec: Json, op: Json, meta: OperationMeta): string {
  const parts = keyParts(spec, op, meta);
  const text = parts.map((p) => (typeof p === "string" ? slug(p) : `\${${camel(p.param)}}`)).join("-");
  return parts.some((p) => typeof p !== "string") ? `\`${text}\`` : JSON.stringify(text);
}

/** The example's Idempotency-Key in a shell line: path parameters as `$DOMAIN_UUID`. */
function exampleKeyShell(spec: Json, op: Json, meta: OperationMeta): string {
  return keyParts(spec, op, meta)
    .map((p) => (typeof p === "string" ? slug(p) : shellVar(p.param)))
    .join("-");
}

const shellVar = (param: string): string =>
  `$${camel(param)
    .replace(/[A-Z]/g, (c) => `_${c}`)
    .toUpperCase()}`;

/** One line on what the key is, for the examples. */
export const KEY_COMMENT =
  "// The Idempotency-Key names this one business command: the same on every retry, a new one for the next command (D2, D5, D7).";

interface SdkCallStyle {
  /** Path parameters are variables in scope (`{ domainUuid }`), not placeholder strings. */
  pathVariables?: boolean;
}

/** `client.domains.renew({ domainUuid, body: { … } }, { idempotencyKey: `renew-${domainUuid}-2027` })` */
export function sdkCall(spec: Json, op: Json, meta: OperationMeta, style: SdkCallStyle = {}): string {
  const args: string[] = meta.pathParams.map((p) =>
    style.pathVariables ? camel(p) : `${camel(p)}: "…uuid from the API…"`,
  );
  if (meta.hasBody) args.push(`body: ${literal(exampleBody(spec, op, meta), "  ")}`);
  const argText = args.length ? `{ ${args.join(", ")} }` : meta.idempotencyRequired ? "{}" : "";
  const key = meta.idempotencyRequired ? `, { idempotencyKey: ${exampleKeyExpression(spec, op, meta)} }` : "";
  return `client.${meta.operationId}(${argText}${key})`;
}

/** The curl line: path parameters as shell variables, the example body as `--data`. */
function curlSample(spec: Json, path: string, op: Json, meta: OperationMeta): string {
  const url = path.replace(/\{(\w+)\}/g, (_, p: string) => shellVar(p));
  const lines = [
    `curl -X ${meta.method} "$RESELLER_API_BASE_URL${url}"`,
    `  -H "Authorization: Bearer $RESELLER_API_TOKEN"`,
  ];
  if (meta.idempotencyRequired) lines.push(`  -H "Idempotency-Key: ${exampleKeyShell(spec, op, meta)}"`);
  if (meta.hasBody) {
    const body = JSON.stringify(exampleBody(spec, op, meta)).replace(/'/g, "'\\''");
    lines.push(`  -H "Content-Type: application/json"`, `  --data '${body}'`);
  }
  return lines.join(" \\\n");
}

export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

export function codeSamples(spec: Json, path: string, _method: string, op: Json, tsLabel: string): CodeSample[] {
  const meta = operationTable[op.operationId as OperationId] as OperationMeta | undefined;
  if (!meta) return [];
  const ts = [
    'import { createResellerClient } from "reseller-api";',
    "",
    "const client = createResellerClient({",
    "  baseUrl: process.env.RESELLER_API_BASE_URL!,",
    "  token: process.env.RESELLER_API_TOKEN!,",
    "});",
    ...meta.pathParams.map((p) => `const ${camel(p)} = "…uuid from the API…";`),
    ...(meta.idempotencyRequired ? [KEY_COMMENT] : []),
    `const outcome = await ${sdkCall(spec, op, meta, { pathVariables: true })};`,
  ].join("\n");
  return [
    { lang: "Shell", label: "curl", source: curlSample(spec, path, op, meta) },
    { lang: "TypeScript", label: tsLabel, source: ts },
  ];
}
