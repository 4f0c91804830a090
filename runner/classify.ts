/**
 * Response classification (E1–E5, D9, G3): status and Content-Type are checked FIRST, a 204 is
 * never decoded, a JSON decode error or a 2xx body without the success envelope is an unknown
 * outcome — never a business failure, never a TypeError later — and any body that is not the API's
 * envelope is kept only as a ≤ 2 KiB redacted snippet. Total: it never throws. Pure.
 */
import type { OperationMeta } from "../generated/operations";
import { parseApiError, type ApiError } from "../generated/errors";
import { snippetOf, type Redactor } from "../core";
import type { RateLimitSnapshot } from "../core";
import { utf8Text } from "../runtime/text";

type ApiErrorLike = ApiError;

export interface RawResponse {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  /** The body was longer than `maxResponseBytes`: `bytes` holds only its head (for the snippet). */
  truncated?: boolean;
}

export type Classified =
  | { kind: "success"; status: number; data: unknown; replayed: boolean }
  | { kind: "rejected"; status: number; error?: ApiErrorLike; snippet?: string }
  | { kind: "conflict"; status: 409; error?: ApiErrorLike; snippet?: string }
  | { kind: "rate_limited"; status: 429; retryAfter: string | null; error?: ApiErrorLike; snippet?: string }
  | {
      kind: "unknown";
      reason: "server_error" | "malformed_response" | "unexpected_status" | "response_too_large";
      status: number;
      error?: ApiErrorLike;
      snippet?: string;
    };

/** E4: statuses after which the server definitely did nothing and a resend would not help. */
const AMBIGUOUS_4XX = new Set([408, 499]);

export function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  if (value === "application/json") return true; // the API's own, by far the most common
  const mime = value.split(";")[0].trim().toLowerCase();
  return mime === "application/json" || (mime.startsWith("application/") && mime.endsWith("+json"));
}

function decodeJson(bytes: Uint8Array): { ok: true; value: unknown } | { ok: false } {
  if (bytes.byteLength === 0) return { ok: false };
  try {
    // Invalid sequences become U+FFFD, never a throw (runtime/text.ts: Buffer's fast path where there is one).
    return { ok: true, value: JSON.parse(utf8Text(bytes)) };
  } catch {
    return { ok: false };
  }
}

/** The API's envelope, when the body is one (E1); otherwise a redacted snippet (E5). */
function errorParts(raw: RawResponse, redactor: Redactor): { error?: ApiErrorLike; snippet?: string } {
  if (!raw.truncated && isJsonContentType(raw.headers.get("content-type"))) {
    const json = decodeJson(raw.bytes);
    const error = json.ok ? parseApiError(json.value) : undefined;
    if (error) return { error: redactor.value(error) };
  }
  return raw.bytes.byteLength > 0 ? { snippet: snippetOf(raw.bytes, redactor) } : {};
}

/**
 * The success envelope every documented 2xx body has: an object whose `data` is an object or array —
 * an array for list operations — and, for a 202 of an async operation, an Operation with a uuid
 * (F1). Anything else (null, a number, a string, a bare array, no `data`) is not a result we can use.
 */
function isSuccessEnvelope(op: OperationMeta, status: number, value: unknown): boolean {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const data = (value as { data?: unknown }).data;
  if (data === null || typeof data !== "object") return false;
  if (op.pagination !== null) return Array.isArray(data);
  if (op.asyncOperation && status === 202) return typeof (data as { uuid?: unknown }).uuid === "string";
  return true;
}

export function classify(op: OperationMeta, raw: RawResponse, redactor: Redactor): Classified {
  const { status, headers, bytes } = raw;
  if (status >= 200 && status < 300) {
    const replayed = headers.get("idempotency-replayed")?.trim().toLowerCase() === "true";
    // An operation documented as 204 has no result to read: any 2xx is its success, body ignored.
    // G3: a 204 is never decoded as JSON.
    if (op.successStatuses.length === 1 && op.successStatuses[0] === 204) {
      return { kind: "success", status, data: undefined, replayed };
    }
    if (raw.truncated) {
      return { kind: "unknown", reason: "response_too_large", status, snippet: snippetOf(bytes, redactor) };
    }
    if (status === 204 || status === 205 || bytes.byteLength === 0) {
      // E5: no body where the operation returns one — the side effect may have happened.
      return { kind: "unknown", reason: "malformed_response", status };
    }
    if (!isJsonContentType(headers.get("content-type"))) {
      return { kind: "unknown", reason: "malformed_response", status, ...errorParts(raw, redactor) };
    }
    const json = decodeJson(bytes);
    if (!json.ok || !isSuccessEnvelope(op, status, json.value)) {
      // E5: truncated, empty or wrongly shaped JSON on a success: the side effect may have happened.
      return { kind: "unknown", reason: "malformed_response", status, snippet: snippetOf(bytes, redactor) };
    }
    return { kind: "success", status, data: json.value, replayed };
  }
  const parts = errorParts(raw, redactor);
  if (status === 429) return { kind: "rate_limited", status, retryAfter: headers.get("retry-after"), ...parts };
  if (status === 409) return { kind: "conflict", status, ...parts };
  if (status >= 500) return { kind: "unknown", reason: "server_error", status, ...parts };
  if (status >= 400 && !AMBIGUOUS_4XX.has(status)) return { kind: "rejected", status, ...parts };
  return { kind: "unknown", reason: "unexpected_status", status, ...parts };
}

const DIGITS_RE = /^\s*\d+\s*$/;

function headerNumber(headers: Headers, name: string): number | null {
  const v = headers.get(name);
  return v === null || !DIGITS_RE.test(v) ? null : Number(v);
}

/** C10: X-RateLimit-Limit/-Remaining when present; never required (C11). */
export function readRateLimit(headers: Headers): RateLimitSnapshot {
  return {
    limit: headerNumber(headers, "x-ratelimit-limit"),
    remaining: headerNumber(headers, "x-ratelimit-remaining"),
  };
}
