/**
 * Cost of `telemetry: otelTelemetry(…)`, in one run, four verdicts (I7):
 *
 * (a) over a LOOPBACK socket to an emulator in another process (the way a user runs it): telemetry
 *     on ÷ off, CPU of this process — target ≤ 1.05;
 * (b) our per-call telemetry cost (on − off, same loopback client) ÷ what
 *     `@opentelemetry/instrumentation-undici` costs on a bare openapi-fetch GET /context over the same
 *     socket (instrumented − bare) — what a user would install instead; target ≤ 1.0;
 * (c) the in-process ratio (in-process emulator, a call is only CPU), for the record;
 * (d) A/A: a second telemetry-off client ÷ the first, the method's noise floor (≤ 1.05 or the run says nothing).
 * Beside (a), for information: the SDK's own floor — a telemetry-off call wrapped by hand in what
 * the telemetry must emit at the least (an INTERNAL span, a CLIENT child span, one histogram record),
 * ÷ off: the part of (a) that no code of ours can remove while it emits real spans.
 *
 * Both sides use the real SDK (BatchSpanProcessor, a periodic metric reader) into exporters that drop
 * everything, so the cost is creating, recording and ending spans and metrics, not shipping them.
 * Sides run interleaved in chunks, in a new random order each round; per-call CPU is the median over chunks.
 * Exported functions only — bench/main.ts runs them (`npm run bench -- otel`).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { context, metrics, SpanKind, trace, type Attributes } from "@opentelemetry/api";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from "@opentelemetry/sdk-metrics";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";
import createClient from "openapi-fetch";
import type { paths } from "../src/index";
import { createEmulator } from "../emulator/public";
import { otelTelemetry } from "../otel/index";
import { createPacer } from "../src/pacing";
import { systemClock } from "../src/index";
import { createResellerClient, type ClientTelemetry } from "../src/index";
import { controlClient } from "./lib/emulator-control";
import { runWhenDirect } from "./lib/direct";
import { median } from "./lib/stats";
import { writeResult } from "./lib/results";
import { printTable } from "./lib/table";

export interface OtelVerdict {
  row: "a" | "b" | "c" | "d";
  measure: string;
  value: number;
  target: number;
  pass: boolean;
}

export interface OtelBenchResult {
  name: "otel-overhead";
  requests: number;
  chunk: number;
  /** Median CPU µs per call of each side. */
  cpuUs: Record<string, number>;
  /** Our telemetry's CPU µs per call over loopback, and instrumentation-undici's on a bare call. */
  oursUs: number;
  undiciUs: number;
  /** The SDK's floor by hand (two spans, one histogram record) around a telemetry-off call: µs and ÷ off. */
  sdkFloorUs: number;
  sdkFloorRatio: number;
  /** The in-process sides' no-op-API ratio, for the record. */
  apiOnlyRatio: number;
  spansExported: number;
  verdicts: OtelVerdict[];
  pass: boolean;
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

/** The emulator over a loopback port, in a child process, so its CPU is not this process's. */
async function emulatorProcess(): Promise<{ child: ChildProcess; baseUrl: string; controlUrl: string }> {
  const server = fileURLToPath(new URL("../emulator/server.ts", import.meta.url));
  const code = `const { startEmulatorServer } = await import(${JSON.stringify(server)});
const s = await startEmulatorServer({ defaultRateLimit: 10_000, windowMs: 1000 });
process.stdout.write(JSON.stringify({ baseUrl: s.baseUrl, controlUrl: s.controlUrl }) + "\\n");`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString("utf8");
      if (out.includes("\n")) resolve(out.split("\n")[0]);
    });
    child.once("exit", (code) => reject(new Error(`the emulator process exited (${code}) before it listened`)));
  });
  return { child, ...(JSON.parse(line) as { baseUrl: string; controlUrl: string }) };
}

interface Side {
  name: string;
  call: () => Promise<void>;
  /** Around each chunk (instrumentation-undici is process-wide: it is on only for its own side). */
  before?: () => void;
  after?: () => void;
}

