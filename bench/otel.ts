/**
 * Cost of `telemetry: otelTelemetry(…)`: the same client stack (same emulator, same pacer settings,
 * GET /context) with no telemetry, with the OpenTelemetry API but no SDK (no-op tracer and meter),
 * and with the real SDK — BatchSpanProcessor and a periodic metric reader, both into exporters that
 * drop everything — so what is measured is creating, recording and ending the spans and metrics,
 * not shipping them. A second no-telemetry client gives the A/A noise floor of the method. Sides run
 * interleaved in chunks (rotating which goes first); ratios are medians of per-chunk ratios, as in
 * bench/overhead.ts. Target: SDK ÷ none ≤ 1.10. Exported function only — bench/main.ts runs it.
 */
import { metrics, trace } from "@opentelemetry/api";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from "@opentelemetry/sdk-metrics";
import { createEmulator } from "../emulator/public";
import { otelTelemetry } from "../otel/index";
import { createPacer } from "../src/pacing";
import { systemClock } from "../src/index";
import { createResellerClient, type ClientTelemetry } from "../src/index";
import { runWhenDirect } from "./lib/direct";
import { writeResult } from "./lib/results";
import { printTable } from "./lib/table";

export interface OtelBenchResult {
  name: "otel-overhead";
  requests: number;
  chunk: number;
  chunks: number;
  /** µs per call, whole run. */
  noneUs: number;
  noneAgainUs: number;
  apiOnlyUs: number;
  sdkUs: number;
  /** Median per-chunk ratios against the no-telemetry client. */
  sdkRatio: number;
  apiOnlyRatio: number;
  /** A/A: a second no-telemetry client ÷ the first (the method's noise floor). */
  noiseRatio: number;
  sdkCpuRatio: number;
  spansExported: number;
  target: number;
  pass: boolean;
}

const BASE_URL = "http://127.0.0.1/api/reseller/v1";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Accepts and drops: the SDK does all its work, nothing leaves the process. */
class DropSpans implements SpanExporter {
  count = 0;
  export(spans: unknown[], done: (r: ExportResult) => void): void {
    this.count += spans.length;
    done({ code: ExportResultCode.SUCCESS });
  }
  shutdown(): Promise<void> {
    return Promise.resolve(); // the no-op exporter holds nothing
  }
}
const dropMetrics: PushMetricExporter = {
  export: (_m, done) => done({ code: ExportResultCode.SUCCESS }),
  forceFlush: async () => undefined,
  shutdown: async () => undefined,
};

export async function runOtelBench(options: { requests?: number; chunk?: number } = {}): Promise<OtelBenchResult> {
  const requests = options.requests ?? 6000;
  const chunk = options.chunk ?? 20;
  const clock = systemClock;
  const windowMs = 1000;
  const emulator = createEmulator({ clock, windowMs, defaultRateLimit: 10_000, random: Math.random });
  const key = emulator.control.createKey({ environment: "test", rate_limit_per_minute: 10_000 });
  const fetch = emulator.fetch as (input: Request) => Promise<Response>;
  const spans = new DropSpans();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(spans)] });
  const meterProvider = new MeterProvider({
    readers: [new PeriodicExportingMetricReader({ exporter: dropMetrics, exportIntervalMillis: 1000 })],
  });
  const make = (telemetry?: ClientTelemetry) =>
    createResellerClient({
      baseUrl: BASE_URL,
      token: key.token,
      fetch,
      clock,
      telemetry,
      pacer: createPacer({ clock, windowMs, initialLimit: 10_000, maxConcurrency: 4, guardMs: 1 }),
    });
  const sides = [
    { name: "none", client: make() },
    { name: "none-again", client: make() },
    // No SDK registered: the API's global providers are no-ops.
    {
      name: "api-only",
      client: make(
        otelTelemetry({ tracerProvider: trace.getTracerProvider(), meterProvider: metrics.getMeterProvider() }),
      ),
    },
    { name: "sdk", client: make(otelTelemetry({ tracerProvider, meterProvider })) },
  ];
  const run = async (client: (typeof sides)[number]["client"]) => {
    const t = performance.now();
    const c = process.cpuUsage();
    for (let i = 0; i < chunk; i++) {
      const out = await client.context.get();
      if (out.kind !== "succeeded") throw new Error(`GET /context: ${out.kind}`);
    }
    const d = process.cpuUsage(c);
    return { wall: performance.now() - t, cpu: (d.user + d.system) / 1000 };
  };
  for (let i = 0; i < 10; i++) for (const s of sides) await run(s.client); // JIT warm-up
  const wall: Record<string, number[]> = {};
  const cpu: Record<string, number[]> = {};
  const totals: Record<string, number> = {};
  for (const s of sides) {
    wall[s.name] = [];
    cpu[s.name] = [];
    totals[s.name] = 0;
  }
  let n = 0;
  for (let done = 0; done < requests; done += chunk, n++) {
    // Rotate the order so no side always runs right after another's garbage.
    for (let k = 0; k < sides.length; k++) {
      const s = sides[(n + k) % sides.length];
      const r = await run(s.client);
      wall[s.name].push(r.wall);
      cpu[s.name].push(r.cpu);
      totals[s.name] += r.wall;
    }
  }
  await tracerProvider.forceFlush();
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
  await emulator.close();
  const ratio = (a: string, b: string, m = wall) => median(m[a].map((v, i) => v / m[b][i]).filter(Number.isFinite));
  const us = (name: string) => (totals[name] / requests) * 1000;
  const sdkRatio = ratio("sdk", "none");
  return {
    name: "otel-overhead",
    requests,
    chunk,
    chunks: n,
    noneUs: us("none"),
    noneAgainUs: us("none-again"),
    apiOnlyUs: us("api-only"),
    sdkUs: us("sdk"),
    sdkRatio,
    apiOnlyRatio: ratio("api-only", "none"),
    noiseRatio: ratio("none-again", "none"),
    sdkCpuRatio: ratio("sdk", "none", cpu),
    spansExported: spans.count,
    target: 1.1,
    pass: sdkRatio <= 1.1,
  };
}

export async function reportOtelBench(r: OtelBenchResult): Promise<string> {
  printTable(
    [
      { side: "no telemetry", us_per_call: r.noneUs.toFixed(1), ratio: "1.000", target: "" },
      {
        side: "no telemetry, 2nd client (A/A)",
        us_per_call: r.noneAgainUs.toFixed(1),
        ratio: r.noiseRatio.toFixed(3),
        target: "noise",
      },
      {
        side: "otel API, no SDK (no-op)",
        us_per_call: r.apiOnlyUs.toFixed(1),
        ratio: r.apiOnlyRatio.toFixed(3),
        target: "",
      },
      {
        side: "otel SDK, drop exporters",
        us_per_call: r.sdkUs.toFixed(1),
        ratio: r.sdkRatio.toFixed(3),
        target: `≤ ${r.target}`,
      },
    ],
    {
      title: `otel overhead: GET /context ×${
        r.requests
      } per side, in-process emulator; median of per-chunk ratios (cpu ${r.sdkCpuRatio.toFixed(3)})`,
    },
  );
  return writeResult("otel-overhead", r);
}

runWhenDirect("otel", async () => {
  const result = await runOtelBench();
  process.stderr.write(`wrote ${await reportOtelBench(result)}\n`);
  return result.pass;
});
