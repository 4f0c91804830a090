// The options of otelTelemetry() and emulatorTracer(), checked once: a provider without the method
// the SDK would call is an InvalidOptionsError naming the fix (one error family), not a TypeError
// thrown from inside the first span.
import { InvalidOptionsError } from "../src/index";

const has = (v: unknown, method: string) =>
  typeof v === "object" && v !== null && typeof (v as Record<string, unknown>)[method] === "function";

function refuse(entry: string, option: string, fix: string): never {
  throw new InvalidOptionsError(`${entry}: ${option} ${fix}.`, option);
}

export function screenOtelOptions(entry: string, o: Record<string, unknown>): void {
  if (o === null || typeof o !== "object") refuse(entry, "options", "must be an object");
  if (o.tracerProvider !== undefined && !has(o.tracerProvider, "getTracer"))
    refuse(entry, "tracerProvider", "must be an OpenTelemetry TracerProvider (with getTracer()), e.g. the SDK's");
  if (o.meterProvider !== undefined && !has(o.meterProvider, "getMeter"))
    refuse(entry, "meterProvider", "must be an OpenTelemetry MeterProvider (with getMeter()), e.g. the SDK's");
  if (o.propagator !== undefined && !(has(o.propagator, "inject") && has(o.propagator, "extract")))
    refuse(entry, "propagator", "must be a TextMapPropagator (inject() and extract()), e.g. W3CTraceContextPropagator");
  if (o.clientName !== undefined && (typeof o.clientName !== "string" || o.clientName === ""))
    refuse(entry, "clientName", "must be a non-empty string (low cardinality: one per client)");
  for (const k of ["traces", "metrics"])
    if (o[k] !== undefined && typeof o[k] !== "boolean") refuse(entry, k, "must be true or false");
}
