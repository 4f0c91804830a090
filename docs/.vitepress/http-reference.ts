/**
 * The HTTP reference: `spec/openapi.yaml` rendered by Redocly's Redoc into one self-contained page
 * (script and spec inlined, no CDN, no fonts from the network), with `#operation/<operationId>`
 * anchors the guides link to. Each operation's vendor extensions are put in front of its description
 * as a table, because Redoc shows `x-` fields of parameters and schemas but not of operations.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { parse } from "yaml";
import { repoRoot } from "./package-entries";

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;

/** Shown on every operation, present or not, so "not live-only" is as visible as "live-only". */
const ALWAYS_SHOWN: Record<string, { absent: string }> = {
  "x-live-only": { absent: "false — test and live keys" },
  "x-async-operation": { absent: "false — the response is the result" },
  "x-unknown-outcome": { absent: "— (a read: retried like `resend`)" },
};

interface Operation {
  operationId?: string;
  description?: string;
  [key: string]: unknown;
}

type Spec = { paths?: Record<string, Record<string, Operation>> } & Record<string, unknown>;

function cell(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return `\`${text.replace(/\|/g, "\\|")}\``;
}

function extensionTable(op: Operation): string {
  const keys = [
    ...Object.keys(ALWAYS_SHOWN),
    ...Object.keys(op).filter((k) => k.startsWith("x-") && !(k in ALWAYS_SHOWN)),
  ];
  const rows = keys.map((k) => `| \`${k}\` | ${k in op ? cell(op[k]) : ALWAYS_SHOWN[k].absent} |`);
  return ["| vendor extension | value |", "|---|---|", ...rows].join("\n");
}

/** Every operation of the spec, with its vendor extensions in front of its description. */
export function decorateSpec(spec: Spec): { spec: Spec; operationIds: string[] } {
  const operationIds: string[] = [];
  for (const item of Object.values(spec.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      if (op.operationId) operationIds.push(op.operationId);
      op.description = `${extensionTable(op)}\n\n${op.description ?? ""}`;
    }
  }
  return { spec, operationIds };
}

export function readSpec(): Spec {
  return parse(readFileSync(join(repoRoot, "spec/openapi.yaml"), "utf8")) as Spec;
}

/** Redoc's sidebar credit is an <img> from Redocly's CDN; the same credit, drawn locally, keeps the page offline. */
const CDN_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg";
const LOCAL_LOGO =
  "data:image/svg+xml," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="16"><text x="0" y="12" font-family="sans-serif" font-size="11" fill="#666">API docs by Redocly</text></svg>',
  );

function offline(bundle: string): string {
  if (!bundle.includes(CDN_LOGO)) return bundle;
  const out = bundle.split(CDN_LOGO).join(LOCAL_LOGO);
  if (out.includes("https://cdn.redoc.ly"))
    throw new Error("The Redoc bundle loads another file from cdn.redoc.ly: make it local.");
  return out;
}

/** `<` in inlined JSON or script must not close the surrounding <script>. */
function scriptSafe(text: string): string {
  return text.replace(/<\/script/gi, "<\\/script").replace(/<!--/g, "<\\!--");
}

/** Where the page lives inside the site (and inside docs/public/). */
export const HTTP_REFERENCE_FILE = "reference/http.html";

export function renderHttpReference(outFile: string): { operations: number } {
  const { spec, operationIds } = decorateSpec(readSpec());
  const require = createRequire(import.meta.url);
  const redoc = offline(readFileSync(require.resolve("redoc/bundles/redoc.standalone.js"), "utf8"));
  const info = (spec.info ?? {}) as { title?: string; version?: string };
  const options = {
    showExtensions: false, // the table above already shows them, including the absent ones
    hideDownloadButton: true,
    expandResponses: "",
    jsonSampleExpandLevel: 2,
    theme: { typography: { fontFamily: "system-ui, sans-serif", headings: { fontFamily: "system-ui, sans-serif" } } },
  };
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${info.title ?? "API"} ${info.version ?? ""} — HTTP reference</title>
<link rel="icon" href="data:,">
<style>body { margin: 0; } .back { display: block; padding: 8px 16px; font: 14px system-ui, sans-serif; border-bottom: 1px solid #ddd; }</style>
</head>
<body>
<a class="back" href="../index.html">← Guides and SDK reference</a>
<div id="redoc"></div>
<script>${scriptSafe(redoc)}</script>
<script>
Redoc.init(${scriptSafe(JSON.stringify(spec))}, ${JSON.stringify(options)}, document.getElementById("redoc"));
</script>
</body>
</html>
`;
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, html);
  return { operations: operationIds.length };
}
