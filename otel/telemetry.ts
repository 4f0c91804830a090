/**
 * otelTelemetry(): the client's telemetry hooks as OpenTelemetry spans and metrics. One INTERNAL span
 * per command (operation id, Idempotency-Key, command id, outcome kind) with one CLIENT child span
 * per HTTP attempt under the stable HTTP client conventions; pacing, Retry-After and backoff waits
 * are span events with their reason; every attempt carries the attempt span's W3C `traceparent`.
 * Nothing here sees a body or the token, so no span or metric can hold a secret (A4, H2).
 */
import {
  context,
  createNoopMeter,
  metrics as metricsApi,
  INVALID_SPAN_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type MeterProvider,
  type Span,
  type Tracer,
  type TextMapPropagator,
  type TracerProvider,
} from "@opentelemetry/api";
import type {
  ClientEvent,
  AttemptEndInfo,
  AttemptStartInfo,
  AttemptTelemetry,
  ClientTelemetry,
  CommandEndInfo,
  CommandStartInfo,
  CommandTelemetry,
  TelemetrySource,
  WaitKind,
} from "../src/index";
import { instrumentsFor, type Instruments } from "./instruments";
import { screenOtelOptions } from "./options";
import { ATTR, HTTP, INSTRUMENTATION_NAME, SPAN_EVENT } from "./names";
import { formatTraceparent } from "./traceparent";

export interface OtelTelemetryOptions {
  /** Where spans go. @default the global tracer provider (`trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider | undefined;
  /** Where metrics go. @default the global meter provider (`metrics.getMeterProvider()`). */
  meterProvider?: MeterProvider | undefined;
  /**
   * Writes the trace context into each attempt's headers.
   * @default W3C `traceparent` written directly, whatever global propagator is (or is not) set
   */
  propagator?: TextMapPropagator | undefined;
  /**
   * `reseller.client.name` on the observable metrics (window, budget, journal), to tell apart
   * clients of different keys that share one meter provider. Keep it low-cardinality.
   * @default "default"
   */
  clientName?: string | undefined;
  /**
   * `false`: no spans and no `traceparent` header — metrics only, without the SDK's per-span cost.
   * @default true
   */
  traces?: boolean | undefined;
  /**
   * `false`: no instruments — spans only, without the SDK's per-record cost.
   * @default true
   */
  metrics?: boolean | undefined;
}

export const OTEL_TELEMETRY_DEFAULTS = { clientName: "default", traces: true, metrics: true } as const;

/** What `traces: false` / `metrics: false` use: the API's own no-op implementations. */
const NOOP_SPAN = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
const NOOP_TRACER_PROVIDER: TracerProvider = {
  // Only startSpan is ever called here; the span is the API's non-recording one.
  getTracer: () => ({ startSpan: () => NOOP_SPAN }) as unknown as Tracer,
};
const noopMeterProvider = (): MeterProvider => {
  const meter = createNoopMeter();
  return { getMeter: () => meter };
};

const STATUS_CLASS = ["1xx", "1xx", "2xx", "3xx", "4xx", "5xx"];
const statusClass = (status: number | undefined): string =>
  status === undefined ? "none" : (STATUS_CLASS[Math.floor(status / 100)] ?? "other");

const headerSetter = {
  set(carrier: (name: string, value: string) => void, key: string, value: string) {
    carrier(key, value);
  },
};

