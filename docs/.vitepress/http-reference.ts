/**
 * The HTTP reference: `spec/openapi.yaml` rendered by Redocly's Redoc into one self-contained page
 * (script and spec inlined, no CDN, no fonts from the network), with `#operation/<operationId>`
 * anchors the guides link to. Each operation's vendor extensions are put in front of its description
 * as a table, because Redoc shows `x-` fields of parameters and schemas but not of operations. Each
 * operation also gets request samples (`x-codeSamples`: curl with every header it needs, and the SDK
 * call) and the name of its SDK method. One page per language: English, and Russian with Redoc's own
 * labels translated; both follow the site's light or dark theme and offer the spec for download.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { parse } from "yaml";
import { repoRoot } from "./package-entries";

import { codeSamples } from "./http-samples";

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

function extensionTable(op: Operation, labels: { extension: string; value: string }): string {
  const keys = [
    ...Object.keys(ALWAYS_SHOWN),
    ...Object.keys(op).filter((k) => k.startsWith("x-") && !(k in ALWAYS_SHOWN)),
  ];
  const rows = keys.map((k) => `| \`${k}\` | ${k in op ? cell(op[k]) : ALWAYS_SHOWN[k].absent} |`);
  return [`| ${labels.extension} | ${labels.value} |`, "|---|---|", ...rows].join("\n");
}

export type ReferenceLang = "en" | "ru";

const LABELS = {
  en: { extension: "vendor extension", value: "value", sdk: "SDK method", samples: "TypeScript (SDK)" },
  ru: { extension: "расширение спецификации", value: "значение", sdk: "Метод SDK", samples: "TypeScript (SDK)" },
};

/** Where the reference page of a language lives inside the site (and inside docs/public/). */
export function referenceFile(lang: ReferenceLang): string {
  return lang === "ru" ? HTTP_REFERENCE_FILE_RU : HTTP_REFERENCE_FILE;
}

