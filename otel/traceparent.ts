/**
 * W3C Trace Context (`traceparent`, version 00) without a registered global propagator: the client
 * writes it on every attempt and the emulator continues it, so one trace crosses both even when the
 * application never called `propagation.setGlobalPropagator`. A `propagator` option replaces this.
 */
import { ROOT_CONTEXT, isSpanContextValid, trace, type Context, type SpanContext } from "@opentelemetry/api";

const TRACEPARENT_RE = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export function formatTraceparent(sc: SpanContext): string | undefined {
  if (!isSpanContextValid(sc)) return undefined;
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, "0")}`;
}

/** The remote parent named by `traceparent`, or ROOT_CONTEXT when it is absent or malformed. */
export function contextFromTraceparent(value: string | null): Context {
  const m = value ? TRACEPARENT_RE.exec(value.trim()) : null;
  if (!m) return ROOT_CONTEXT;
  const sc: SpanContext = { traceId: m[1], spanId: m[2], traceFlags: parseInt(m[3], 16) & 1, isRemote: true };
  return isSpanContextValid(sc) ? trace.setSpanContext(ROOT_CONTEXT, sc) : ROOT_CONTEXT;
}
