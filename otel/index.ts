// `reseller-api/otel`: OpenTelemetry spans and metrics for the client, and spans for the emulator.
// Needs `@opentelemetry/api` (an optional peer of reseller-api); bring your own SDK and exporters.
export { otelTelemetry, OTEL_TELEMETRY_DEFAULTS } from "./telemetry";
export type { OtelTelemetryOptions } from "./telemetry";
export { emulatorTracer } from "./emulator";
export type {
  EmulatorTracerHook,
  EmulatorTracerOptions,
  EmulatorTracerRequest,
  EmulatorTracerResult,
} from "./emulator";
export { ATTR, HTTP, METRIC, INSTRUMENTATION_NAME } from "./names";