/** Telemetry for `createResellerClient({ telemetry })`. One instance may serve several clients. */
export function otelTelemetry(options: OtelTelemetryOptions = {}): ClientTelemetry {
  screenOtelOptions("otelTelemetry", options as Record<string, unknown>);
  const traces = options.traces ?? OTEL_TELEMETRY_DEFAULTS.traces;
  const tracerProvider = traces ? (options.tracerProvider ?? trace.getTracerProvider()) : NOOP_TRACER_PROVIDER;
  const tracer = tracerProvider.getTracer(INSTRUMENTATION_NAME);
  const meterProvider =
    (options.metrics ?? OTEL_TELEMETRY_DEFAULTS.metrics)
      ? (options.meterProvider ?? metricsApi.getMeterProvider())
      : noopMeterProvider();
  const clientName = options.clientName ?? OTEL_TELEMETRY_DEFAULTS.clientName;
  const instruments = instrumentsFor(meterProvider, () => meterProvider.getMeter(INSTRUMENTATION_NAME));
  const spans: SpanIndex = { byRequestId: new Map(), deadlines: new Map() };
  // The client hands events to the telemetry it was given (before bind), so one handler serves all views.
  const onEvent = (event: ClientEvent): void => {
    instruments.onEvent(event);
    if (event.type === "proxy-anomaly" && event.requestId !== undefined) {
      spans.byRequestId.get(event.requestId)?.proxyAnomaly(event.retryAfterMs, event.windowMs);
    } else if (event.type === "deadline") {
      const key = event.commandId ?? event.idempotencyKey;
      if (key !== undefined) spans.deadlines.set(key, event.waitingFor);
    }
  };
  const forClient = (source?: TelemetrySource): ClientTelemetry => {
    // Without a source (a ClientTelemetry used before bind), attempt spans have no server address.
    const shared: Shared = {
      tracer,
      instruments,
      propagator: options.propagator,
      traces,
      source,
      spans,
      durationAttrs: new Map(),
    };
    return {
      onEvent,
      startCommand(info) {
        const parent = context.active();
        return new CommandSpan(
          shared,
          info,
          tracer.startSpan(info.operationId, commandAttributes(info), parent),
          parent,
        );
      },
    };
  };
  return {
    ...forClient(),
    // Each client gets its own view (its server address and base path); instruments are shared.
    bind(source) {
      instruments.observe(source, clientName);
      return forClient(source);
    },
  };
}

interface Shared {
  tracer: Tracer;
  instruments: Instruments;
  propagator?: TextMapPropagator;
  readonly source?: TelemetrySource;
  spans: SpanIndex;
  /** false: spans are the API's no-ops and no trace header is sent. */
  traces: boolean;
  /** durationAttrs()' cache, per client view (the server address and port are the view's). */
  durationAttrs: Map<string, Attributes>;
}

/**
 * Ties the rare events to their command span: the command spans that got a 429, by X-Request-ID (a
 * proxy anomaly names the 429's request id), and what deadline-stopped writes were waiting for, by
 * command id or Idempotency-Key. Entries live only until their command ends; other commands never touch it.
 */
interface SpanIndex {
  byRequestId: Map<string, CommandSpan>;
  deadlines: Map<string, string>;
}

function commandAttributes(info: CommandStartInfo) {
  const attributes: Attributes = { [ATTR.operationId]: info.operationId };
  if (info.idempotencyKey !== undefined) attributes[ATTR.idempotencyKey] = info.idempotencyKey;
  if (info.commandId !== undefined) attributes[ATTR.commandId] = info.commandId;
  return { kind: SpanKind.INTERNAL, attributes };
}

/** A class, not closures: one object per command on the hot path. */
class CommandSpan implements CommandTelemetry {
  private readonly ctx: Context;
  private rateLimitedIds?: string[];
  /** The last attempt got a 429: the next one to start is a retry after its pause (I7: counted only if it starts). */
  private pausedBy429 = false;

  constructor(
    private readonly shared: Shared,
    private readonly info: CommandStartInfo,
    private readonly span: Span,
    parent: Context,
  ) {
    this.ctx = trace.setSpan(parent, span);
  }

