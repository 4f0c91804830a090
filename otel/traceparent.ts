/**
 * W3C Trace Context (`traceparent`, version 00) without a registered global propagator: the client
 * writes it on every attempt and the emulator continues it, so one trace crosses both even when the
 * application never called `propagation.setGlobalPropagator`. A `propagator` option replaces this.
 */
import {
  INVALID_SPANID,
  INVALID_TRACEID,
  ROOT_CONTEXT,
  isSpanContextValid,
  trace,
  type Context,
  type SpanContext,
} from "@opentelemetry/api";

const TRACEPARENT_RE = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** Per attempt on the hot path: the ids come from a tracer, so only the invalid (no-op) context needs a check. */
export function formatTraceparent(sc: SpanContext): string | undefined {
  if (sc.traceId === INVALID_TRACEID || sc.spanId === INVALID_SPANID) return undefined;
  return `00-${sc.traceId}-${sc.spanId}-${sc.traceFlags & 1 ? "01" : "00"}`;
}

/** The remote parent named by `traceparent`, or ROOT_CONTEXT when it is absent or malformed. */
export function contextFromTraceparent(value: string | null): Context {
  const m = value ? TRACEPARENT_RE.exec(value.trim()) : null;
  if (!m) return ROOT_CONTEXT;
  const sc: SpanContext = { traceId: m[1], spanId: m[2], traceFlags: parseInt(m[3], 16) & 1, isRemote: true };
  return isSpanContextValid(sc) ? trace.setSpanContext(ROOT_CONTEXT, sc) : ROOT_CONTEXT;
}
