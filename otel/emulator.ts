/**
 * emulatorTracer(): the emulator's `tracer` hook as OpenTelemetry SERVER spans, continuing the
 * caller's W3C `traceparent`, so a test (or a local run) sees one trace across the client and the
 * emulator. The emulator itself knows nothing of OpenTelemetry: it only calls this hook. The shapes
 * below are the emulator's EmulatorTracer, restated so this entry depends on nothing but the API.
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type TextMapPropagator,
  type TracerProvider,
} from "@opentelemetry/api";
import { screenOtelOptions } from "./options";
import { ATTR, HTTP, INSTRUMENTATION_NAME } from "./names";
import { contextFromTraceparent } from "./traceparent";

/** What `createEmulator({ tracer })` passes when a request arrives. */
export interface EmulatorTracerRequest {
  method: string;
  url: string;
  headers: Headers;
  route: string | null;
  operationId: string | null;
}

/** …and when its answer is decided. */
export interface EmulatorTracerResult {
  status?: number;
  socketFault?: "hang" | "reset";
  requestId: string | null;
  fault: string | null;
  counted: boolean;
  replayed: boolean;
}

export interface EmulatorTracerHook {
  startRequest(request: EmulatorTracerRequest): { end(result: EmulatorTracerResult): void };
}

export interface EmulatorTracerOptions {
  /** @default the global tracer provider */
  tracerProvider?: TracerProvider | undefined;
  /** Reads the caller's context from the request headers. @default W3C `traceparent`, parsed directly */
  propagator?: TextMapPropagator | undefined;
}

const headerGetter = {
  get: (carrier: Headers, key: string) => carrier.get(key) ?? undefined,
  keys: (carrier: Headers) => [...carrier.keys()],
};

/** A tracer hook for `createEmulator({ tracer: emulatorTracer({ tracerProvider }) })`. */
export function emulatorTracer(options: EmulatorTracerOptions = {}): EmulatorTracerHook {
  screenOtelOptions("emulatorTracer", options as Record<string, unknown>);
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(`${INSTRUMENTATION_NAME}/emulator`);
  const propagator = options.propagator;
  return {
    startRequest(req) {
      const url = new URL(req.url);
      const parent = propagator
        ? propagator.extract(ROOT_CONTEXT, req.headers, headerGetter)
        : contextFromTraceparent(req.headers.get("traceparent"));
      const attributes: Attributes = {
        [HTTP.method]: req.method,
        [HTTP.urlPath]: url.pathname,
        [HTTP.serverAddress]: url.hostname,
      };
      if (url.port) attributes[HTTP.serverPort] = Number(url.port);
      if (req.route) attributes[HTTP.route] = req.route;
      if (req.operationId) attributes[ATTR.operationId] = req.operationId;
      const span = tracer.startSpan(
        req.route ? `${req.method} ${req.route}` : req.method,
        { kind: SpanKind.SERVER, attributes },
        parent,
      );
      return {
        end(r) {
          if (r.status !== undefined) span.setAttribute(HTTP.statusCode, r.status);
          if (r.requestId) span.setAttribute(ATTR.requestId, r.requestId);
          if (r.fault) span.setAttribute(ATTR.fault, r.fault);
          span.setAttribute(ATTR.counted, r.counted);
          if (r.replayed) span.setAttribute(ATTR.replayed, true);
          // Server spans: only 5xx and dropped connections are the server's errors (4xx are the caller's).
          const errorType = r.socketFault ?? (r.status !== undefined && r.status >= 500 ? String(r.status) : undefined);
          if (errorType) {
            span.setAttribute(HTTP.errorType, errorType);
            span.setStatus({ code: SpanStatusCode.ERROR });
          }
          span.end();
        },
      };
    },
  };
}