  slot(ms: number, reason?: Exclude<WaitKind, "backoff">): void {
    // Only real waits are recorded: a free slot costs nothing here (the request count is in the duration histogram).
    if (ms <= 0) return;
    this.shared.instruments.pacerWait.record(ms / 1000, waitAttrs(reason ?? "spacing"));
    this.span.addEvent(SPAN_EVENT.wait, {
      [ATTR.waitKind]: reason === "retry_after" ? "retry_after" : "pacing",
      [ATTR.waitReason]: reason,
      [ATTR.waitMs]: ms,
    });
  }

  backoff(ms: number, reason: string): void {
    this.span.addEvent(SPAN_EVENT.wait, { [ATTR.waitKind]: "backoff", [ATTR.waitReason]: reason, [ATTR.waitMs]: ms });
  }

  /** One of this command's attempts got a 429 with this X-Request-ID: a proxy anomaly may name it next. */
  rateLimited(requestId: string): void {
    (this.rateLimitedIds ??= []).push(requestId);
    this.pausedBy429 = true;
    this.shared.spans.byRequestId.set(requestId, this);
  }

  /** C11: the 429's Retry-After was longer than one window, so a proxy or a WAF answered, not the API. */
  proxyAnomaly(retryAfterMs: number, windowMs: number): void {
    this.span.addEvent(SPAN_EVENT.proxyAnomaly, { [ATTR.retryAfterMs]: retryAfterMs, [ATTR.windowMs]: windowMs });
  }

  startAttempt(a: AttemptStartInfo, setHeader: (name: string, value: string) => void): AttemptTelemetry {
    const template = (this.shared.source?.basePath ?? "") + (a.pathTemplate ?? this.info.pathTemplate);
    const attributes: Attributes = {
      [HTTP.method]: a.method,
      [HTTP.urlTemplate]: template,
      [HTTP.urlFull]: a.url,
      [ATTR.requestId]: a.requestId,
    };
    const source = this.shared.source;
    if (source) {
      attributes[HTTP.serverAddress] = source.serverAddress;
      attributes[HTTP.serverPort] = source.serverPort;
    }
    if (a.attempt > 1) attributes[HTTP.resendCount] = a.attempt - 1;
    if (this.pausedBy429) {
      this.pausedBy429 = false;
      this.shared.instruments.rateLimitedRetry(this.info.operationId);
    }
    const span = this.shared.tracer.startSpan(
      `${a.method} ${template}`,
      { kind: SpanKind.CLIENT, attributes },
      this.ctx,
    );
    const propagator = this.shared.propagator;
    if (!this.shared.traces) {
      // traces: false — nothing to continue, so no header (not even an active parent's).
    } else if (propagator) propagator.inject(trace.setSpan(this.ctx, span), setHeader, headerSetter);
    else {
      const tp = formatTraceparent(span.spanContext());
      if (tp) setHeader("traceparent", tp);
    }
    return new AttemptSpan(this.shared, this, span, a.method, template, a.requestId);
  }

  end(e: CommandEndInfo): void {
    const span = this.span;
    if (e.kind !== undefined) span.setAttribute(ATTR.outcomeKind, e.kind);
    if (e.reason !== undefined) span.setAttribute(ATTR.outcomeReason, e.reason);
    if (e.status !== undefined) span.setAttribute(HTTP.statusCode, e.status);
    if (e.errorCode !== undefined) span.setAttribute(ATTR.errorCode, e.errorCode);
    if (e.reconciled) span.setAttribute(ATTR.reconciled, true);
    if (e.replayed) span.setAttribute(ATTR.replayed, true);
    if (e.localReplay) span.setAttribute(ATTR.localReplay, e.localReplay);
    if (e.reason === "deadline") this.deadline(e);
    if (this.rateLimitedIds) for (const id of this.rateLimitedIds) this.shared.spans.byRequestId.delete(id);
    if (e.thrown) {
      span.recordException({ name: e.thrown.name, message: e.thrown.message });
      span.setStatus({ code: SpanStatusCode.ERROR, message: e.thrown.message });
    } else if (e.kind === "unknown" || e.kind === "rejected" || e.kind === "conflict") {
      span.setStatus({ code: SpanStatusCode.ERROR, message: e.reason ?? e.errorCode ?? e.kind });
    }
    span.end();
    this.shared.instruments.outcome(this.info.operationId, e.kind ?? "thrown", e.reason);
  }

