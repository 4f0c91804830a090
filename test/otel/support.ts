// OpenTelemetry SDK wiring for the otel tests: the SDK's in-memory span and metric exporters, so a
// test reads exactly what a real exporter would have sent; and a real pino logger writing into memory.
import { Writable } from "node:stream";
import pino from "pino";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type DataPoint,
  type MetricData,
} from "@opentelemetry/sdk-metrics";

export interface OtelKit {
  tracerProvider: BasicTracerProvider;
  meterProvider: MeterProvider;
  spans(): ReadableSpan[];
  /** Collects now and returns the latest export of every metric. */
  metrics(): Promise<MetricData[]>;
  shutdown(): Promise<void>;
}

export function otelKit(): OtelKit {
  const spanExporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spanExporter)] });
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  // The interval never fires during a test: forceFlush() collects and exports on demand.
  const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    spans: () => spanExporter.getFinishedSpans(),
    async metrics() {
      metricExporter.reset();
      await reader.forceFlush();
      const exported = metricExporter.getMetrics();
      return exported.flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics));
    },
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

export function metric(all: MetricData[], name: string): MetricData {
  const m = all.find((x) => x.descriptor.name === name);
  if (!m) throw new Error(`metric ${name} was not exported; got ${all.map((x) => x.descriptor.name).join(", ")}`);
  return m;
}

/** Sum of the data points whose attributes include `where` (counter values or histogram counts). */
export function total(m: MetricData, where: Record<string, unknown> = {}): number {
  let sum = 0;
  for (const p of m.dataPoints as DataPoint<unknown>[]) {
    if (!Object.entries(where).every(([k, v]) => p.attributes[k] === v)) continue;
    const v = p.value as number | { count: number };
    sum += typeof v === "number" ? v : v.count;
  }
  return sum;
}

export const attr = (span: ReadableSpan, name: string) => span.attributes[name];
export const parentId = (span: ReadableSpan) => span.parentSpanContext?.spanId;

export interface PinoLine {
  level: number;
  msg: string;
  event: string;
  [k: string]: unknown;
}

/** A real pino logger at debug level writing JSON lines into memory. */
export function pinoCapture(): { logger: pino.Logger; lines: PinoLine[] } {
  const lines: PinoLine[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split("\n")) if (l.trim()) lines.push(JSON.parse(l));
      done();
    },
  });
  return { logger: pino({ level: "debug" }, stream), lines };
}
