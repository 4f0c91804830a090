// Fault injection: each fault matches method + spec path template, fires `times` times with
// `probability` (drawn from options.random), and is applied at the stage its kind describes.
import { operationList } from "../generated/operations";
import { ApiError, envelope, type ApiResult } from "./errors";
import { BASE_PATH, type State } from "./state";
import type { FaultInfo, FaultInput, FaultKind } from "./types";
import { editDistance } from "../runtime/edit-distance";

export const FAULT_KINDS: readonly FaultKind[] = [
  "timeout_before",
  "timeout_after",
  "reset_before",
  "reset_after",
  "error_500_after",
  "error_503_before",
  "proxy_502_html",
  "proxy_429_date",
  "retry_after_zero",
  "rate_limit_no_header",
  "truncated_json",
  "empty_body",
  "stuck_processing",
];

/** Faults that answer before the API sees the request: nothing is counted or committed. */
export const BEFORE_KINDS = new Set<FaultKind>([
  "timeout_before",
  "reset_before",
  "error_503_before",
  "proxy_502_html",
  "proxy_429_date",
]);
/** Faults that let the request commit, then spoil the answer. */
export const AFTER_KINDS = new Set<FaultKind>([
  "timeout_after",
  "reset_after",
  "error_500_after",
  "truncated_json",
  "empty_body",
]);
/** Faults shaped like the limiter's own 429 (no hit, C6). */
export const LIMITER_KINDS = new Set<FaultKind>(["retry_after_zero", "rate_limit_no_header"]);

/** Every method a fault can name for each spec path template (HEAD requests match GET faults). */
const TEMPLATE_METHODS = new Map<string, string[]>();
for (const op of operationList) TEMPLATE_METHODS.set(op.path, [...(TEMPLATE_METHODS.get(op.path) ?? []), op.method]);
const ALL_METHODS = [...new Set(operationList.map((op) => op.method))];

/**
 * The template a mistaken fault path most likely meant: the same path without the base path, a
 * trailing slash or a query; a template whose parameters are spelt differently or filled in with a
 * concrete id ("/domains/{id}/renew", "/domains/5f0c…/renew"); else the nearest by edit distance.
 */
function closestTemplate(path: string, method?: string): string {
  let rest = path.trim().split(/[?#]/)[0];
  if (rest.startsWith(BASE_PATH + "/") || rest === BASE_PATH) rest = rest.slice(BASE_PATH.length);
  rest = "/" + rest.split("/").filter(Boolean).join("/");
  const templates = [...TEMPLATE_METHODS.keys()];
  const actual = rest.split("/").filter(Boolean);
  const shaped = templates
    .map((t) => ({ t, segments: t.split("/").filter(Boolean) }))
    .filter(
      ({ segments }) =>
        segments.length === actual.length &&
        segments.every((s, i) => s === actual[i] || (s.startsWith("{") && !/^[a-z-]+$/.test(actual[i] ?? ""))),
    )
    .sort(
      (a, b) =>
        Number(TEMPLATE_METHODS.get(b.t)!.includes(method ?? "")) -
          Number(TEMPLATE_METHODS.get(a.t)!.includes(method ?? "")) ||
        b.segments.filter((s) => !s.startsWith("{")).length - a.segments.filter((s) => !s.startsWith("{")).length,
    );
  if (shaped.length > 0) return shaped[0].t;
  const shape = (p: string) => p.toLowerCase().replace(/\{[^}]*\}/g, "{}");
  return templates.map((t) => ({ t, d: editDistance(shape(rest), shape(t)) })).sort((a, b) => a.d - b.d)[0].t;
}

/**
 * A fault fires only on a request whose method and spec path template equal its own, so a path that
 * is not a template (or a method the template does not have) would never fire: refuse it, naming
 * the template that was most likely meant.
 */
function checkTarget(method: string, path: string): void {
  if (path !== "*" && !TEMPLATE_METHODS.has(path)) {
    const near = closestTemplate(path, method);
    throw new Error(
      `path ${JSON.stringify(path)} is not a path template of the spec, so the fault would never fire: ` +
        `did you mean ${near}? ` +
        `A fault path is a template relative to ${BASE_PATH}, spelt as in the spec, or "*" for any.`,
    );
  }
  if (method === "*") return;
  const allowed = path === "*" ? ALL_METHODS : TEMPLATE_METHODS.get(path)!;
  if (allowed.includes(method)) return;
  const hint = method === "HEAD" ? " A HEAD request matches a GET fault: use GET." : "";
  throw new Error(
    `method ${method} is not an operation of ${path === "*" ? "any path" : path}, so the fault would never fire: ` +
      `use ${allowed.join(", ")} or "*".${hint}`,
  );
}

export function addFault(state: State, input: FaultInput): FaultInfo {
  if (input === null || typeof input !== "object") throw new Error("A fault needs method, path and kind.");
  if (!FAULT_KINDS.includes(input.kind))
    throw new Error(`Unknown fault kind: ${JSON.stringify(input.kind) ?? "none"}. Kinds: ${FAULT_KINDS.join(", ")}.`);
  if (typeof input.method !== "string" || typeof input.path !== "string")
    throw new Error("A fault needs method and path.");
  const method = input.method.toUpperCase();
  checkTarget(method, input.path);
  const fault: FaultInfo = {
    id: `fault-${++state.faultSeq}`,
    method,
    path: input.path,
    kind: input.kind,
    times: input.times ?? 1,
    probability: input.probability ?? 1,
    retry_after_seconds: input.retry_after_seconds ?? 5,
  };
  if (!(fault.times >= 1) || !(fault.probability >= 0 && fault.probability <= 1)) {
    throw new Error("times must be ≥ 1 and probability within 0..1.");
  }
  state.faults.push(fault);
  return fault;
}

/** Consumes and returns the first fault that matches and wins its draw. */
export function takeFault(state: State, method: string, template: string): FaultInfo | null {
  for (const fault of state.faults) {
    if (fault.method !== "*" && fault.method !== method) continue;
    if (fault.path !== "*" && fault.path !== template) continue;
    if (fault.probability < 1 && state.config.random() >= fault.probability) continue;
    fault.times -= 1;
    if (fault.times <= 0) state.faults = state.faults.filter((f) => f !== fault);
    return fault;
  }
  return null;
}

const html = (title: string) =>
  `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;

/** E5: what a proxy in front of the API sends — HTML, no X-Request-ID, no envelope. */
export function proxyResult(fault: FaultInfo, now: number): ApiResult {
  if (fault.kind === "proxy_429_date") {
    // C12: proxies may send an HTTP-date Retry-After; the API's own limiter never does.
    const at = new Date(now + fault.retry_after_seconds * 1000).toUTCString();
    return {
      status: 429,
      body: html("429 Too Many Requests"),
      headers: { "content-type": "text/html", "retry-after": at },
    };
  }
  return { status: 502, body: html("502 Bad Gateway"), headers: { "content-type": "text/html" } };
}

export function unavailableResult(message: string, requestId: string): ApiResult {
  return {
    status: 503,
    body: envelope(new ApiError(503, "internal_error", message), requestId),
    headers: { "content-type": "application/json", "x-request-id": requestId },
  };
}

/** truncated_json: the body cut in the middle, still labelled application/json. */
export function truncate(result: ApiResult): ApiResult {
  const body = result.body ?? "";
  return {
    ...result,
    body: body.slice(0, Math.max(1, Math.floor(body.length / 2))),
    headers: { ...result.headers, "content-type": "application/json" },
  };
}
