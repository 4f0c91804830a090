/**
 * E4: which error codes each HTTP status may carry, read from the responses themselves — every 4xx/5xx
 * JSON body is a per-status envelope whose `error` names its member(s) (spec/redocly.yaml's
 * reseller/error-status-codes keeps it so). emit-errors turns the result into `ApiErrorByStatus`.
 */
import { isObject, type Json, type Spec } from "./spec";

const METHODS = ["get", "head", "put", "post", "delete", "patch"];

function pointerSegment(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Codes an `error` schema allows (a member pinning `code`, or a oneOf/anyOf of them). */
function codesOfError(spec: Spec, node: unknown, pointer: string): string[] {
  const s = spec.deref(node, pointer);
  const list = s.oneOf ?? s.anyOf;
  if (Array.isArray(list)) return list.flatMap((m, i) => codesOfError(spec, m, `${pointer}/oneOf/${i}`));
  const code = isObject(s.properties) ? spec.deref(s.properties.code, `${pointer}/properties/code`).const : undefined;
  return typeof code === "string" ? [code] : [];
}

/** Codes a body allows: null = unconstrained (the whole union), [] = not an envelope. */
function codesOfBody(spec: Spec, node: unknown, pointer: string, inAllOf: boolean): string[] | null {
  const s: Json = spec.deref(node, pointer);
  if (Array.isArray(s.allOf)) {
    let result: string[] | null = null;
    s.allOf.forEach((part, i) => {
      const codes = codesOfBody(spec, part, `${pointer}/allOf/${i}`, true);
      if (codes !== null) result = result === null ? codes : result.filter((c) => codes.includes(c));
    });
    return result;
  }
  const list = s.oneOf ?? s.anyOf;
  if (Array.isArray(list)) {
    const parts = list.map((m, i) => codesOfBody(spec, m, `${pointer}/oneOf/${i}`, false));
    return parts.includes(null) ? null : parts.flatMap((p) => p ?? []);
  }
  const error = isObject(s.properties) ? s.properties.error : undefined;
  if (error === undefined) return inAllOf ? null : [];
  const resolved = spec.deref(error, `${pointer}/properties/error`);
  if (Array.isArray(resolved.oneOf ?? resolved.anyOf)) return null;
  return codesOfError(spec, error, `${pointer}/properties/error`);
}

/** status → codes (in `order`), over every operation's 4xx/5xx JSON responses, ascending by status. */
export function readErrorStatuses(spec: Spec, order: readonly string[]): [number, string[]][] {
  const byStatus = new Map<number, Set<string>>();
  const paths = isObject(spec.doc.paths) ? spec.doc.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const itemPointer = `#/paths/${pointerSegment(path)}`;
    const item = spec.deref(rawItem, itemPointer);
    for (const method of METHODS) {
      if (!isObject(item[method])) continue;
      const responses = isObject(item[method].responses) ? item[method].responses : {};
      for (const [status, raw] of Object.entries(responses)) {
        if (!/^[45]\d\d$/.test(status)) continue;
        const at = `${itemPointer}/${method}/responses/${status}`;
        const response = spec.deref(raw, at);
        const content = isObject(response.content) ? response.content : {};
        const json = isObject(content["application/json"]) ? content["application/json"] : undefined;
        if (json?.schema === undefined) continue;
        // A body that names no codes (the whole union) may carry any of them: lint forbids that in
        // our spec (reseller/error-status-codes), but the generator stays usable on any spec.
        const codes = codesOfBody(spec, json.schema, `${at}/content/application~1json/schema`, false) ?? order;
        const set = byStatus.get(Number(status)) ?? new Set<string>();
        codes.forEach((c) => set.add(c));
        byStatus.set(Number(status), set);
      }
    }
  }
  return [...byStatus].sort(([a], [b]) => a - b).map(([status, codes]) => [status, order.filter((c) => codes.has(c))]);
}