/** Every operation of the spec, with its vendor extensions, its SDK method and request samples. */
export function decorateSpec(
  spec: Spec,
  lang: ReferenceLang = "en",
  base = "/",
): { spec: Spec; operationIds: string[] } {
  const operationIds: string[] = [];
  const labels = LABELS[lang];
  const sdkDir = lang === "ru" ? "ru/sdk" : "sdk";
  for (const [path, item] of Object.entries(spec.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      // A HEAD is its GET without the body (A7/D1): no SDK method or sample of its own.
      if (op.operationId && method !== "head") {
        operationIds.push(op.operationId);
        const [resource] = op.operationId.split(".");
        const anchor = `client-${op.operationId.replace(/\./g, "-").toLowerCase()}`;
        const sdk = `**${labels.sdk}:** [\`client.${op.operationId}()\`](${base}${sdkDir}/client/${resource}.html#${anchor})`;
        op.description = `${sdk}\n\n${extensionTable(op, labels)}\n\n${op.description ?? ""}`;
        op["x-codeSamples"] = codeSamples(spec, path, method, op, labels.samples);
      } else {
        op.description = `${extensionTable(op, labels)}\n\n${op.description ?? ""}`;
      }
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

/** Where the pages live inside the site (and inside docs/public/), and the spec a reader can download. */
export const HTTP_REFERENCE_FILE = "reference/http.html";
export const HTTP_REFERENCE_FILE_RU = "reference/http.ru.html";
export const SPEC_FILE = "reference/openapi.yaml";

/** Redoc's own labels, for the Russian page (Redoc has no translations of its own). */
const REDOC_LABELS_RU: Record<string, string> = {
  "Request samples": "Примеры запросов",
  "Response samples": "Примеры ответов",
  Responses: "Ответы",
  "Request Body schema: application/json": "Схема тела запроса: application/json",
  "Request Body schema:": "Схема тела запроса:",
  "Response Schema: application/json": "Схема ответа: application/json",
  "Response Schema:": "Схема ответа:",
  "path Parameters": "Параметры пути",
  "query Parameters": "Параметры запроса",
  "header Parameters": "Заголовки",
  Authorizations: "Авторизация",
  "Authorizations:": "Авторизация:",
  required: "обязательный",
  Download: "Скачать",
  "Download OpenAPI specification": "Скачать спецификацию OpenAPI",
  "Download OpenAPI specification:": "Скачать спецификацию OpenAPI:",
  Payload: "Тело запроса",
  Copy: "Копировать",
  Copied: "Скопировано",
  "Expand all": "Развернуть всё",
  "Collapse all": "Свернуть всё",
  Search: "Поиск",
  "Response headers": "Заголовки ответа",
  "API docs by Redocly": "Документация: Redocly",
  "Default:": "По умолчанию:",
  "Example:": "Пример:",
  "Enum:": "Допустимые значения:",
  Value: "Значение",
};

const PAGE_WORDS = {
  en: { back: "← Guides and SDK reference", home: "../index.html", title: "HTTP reference" },
  ru: { back: "← Руководства и справочник SDK", home: "../ru/index.html", title: "Справочник HTTP API" },
};

/** Redoc's theme for the site's dark mode (VitePress keeps the reader's choice in localStorage). */
const DARK_THEME = {
  colors: {
    primary: { main: "#a8b1ff" },
    text: { primary: "#dfdfd6", secondary: "#98989f" },
    border: { dark: "#3c3f44", light: "#2e2e32" },
    http: { get: "#6bc46d", post: "#5b9bd5", put: "#d7a24c", delete: "#e06c75", patch: "#c678dd" },
  },
  schema: { nestedBackground: "#202127", typeNameColor: "#98989f", linesColor: "#3c3f44" },
  sidebar: { backgroundColor: "#161618", textColor: "#dfdfd6", activeTextColor: "#a8b1ff" },
  rightPanel: { backgroundColor: "#0f0f11", textColor: "#dfdfd6" },
  typography: { code: { backgroundColor: "#202127", color: "#dfdfd6" }, links: { color: "#a8b1ff" } },
};

export function renderHttpReference(outDir: string, lang: ReferenceLang = "en", base = "/"): { operations: number } {
  const { spec, operationIds } = decorateSpec(readSpec(), lang, base);
  const require = createRequire(import.meta.url);
  const redoc = offline(readFileSync(require.resolve("redoc/bundles/redoc.standalone.js"), "utf8"));
  const info = (spec.info ?? {}) as { title?: string; version?: string };
  const words = PAGE_WORDS[lang];
  const options = {
    showExtensions: false, // the table above already shows them, including the absent ones
    downloadDefinitionUrl: "openapi.yaml",
    downloadFileName: "openapi.yaml",
    expandResponses: "",
    jsonSampleExpandLevel: 2,
    theme: { typography: { fontFamily: "system-ui, sans-serif", headings: { fontFamily: "system-ui, sans-serif" } } },
  };
  const translate =
    lang === "ru"
      ? `
const labels = ${JSON.stringify(REDOC_LABELS_RU)};
function translate(root) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.nodeValue.trim();
    if (labels[text]) node.nodeValue = node.nodeValue.replace(text, labels[text]);
  }
}
new MutationObserver(() => translate(document.getElementById("redoc"))).observe(document.getElementById("redoc"), { childList: true, subtree: true, characterData: false });`
      : "";
  const html = `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${info.title ?? "API"} ${info.version ?? ""} — ${words.title}</title>
<link rel="icon" href="data:,">
<style>
body { margin: 0; }
.back { display: block; padding: 8px 16px; font: 14px system-ui, sans-serif; border-bottom: 1px solid #ddd; }
html.dark body { background: #1b1b1f; color: #dfdfd6; }
html.dark .back { color: #a8b1ff; border-color: #3c3f44; }
</style>
<script>
// The site's theme switch stores "dark", "light" or "auto" here; "auto" follows the system.
const choice = localStorage.getItem("vitepress-theme-appearance") || "auto";
const dark = choice === "dark" || (choice === "auto" && matchMedia("(prefers-color-scheme: dark)").matches);
if (dark) document.documentElement.classList.add("dark");
</script>
</head>
<body>
<a class="back" href="${words.home}">${words.back}</a>
<div id="redoc"></div>
<script>${scriptSafe(redoc)}</script>
<script>${translate}
const options = ${JSON.stringify(options)};
if (document.documentElement.classList.contains("dark")) options.theme = { ...options.theme, ...${JSON.stringify(DARK_THEME)} };
Redoc.init(${scriptSafe(JSON.stringify(spec))}, options, document.getElementById("redoc"));
</script>
</body>
</html>
`;
  const outFile = join(outDir, referenceFile(lang));
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, html);
  copyFileSync(join(repoRoot, "spec/openapi.yaml"), join(outDir, SPEC_FILE));
  return { operations: operationIds.length };
}
