/**
 * The call's deadline (`deadlineMs`) and the proxy-anomaly check on a 429 — small pure helpers of the
 * attempt loop (command-runner.ts). A deadline bounds the WHOLE call: the pacer's waits, a 429's
 * pause, backoff and every attempt's timeout.
 */
import type { OperationId } from "../generated/operations";
import type { ClientEvent } from "../core";
import { parseRetryAfter } from "../pacing";
import type { Clock } from "../runtime/clock";

/** Absolute deadline on `clock` for a call that starts now; +Infinity when `deadlineMs` is. */
export function deadlineAtOf(deadlineMs: number, clock: Clock): number {
  return deadlineMs === Number.POSITIVE_INFINITY ? deadlineMs : clock.now() + deadlineMs;
}

/**
 * The API's own limiter never asks for more than one window (C3, C11: `Retry-After` ≤ 60 s), so a
 * longer Retry-After on a 429 is a proxy's or a WAF's. The event carries the raw header and what it
 * was read as (clamped to the 1 h maximum the pacer honours); null when the 429 looks like the API's.
 */
export function proxyAnomalyEvent(
  operationId: OperationId,
  headers: Headers,
  now: number,
  windowMs: number,
  sentRequestId: string,
): Extract<ClientEvent, { type: "proxy-anomaly" }> | null {
  const retryAfter = headers.get("retry-after");
  const parsed = parseRetryAfter(retryAfter, now);
  if (retryAfter === null || parsed === null || parsed.ms <= windowMs) return null;
  return {
    type: "proxy-anomaly",
    operationId,
    status: 429,
    retryAfter,
    retryAfterMs: parsed.ms,
    windowMs,
    requestId: headers.get("x-request-id") ?? sentRequestId,
  };
}
