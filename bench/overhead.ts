/**
 * Overhead of the full client stack (validation, idempotency, language, request id, pacer, attempt
 * loop, classification) vs bare openapi-fetch, both against the same in-process emulator on the real
 * clock. The key's limit is the maximum (C1: 10 000) and the window is scaled to 1 s on both sides,
 * so the pacer's even spacing (≈ 0.1 ms) is shorter than one request and never binds: what is
 * measured is the stack's own cost, pacer bookkeeping included — not the rate policy's waits.
 * Target: ratio ≤ 1.15. Exported function only — no side effects on import (bench/main.ts runs it).
 */
import createClient from "openapi-fetch";
import { createEmulator } from "../emulator/index";
import type { paths } from "../generated/schema";
import { systemClock } from "../runtime/clock";
import { createResellerClient } from "../src/index";
import { printTable } from "./lib/table";
import { writeResult } from "./lib/results";

export interface OverheadResult {
  name: "client-overhead";
  requests: number;
  bareMs: number;
  clientMs: number;
  /** clientMs / bareMs, wall time (target ≤ 1.15). */
  ratio: number;
  bareCpuMs: number;
  clientCpuMs: number;
  /** Same ratio in process CPU time (steadier on a shared machine). */
  cpuRatio: number;
  target: number;
  pass: boolean;
}

const BASE_URL = "http://127.0.0.1/api/reseller/v1";

export async function runOverheadBench(options: { requests?: number; rounds?: number } = {}): Promise<OverheadResult> {
  const requests = options.requests ?? 5000;
  const rounds = options.rounds ?? 3;
  const clock = systemClock;
  const windowMs = 1000;
  const emulator = createEmulator({ clock, windowMs, defaultRateLimit: 10_000, random: Math.random });
  const key = emulator.control.createKey({ environment: "test", rate_limit_per_minute: 10_000 });
  const fetch = emulator.fetch as (input: Request) => Promise<Response>;

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
    pacing: { initialLimit: 10_000, windowMs, maxConcurrency: 4 },
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
  const chunk = 100;
  const measure = async (once: () => Promise<void>, acc: { wall: number; cpu: number }) => {
    const t = performance.now();
    const c = process.cpuUsage();
    for (let i = 0; i < chunk; i++) await once();
    const d = process.cpuUsage(c);
    acc.wall += performance.now() - t;
    acc.cpu += (d.user + d.system) / 1000;
  };
  const warm = { wall: 0, cpu: 0 };
  for (let i = 0; i < 10; i++) {
    await measure(bareOnce, warm); // JIT warm-up for both paths
    await measure(clientOnce, warm);
  }
  const ratios: { bare: { wall: number; cpu: number }; client: { wall: number; cpu: number } }[] = [];
  for (let r = 0; r < rounds; r++) {
    const bareAcc = { wall: 0, cpu: 0 };
    const clientAcc = { wall: 0, cpu: 0 };
    for (let done = 0; done < requests; done += chunk) {
      // Alternate which side goes first so neither always follows a GC of the other's garbage.
      if ((done / chunk) % 2 === 0) {
        await measure(bareOnce, bareAcc);
        await measure(clientOnce, clientAcc);
      } else {
        await measure(clientOnce, clientAcc);
        await measure(bareOnce, bareAcc);
      }
    }
    ratios.push({ bare: bareAcc, client: clientAcc });
  }
  // The median round by wall ratio.
  ratios.sort((x, y) => x.client.wall / x.bare.wall - y.client.wall / y.bare.wall);
  const mid = ratios[Math.floor(ratios.length / 2)];
  const bareMs = mid.bare.wall;
  const clientMs = mid.client.wall;
  const bareCpuMs = mid.bare.cpu;
  const clientCpuMs = mid.client.cpu;
  await emulator.close();
  const ratio = clientMs / bareMs;
  const cpuRatio = clientCpuMs / bareCpuMs;
  return {
    name: "client-overhead",
    requests,
    bareMs,
    clientMs,
    ratio,
    bareCpuMs,
    clientCpuMs,
    cpuRatio,
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
        target: result.target,
        pass: result.pass,
      },
    ],
    { title: "client overhead: full stack vs bare openapi-fetch (GET /context, in-process emulator)" },
  );
  return writeResult("client-overhead", result);
}

const invokedDirectly = /(?:^|[\\/])overhead\.(?:ts|js|mjs)$/.test(process.argv[1] ?? "");
if (invokedDirectly) {
  runOverheadBench()
    .then(async (result) => {
      process.stderr.write(`wrote ${await reportOverheadBench(result)}\n`);
      process.exit(result.pass ? 0 : 1);
    })
    .catch((error: unknown) => {
      process.stderr.write(
        `overhead bench failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`,
      );
      process.exit(1);
    });
}
