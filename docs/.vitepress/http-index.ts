/**
 * A searchable list of the HTTP operations, one section per operation, in each language. The Redoc
 * page is a standalone document that the site's search cannot index; this page puts every operation
 * (its id, method, path and summary) into the search and links to its place in the reference.
 */
import { operationList } from "../../generated/operations";
import { readSpec, referenceFile, type ReferenceLang } from "./http-reference";

type Json = Record<string, unknown>;

const WORDS = {
  en: {
    title: "HTTP operations",
    intro:
      "Every operation of the Reseller API v1, with its SDK method. The full reference (parameters, schemas, every response and request samples) is the [HTTP reference](REF); the spec itself is [openapi.yaml](SPEC).",
    reference: "In the HTTP reference",
    sdk: "SDK method",
  },
  ru: {
    title: "Операции HTTP API",
    intro:
      "Все операции Reseller API v1 и соответствующие методы SDK. Полное описание (параметры, схемы, все ответы и примеры запросов) — в [справочнике HTTP API](REF); сама спецификация — [openapi.yaml](SPEC).",
    reference: "В справочнике HTTP API",
    sdk: "Метод SDK",
  },
};

const operationAnchor = (operationId: string): string => `op-${operationId.replace(/\./g, "-").toLowerCase()}`;

export function httpIndexPage(lang: ReferenceLang, base = "/"): string {
  const w = WORDS[lang];
  const spec = readSpec() as Json;
  const summaries = new Map<string, Json>();
  for (const item of Object.values((spec.paths ?? {}) as Record<string, Json>))
    for (const op of Object.values(item) as Json[]) if (op?.operationId) summaries.set(op.operationId as string, op);
  const ref = `${base}${referenceFile(lang)}`;
  const sdkDir = lang === "ru" ? "ru/sdk" : "sdk";
  const out = [`# ${w.title}`, "", w.intro.replace("REF", ref).replace("SPEC", `${base}reference/openapi.yaml`), ""];
  for (const meta of operationList) {
    const op = summaries.get(meta.operationId) ?? {};
    const [resource] = meta.operationId.split(".");
    const sdkAnchor = `client-${meta.operationId.replace(/\./g, "-").toLowerCase()}`;
    out.push(`## \`${meta.operationId}\` — ${meta.method} ${meta.path} {#${operationAnchor(meta.operationId)}}`, "");
    out.push(
      `**${typeof op.summary === "string" ? op.summary : ""}.** ${(typeof op.description === "string" ? op.description : "").split(/\n\s*\n/)[0]}`,
      "",
    );
    out.push(
      `- ${w.sdk}: [\`client.${meta.operationId}()\`](${base}${sdkDir}/client/${resource}.html#${sdkAnchor})`,
      `- <a href="${ref}#operation/${encodeURIComponent(meta.operationId)}" target="_self">${w.reference}</a>`,
      "",
    );
  }
  return out.join("\n");
}
