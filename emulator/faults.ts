// Fault injection: each fault matches method + spec path template, fires `times` times with
// `probability` (drawn from options.random), and is applied at the stage its kind describes.
import { ApiError, envelope, type ApiResult } from "./errors";
import type { State } from "./state";
import type { FaultInfo, FaultInput, FaultKind } from "./types";

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

export function addFault(state: State, input: FaultInput): FaultInfo {
  if (!FAULT_KINDS.includes(input.kind)) throw new Error(`Unknown fault kind: ${input.kind}`);
  if (typeof input.method !== "string" || typeof input.path !== "string")
    throw new Error("A fault needs method and path.");
  const fault: FaultInfo = {
    id: `fault-${++state.faultSeq}`,
    method: input.method.toUpperCase(),
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
