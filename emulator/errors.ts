// E1/E2: the API's own error envelope, and the internal response shape the pipeline passes around.

import type { ApiErrorCode } from "../generated/errors";

/** The codes come from the spec (generated/errors.ts), never a copy of them. */
export type ErrorCode = ApiErrorCode;

export type FieldErrors = Record<string, string[]>;

/** Thrown by checks and handlers; the pipeline turns it into an envelope with the request id. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** E2: [] when empty, a field map for validation, {retry_after} for 429 — never null. */
    readonly details: FieldErrors | Record<string, number> | [] = [],
  ) {
    super(message);
  }
}

/** Laravel-style summary: the first field message, plus "(and N more errors)". */
export function validationError(fields: FieldErrors): ApiError {
  const messages = Object.values(fields).flat();
  const extra = messages.length - 1;
  const message = extra > 0 ? `${messages[0]} (and ${extra} more error${extra > 1 ? "s" : ""})` : messages[0];
  return new ApiError(422, "validation_failed", message, fields);
}

/** A response before it becomes a Fetch Response; stored as-is for replays (D5). */
export interface ApiResult {
  status: number;
  /** Exact body text; null = no body (204). */
  body: string | null;
  headers: Record<string, string>;
}

export function envelope(error: ApiError, requestId: string | null): string {
  return JSON.stringify({
    error: { code: error.code, message: error.message, details: error.details, request_id: requestId },
  });
}

export function errorResult(error: ApiError, requestId: string | null): ApiResult {
  return { status: error.status, body: envelope(error, requestId), headers: { "content-type": "application/json" } };
}

export function jsonResult(status: number, value: unknown): ApiResult {
  if (status === 204) return { status, body: null, headers: {} };
  return { status, body: JSON.stringify(value), headers: { "content-type": "application/json" } };
}

export function toResponse(result: ApiResult): Response {
  const headers = new Headers(result.headers);
  if (result.status === 204) headers.delete("content-type");
  return new Response(result.body, { status: result.status, headers });
}