export async function runOtelBench(options: { requests?: number; chunk?: number } = {}): Promise<OtelBenchResult> {
  const requests = options.requests ?? 2000;
  const chunk = options.chunk ?? 10;
  const clock = systemClock;
  const spans = new DropSpans();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(spans)] });
  const meterProvider = new MeterProvider({
    readers: [new PeriodicExportingMetricReader({ exporter: dropMetrics, exportIntervalMillis: 1000 })],
  });
  const sdk = () => otelTelemetry({ tracerProvider, meterProvider });
  const pacer = () => createPacer({ clock, windowMs: 1000, initialLimit: 10_000, maxConcurrency: 4, guardMs: 1 });

  // In process: the emulator's fetch handler, no socket.
  const inproc = createEmulator({ clock, windowMs: 1000, defaultRateLimit: 10_000, random: Math.random });
  const inKey = inproc.control.createKey({ environment: "test", rate_limit_per_minute: 10_000 });
  const inClient = (telemetry?: ClientTelemetry) =>
    createResellerClient({
      baseUrl: "http://127.0.0.1/api/reseller/v1",
      token: inKey.token,
      fetch: inproc.fetch,
      clock,
      telemetry,
      pacer: pacer(),
    });

  // Over loopback: the global fetch (undici) to the emulator process.
  const emu = await emulatorProcess();
  const undici = new UndiciInstrumentation();
  undici.setTracerProvider(tracerProvider);
  undici.setMeterProvider(meterProvider);
  undici.disable();
  try {
    const key = await controlClient(emu.controlUrl).createKey({ environment: "test", rate_limit_per_minute: 10_000 });
    const loopClient = (telemetry?: ClientTelemetry) =>
      createResellerClient({ baseUrl: emu.baseUrl, token: key.token, clock, telemetry, pacer: pacer() });
    const bare = createClient<paths>({ baseUrl: emu.baseUrl, headers: { authorization: `Bearer ${key.token}` } });
    const viaClient = (client: ReturnType<typeof loopClient>) => async () => {
      const out = await client.context.get();
      if (out.kind !== "succeeded") throw new Error(`GET /context: ${out.kind}`);
    };
    const viaBare = async () => {
      const { response } = await bare.GET("/context");
      if (response.status !== 200) throw new Error(`GET /context: ${response.status}`);
    };
    const floorTracer = tracerProvider.getTracer("bench-floor");
    const floorHistogram = meterProvider.getMeter("bench-floor").createHistogram("bench.floor.duration", { unit: "s" });
    const floorAttrs: Attributes = Object.freeze({
      "http.request.method": "GET",
      "url.template": "/api/reseller/v1/context",
      "reseller.status_class": "2xx",
      "server.address": "127.0.0.1",
      "server.port": 1,
      "http.response.status_code": 200,
    });
    const offForFloor = viaClient(loopClient());
    const FLOOR = "loopback off + SDK floor by hand";
    /** The least the telemetry must emit per call, by hand, around a telemetry-off call. */
    const sdkFloor = async () => {
      const parent = context.active();
      const command = floorTracer.startSpan(
        "context.get",
        { kind: SpanKind.INTERNAL, attributes: { "reseller.operation_id": "context.get" } },
        parent,
      );
      const attempt = floorTracer.startSpan(
        "GET /api/reseller/v1/context",
        {
          kind: SpanKind.CLIENT,
          attributes: {
            "http.request.method": "GET",
            "url.template": "/api/reseller/v1/context",
            "url.full": emu.baseUrl + "/context",
            "server.address": "127.0.0.1",
            "server.port": 1,
          },
        },
        trace.setSpan(parent, command),
      );
      const started = performance.now();
      await offForFloor();
      attempt.setAttribute("http.response.status_code", 200);
      attempt.end();
      floorHistogram.record((performance.now() - started) / 1000, floorAttrs);
      command.setAttribute("reseller.outcome.kind", "succeeded");
      command.end();
    };
    const sides: Side[] = [
      { name: "loopback off", call: viaClient(loopClient()) },
      { name: FLOOR, call: sdkFloor },
      { name: "loopback off (A/A)", call: viaClient(loopClient()) },
      { name: "loopback on", call: viaClient(loopClient(sdk())) },
      { name: "bare openapi-fetch", call: viaBare },
      {
        name: "bare + instrumentation-undici",
        call: viaBare,
        before: () => undici.enable(),
        after: () => undici.disable(),
      },
      { name: "in-process off", call: viaClient(inClient()) },
      {
        name: "in-process API only",
        call: viaClient(
          inClient(
            otelTelemetry({ tracerProvider: trace.getTracerProvider(), meterProvider: metrics.getMeterProvider() }),
          ),
        ),
      },
      { name: "in-process on", call: viaClient(inClient(sdk())) },
    ];
    const run = async (s: Side, n: number) => {
      s.before?.();
      const c = process.cpuUsage();
      for (let i = 0; i < n; i++) await s.call();
      const d = process.cpuUsage(c);
      s.after?.();
      return (d.user + d.system) / n; // µs per call
    };
    for (let i = 0; i < 5; i++) for (const s of sides) await run(s, chunk); // JIT and sockets warm
    const cpu: Record<string, number[]> = Object.fromEntries(sides.map((s) => [s.name, []]));
    // A fresh random order every round: a fixed rotation would always put the same side right after
    // the SDK side, to pay for its garbage (that alone made an A/A pair read 0.76).
    let seed = 0x2545f491;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (let done = 0; done < requests; done += chunk) {
      const order = [...sides];
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [order[i], order[j]] = [order[j], order[i]];
      }
      for (const s of order) cpu[s.name].push(await run(s, chunk));
    }
    await tracerProvider.forceFlush();
    const cpuUs = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, median(v)]));
    /** Median of per-chunk ratios: each chunk of `a` against the same round's chunk of `b`. */
    const ratio = (a: string, b: string) => median(cpu[a].map((v, i) => v / cpu[b][i]).filter(Number.isFinite));
    const oursUs = median(cpu["loopback on"].map((v, i) => v - cpu["loopback off"][i]));
    const sdkFloorUs = median(cpu[FLOOR].map((v, i) => v - cpu["loopback off"][i]));
    const sdkFloorRatio = ratio(FLOOR, "loopback off");
    const undiciUs = median(cpu["bare + instrumentation-undici"].map((v, i) => v - cpu["bare openapi-fetch"][i]));
    const verdicts: OtelVerdict[] = [
      {
        row: "a",
        measure: `telemetry on ÷ off, loopback to an emulator process (CPU of this process; the SDK's floor, two spans and one histogram record by hand: ${sdkFloorRatio.toFixed(3)})`,
        value: ratio("loopback on", "loopback off"),
        target: 1.05,
        pass: false,
      },
      {
        row: "b",
        measure: `our telemetry per call (${oursUs.toFixed(1)} µs CPU) ÷ instrumentation-undici on a bare openapi-fetch call (${undiciUs.toFixed(1)} µs)`,
        value: undiciUs > 0 ? oursUs / undiciUs : Number.POSITIVE_INFINITY,
        target: 1.0,
        pass: false,
      },
      {
        row: "c",
        measure: "telemetry on ÷ off, in-process emulator (a call is CPU only; for the record)",
        value: ratio("in-process on", "in-process off"),
        target: Number.POSITIVE_INFINITY,
        pass: true,
      },
      {
        row: "d",
        measure: "A/A: a second telemetry-off client ÷ the first, loopback (noise floor)",
        value: ratio("loopback off (A/A)", "loopback off"),
        target: 1.05,
        pass: false,
      },
    ];
    for (const v of verdicts) if (v.row !== "c") v.pass = v.value <= v.target && (v.row !== "d" || v.value >= 1 / 1.05);
    return {
      name: "otel-overhead",
      requests,
      chunk,
      cpuUs,
      oursUs,
      undiciUs,
      sdkFloorUs,
      sdkFloorRatio,
      apiOnlyRatio: ratio("in-process API only", "in-process off"),
      spansExported: spans.count,
      verdicts,
      pass: verdicts.every((v) => v.pass),
    };
  } finally {
    undici.disable();
    await tracerProvider.shutdown();
    await meterProvider.shutdown();
    await inproc.close();
    emu.child.kill("SIGTERM");
  }
}

export async function reportOtelBench(r: OtelBenchResult): Promise<string> {
  printTable(
    Object.entries(r.cpuUs).map(([side, us]) => ({ side, cpu_us_per_call: us.toFixed(1) })),
    { title: `otel: GET /context ×${r.requests} per side, chunks of ${r.chunk}, median CPU per call` },
  );
  printTable(
    r.verdicts.map((v) => ({
      row: v.row,
      measure: v.measure,
      value: v.value.toFixed(3),
      target: Number.isFinite(v.target) ? `≤ ${v.target}` : "record",
      pass: v.pass ? "yes" : "NO",
    })),
    {
      title: `otel verdicts (no-op API in process: ${r.apiOnlyRatio.toFixed(3)}; ${r.spansExported} spans exported; SDK floor beside (a): two spans and one histogram record by hand, ${r.sdkFloorUs.toFixed(1)} µs, ÷ off ${r.sdkFloorRatio.toFixed(3)})`,
    },
  );
  return writeResult("otel-overhead", r);
}

runWhenDirect("otel", async () => {
  const result = await runOtelBench();
  process.stderr.write(`wrote ${await reportOtelBench(result)}\n`);
  return result.pass;
});
