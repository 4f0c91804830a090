/**
 * Overhead of the full client stack (validation, idempotency, language, request id, pacer, attempt
 * loop, classification) vs bare openapi-fetch, both against the same in-process emulator on the real
 * clock. The key's limit is the maximum (C1: 10 000) and the window is scaled to 1 s on both sides,
 * so the pacer's even spacing (≈ 0.1 ms) is shorter than one request and never binds: what is
 * measured is the stack's own cost, pacer bookkeeping included — not the rate policy's waits. For the
 * same reason the pacer's latency guard is set to the in-process round trip (1 ms; it still rises to
 * the slowest recent round trip by itself): the default 25 ms guard of a 1 s window is a network
 * margin, and with it the fixed-window fit idles ≈ 50 ms at every window edge (a rate-policy wait).
 * The two sides run interleaved in chunks of 100 requests (alternating which goes first), and the
 * ratios reported are the MEDIAN of the per-chunk ratios — robust to GC pauses and to load from other
 * processes on a shared machine, which would otherwise land on whichever side happened to be running.
 * Target: ratio ≤ 1.15. Exported function only — no side effects on import (bench/main.ts runs it).
 */
import createClient from "openapi-fetch";
import { createEmulator } from "../emulator/index";
import type { paths } from "../generated/schema";
import { createPacer } from "../pacing";
import { systemClock } from "../runtime/clock";
import { createResellerClient } from "../src/index";
import { printTable } from "./lib/table";
import { writeResult } from "./lib/results";
import { runWhenDirect } from "./lib/direct";

export interface OverheadResult {
  name: "client-overhead";
  /** Requests measured per side and round. */
  requests: number;
  rounds: number;
  /** Chunks of `chunk` requests per side, over all rounds (each gives one ratio). */
  chunks: number;
  chunk: number;
  /** Wall time per side for `requests` requests (all rounds summed, divided by rounds). */
  bareMs: number;
  clientMs: number;
  /** Median of the per-chunk wall-time ratios client ÷ bare (target ≤ 1.15). */
  ratio: number;
  bareCpuMs: number;
  clientCpuMs: number;
  /** Median of the per-chunk process-CPU ratios (process.cpuUsage; steadier on a shared machine). */
  cpuRatio: number;
  /** clientMs / bareMs and clientCpuMs / bareCpuMs over everything (GC and load included). */
  totalRatio: number;
  totalCpuRatio: number;
  /** The pacer's latency guard used (ms). */
  guardMs: number;
  target: number;
  pass: boolean;
}

const BASE_URL = "http://127.0.0.1/api/reseller/v1";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export async function runOverheadBench(
  options: { requests?: number; rounds?: number; chunk?: number; guardMs?: number } = {},
): Promise<OverheadResult> {
  const requests = options.requests ?? 5000;
  const rounds = options.rounds ?? 3;
  const chunk = options.chunk ?? 100;
  const guardMs = options.guardMs ?? 1;
  const clock = systemClock;
  const windowMs = 1000;
  const emulator = createEmulator({ clock, windowMs, defaultRateLimit: 10_000, random: Math.random });
  const key = emulator.control.createKey({ environment: "test", rate_limit_per_minute: 10_000 });
  const fetch = emulator.fetch;

  const bare = createClient<paths>({
    baseUrl: BASE_URL,
    fetch,
    headers: { Authorization: `Bearer ${key.token}`, Accept: "application/json" },
  });
  const client = createResellerClient({
    baseUrl: BASE_URL,
    token: key.token,
    fetch,
    clock,
    pacer: createPacer({ clock, windowMs, initialLimit: 10_000, maxConcurrency: 4, guardMs }),
  });

  const bareOnce = async () => {
    const { data } = await bare.GET("/context");
    if (!data) throw new Error("bare GET /context failed");
  };
  const clientOnce = async () => {
    const out = await client.context.get();
    if (out.kind !== "succeeded") throw new Error(`client GET /context: ${out.kind}`);
  };
  // Interleaved in small chunks: the emulator's state grows and the machine's load drifts during a
  // run; alternating 100 + 100 spreads both evenly over the two sides instead of favouring one.
  const measure = async (once: () => Promise<void>): Promise<{ wall: number; cpu: number }> => {
    const t = performance.now();
    const c = process.cpuUsage();
    for (let i = 0; i < chunk; i++) await once();
    const d = process.cpuUsage(c);
    return { wall: performance.now() - t, cpu: (d.user + d.system) / 1000 };
  };
  for (let i = 0; i < 10; i++) {
    await measure(bareOnce); // JIT warm-up for both paths
    await measure(clientOnce);
  }
  const wallRatios: number[] = [];
  const cpuRatios: number[] = [];
  const total = { bareWall: 0, bareCpu: 0, clientWall: 0, clientCpu: 0 };
  let n = 0;
  for (let r = 0; r < rounds; r++) {
    for (let done = 0; done < requests; done += chunk, n++) {
      // Alternate which side goes first so neither always follows a GC of the other's garbage.
      let b: { wall: number; cpu: number };
      let c: { wall: number; cpu: number };
      if (n % 2 === 0) {
        b = await measure(bareOnce);
        c = await measure(clientOnce);
      } else {
        c = await measure(clientOnce);
        b = await measure(bareOnce);
      }
      wallRatios.push(c.wall / b.wall);
      if (b.cpu > 0) cpuRatios.push(c.cpu / b.cpu);
      total.bareWall += b.wall;
      total.bareCpu += b.cpu;
      total.clientWall += c.wall;
      total.clientCpu += c.cpu;
    }
  }
  await emulator.close();
  const ratio = median(wallRatios);
  return {
    name: "client-overhead",
    requests,
    rounds,
    chunks: wallRatios.length,
    chunk,
    bareMs: total.bareWall / rounds,
    clientMs: total.clientWall / rounds,
    ratio,
    bareCpuMs: total.bareCpu / rounds,
    clientCpuMs: total.clientCpu / rounds,
    cpuRatio: median(cpuRatios),
    totalRatio: total.clientWall / total.bareWall,
    totalCpuRatio: total.clientCpu / total.bareCpu,
    guardMs,
    target: 1.15,
    pass: ratio <= 1.15,
  };
}

/** Prints the result and writes bench/results/client-overhead.json. */
export async function reportOverheadBench(result: OverheadResult): Promise<string> {
  printTable(
    [
      {
        requests: result.requests,
        bare_us: Number(((result.bareMs / result.requests) * 1000).toFixed(1)),
        client_us: Number(((result.clientMs / result.requests) * 1000).toFixed(1)),
        ratio: Number(result.ratio.toFixed(3)),
        cpu_ratio: Number(result.cpuRatio.toFixed(3)),
        total_ratio: Number(result.totalRatio.toFixed(3)),
        total_cpu_ratio: Number(result.totalCpuRatio.toFixed(3)),
        target: result.target,
        pass: result.pass,
      },
    ],
    { title: "client overhead: full stack vs bare openapi-fetch (GET /context, in-process emulator; median of per-chunk ratios)" },
  );
  return writeResult("client-overhead", result);
}

runWhenDirect("overhead", async () => {
  const result = await runOverheadBench();
  process.stderr.write(`wrote ${await reportOverheadBench(result)}\n`);
  return result.pass;
});