  /** The call stopped at its deadlineMs: whether it sent anything, when to call again, what it waited for. */
  private deadline(e: CommandEndInfo): void {
    const attributes: Attributes = { [ATTR.deadlineSent]: e.sent === true };
    if (typeof e.retryAt === "number") attributes[ATTR.deadlineRetryAt] = e.retryAt;
    const key = this.info.commandId ?? this.info.idempotencyKey;
    const waitingFor = key === undefined ? undefined : this.shared.spans.deadlines.get(key);
    if (key !== undefined && waitingFor !== undefined) {
      attributes[ATTR.deadlineWaitingFor] = waitingFor;
      this.shared.spans.deadlines.delete(key);
    }
    this.span.setAttribute(ATTR.deadlineSent, e.sent === true);
    this.span.addEvent(SPAN_EVENT.deadline, attributes);
  }
}

class AttemptSpan implements AttemptTelemetry {
  private readonly started = performance.now();

  constructor(
    private readonly shared: Shared,
    private readonly command: CommandSpan,
    private readonly span: Span,
    private readonly method: string,
    private readonly template: string,
    private readonly requestId: string,
  ) {}

  end(e: AttemptEndInfo): void {
    const span = this.span;
    const seconds = (performance.now() - this.started) / 1000;
    let errorType: string | undefined;
    if (e.status !== undefined) {
      span.setAttribute(HTTP.statusCode, e.status);
      if (e.status >= 400) errorType = String(e.status);
    } else errorType = e.transportError ?? "network";
    if (e.requestId !== this.requestId) span.setAttribute(ATTR.requestId, e.requestId);
    if (e.status === 429) {
      this.command.rateLimited(this.requestId);
      if (e.requestId !== this.requestId) this.command.rateLimited(e.requestId);
    }
    if (e.rateLimitRemaining != null) span.setAttribute(ATTR.rateLimitRemaining, e.rateLimitRemaining);
    if (errorType !== undefined) {
      span.setAttribute(HTTP.errorType, errorType);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
    // One histogram for duration AND request counts: its count by status class is "requests by status class".
    this.shared.instruments.requestDuration.record(
      seconds,
      durationAttrs(this.shared, this.method, this.template, e.status, errorType),
    );
  }
}

/**
 * The duration histogram's attributes, built once per (method, template, status or error) of a client
 * and reused: the set is bounded (operations × statuses), and nothing per request is in it.
 */
function durationAttrs(
  shared: Shared,
  method: string,
  template: string,
  status: number | undefined,
  errorType: string | undefined,
): Attributes {
  const key = `${method} ${template} ${status ?? errorType}`;
  let attrs = shared.durationAttrs.get(key);
  if (attrs) return attrs;
  const a: Attributes = {
    [HTTP.method]: method,
    [HTTP.urlTemplate]: template,
    [ATTR.statusClass]: statusClass(status),
  };
  const source = shared.source;
  if (source) {
    a[HTTP.serverAddress] = source.serverAddress;
    a[HTTP.serverPort] = source.serverPort; // Required by the stable HTTP client metric conventions
  }
  if (status !== undefined) a[HTTP.statusCode] = status;
  if (errorType !== undefined) a[HTTP.errorType] = errorType;
  shared.durationAttrs.set(key, (attrs = Object.freeze(a)));
  return attrs;
}

const WAIT_ATTRS = new Map<string, Attributes>();
function waitAttrs(reason: string): Attributes {
  let a = WAIT_ATTRS.get(reason);
  if (!a) WAIT_ATTRS.set(reason, (a = Object.freeze({ [ATTR.waitReason]: reason })));
  return a;
}
