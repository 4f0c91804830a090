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

/** `client.domains.renew({ domainUuid: "…", body: { … } }, { idempotencyKey: "…" })` */
export function sdkCall(spec: Json, op: Json, meta: OperationMeta): string {
  const args: string[] = meta.pathParams.map((p) => `${camel(p)}: "…uuid from the API…"`);
  if (meta.hasBody) args.push(`body: ${literal(requestExample(spec, op) ?? {}, "  ")}`);
  const argText = args.length ? `{ ${args.join(", ")} }` : meta.idempotencyRequired ? "{}" : "";
  const key = meta.idempotencyRequired ? `, { idempotencyKey: "your-command-id" }` : "";
  return `client.${meta.operationId}(${argText}${key})`;
}

/** The curl line: path parameters as shell variables, the example body as `--data`. */
function curlSample(spec: Json, path: string, op: Json, meta: OperationMeta): string {
  const url = path.replace(
    /\{(\w+)\}/g,
    (_, p: string) =>
      `$${camel(p)
        .replace(/[A-Z]/g, (c) => `_${c}`)
        .toUpperCase()}`,
  );
  const lines = [
    `curl -X ${meta.method} "$RESELLER_API_BASE_URL${url}"`,
    `  -H "Authorization: Bearer $RESELLER_API_TOKEN"`,
  ];
  if (meta.idempotencyRequired) lines.push(`  -H "Idempotency-Key: your-command-id"`);
  if (meta.hasBody) {
    const body = JSON.stringify(requestExample(spec, op) ?? {}).replace(/'/g, "'\\''");
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
    `const outcome = await ${sdkCall(spec, op, meta)};`,
  ].join("\n");
  return [
    { lang: "Shell", label: "curl", source: curlSample(spec, path, op, meta) },
    { lang: "TypeScript", label: tsLabel, source: ts },
  ];
}
