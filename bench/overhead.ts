/**
 * Overhead of the full client stack (validation, idempotency, language, request id, pacer, attempt
 * loop, classification) vs bare openapi-fetch, both against the same in-process emulator on the real
 * clock. Each side has its OWN key (C2: the server keeps one counter per key): on one shared key the
 * bare side's sends, which the client's pacer never sees, ate the client's window, and on a fast
 * machine the two sides together passed the key's limit and the bare side got a 429 — the "bare GET
 * /context failed" of a full `npm run bench`. Each key has the maximum limit (C1: 10 000) and the
 * window is scaled to 1 s on both sides; the client runs one chunk in five (the variants below), so
 * it sends ≤ ~2 000/s and the limit never binds. The pacer's latency guard is the in-process round
 * trip (1 ms; it still rises to the slowest recent round trip by itself), and at each window edge the
 * fixed-window fit idles for about two guards — a rate-policy wait, not the stack's cost: the time
 * the client's calls waited for the pacer (each attempt's `delayMs`) is left out of its wall time.
 * The two sides run interleaved in chunks of 100 requests (alternating which goes first), and the
 * ratios reported are the MEDIAN of the per-chunk ratios — robust to GC pauses and to load from other
 * processes on a shared machine, which would otherwise land on whichever side happened to be running.
 * Three more bare variants run in the same interleaving and show what the stack's cost is made of
 * (`parts`): bare + a per-request abort signal given to fetch as the client gives it, bare + one
 * no-op middleware (openapi-fetch's own cost of hosting the client's chain, which it registers as one)
 * and bare reading the body as the client does (stream → bytes → JSON).
 * No target here (reported beside the real-socket row of overhead-socket.ts, which has the targets):
 * in-process, the emulator's work counts on both sides and a trick that only pays off without a
 * socket would look like a gain. Exported function only — no side effects on import (bench/main.ts runs it).
 */
import createClient, { type Middleware } from "openapi-fetch";
import { createEmulator } from "../emulator/public";
import type { paths } from "../src/index";
import { createPacer } from "../src/pacing";
import { systemClock } from "../src/index";
import { createResellerClient } from "../src/index";
import { printTable } from "./lib/table";
import { writeResult } from "./lib/results";
import { runWhenDirect } from "./lib/direct";
import { median } from "./lib/stats";
import { reportSocketOverheadBench, runSocketOverheadBench } from "./overhead-socket";

export { reportSocketOverheadBench, runSocketOverheadBench } from "./overhead-socket";
export type { SocketOverheadResult } from "./overhead-socket";

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
  /** Median of the per-chunk wall-time ratios client ÷ bare (reported, no target). */
  ratio: number;
  bareCpuMs: number;
  clientCpuMs: number;
  /** Median of the per-chunk process-CPU ratios (process.cpuUsage; steadier on a shared machine). */
  cpuRatio: number;
  /** clientMs / bareMs and clientCpuMs / bareCpuMs over everything (GC and load included). */
  totalRatio: number;
  totalCpuRatio: number;
  /** Median per-request CPU µs of each variant (bare, the three parts, client), same interleaving. */
  parts: Record<VariantName, number>;
  /** The client pacer's window waits (at window edges: the rate policy, not the stack's cost). */
  pacerWaits: number;
  /** Time the client's calls waited for the pacer (Outcome attempts' delayMs), left out of its wall time. */
  pacerWaitedMs: number;
  /** The pacer's latency guard used (ms). */
  guardMs: number;
  /** The scaled server window of both keys (ms). */
  windowMs: number;
}

type VariantName = "bare" | "bareSignal" | "bareMiddleware" | "bareBytes" | "client";

const BASE_URL = "http://127.0.0.1/api/reseller/v1";
const MAX_LIMIT = 10_000; // C1

/** A bare call that did not answer 200 stops the bench with the status and the API's error code. */
function expectOk(side: string, result: { response: Response; error?: unknown }): void {
  if (result.response.ok) return;
  const code = (result.error as { error?: { code?: unknown } } | undefined)?.error?.code;
  throw new Error(`${side} GET /context → ${result.response.status} ${typeof code === "string" ? code : ""}`.trimEnd());
}

export async function runOverheadBench(
  options: { requests?: number; rounds?: number; chunk?: number; guardMs?: number; windowMs?: number } = {},
): Promise<OverheadResult> {
  const requests = options.requests ?? 5000;
  const rounds = options.rounds ?? 3;
  const chunk = options.chunk ?? 100;
  const guardMs = options.guardMs ?? 1;
  const windowMs = options.windowMs ?? 1000;
  const clock = systemClock;
  const emulator = createEmulator({ clock, windowMs, defaultRateLimit: MAX_LIMIT, random: Math.random });
  const fetch = emulator.fetch;
  // C2: one key per side (and per bare variant), so no side spends another's window.
  const bareClient = (through: (input: Request) => Promise<Response> = fetch) => {
    const { token } = emulator.control.createKey({ environment: "test", rate_limit_per_minute: MAX_LIMIT });
    return createClient<paths>({
      baseUrl: BASE_URL,
      fetch: through,
      headers: { Authorization: `Bearer ${token}`, Accept: "application/json" },
    });
  };
  const bare = bareClient();
  // What the client does with the first attempt's signal: a plain AbortController's, given to
  // openapi-fetch as the `signal` init, so its Request carries it.
  const withSignal = bareClient();
  const withMiddleware = bareClient();
  const noop: Middleware = { onRequest: () => undefined };
  withMiddleware.use({ ...noop }); // the client registers its chain as one middleware (middleware/chain.ts)
  const asBytes = bareClient();
  const clientKey = emulator.control.createKey({ environment: "test", rate_limit_per_minute: MAX_LIMIT });
  let pacerWaits = 0;
  let clientWaitedMs = 0;
  const client = createResellerClient({
    baseUrl: BASE_URL,
    token: clientKey.token,
    fetch,
    clock,
    pacer: createPacer({
      clock,
      windowMs,
      initialLimit: MAX_LIMIT,
      maxConcurrency: 4,
      guardMs,
      onEvent: (e) => void (e.type === "window-wait" && (pacerWaits += 1)),
    }),
  });

  const variants: Record<VariantName, () => Promise<void>> = {
    bare: async () => expectOk("bare", await bare.GET("/context")),
    bareSignal: async () =>
      expectOk("bare+signal", await withSignal.GET("/context", { signal: new AbortController().signal })),
    bareMiddleware: async () => expectOk("bare+middleware", await withMiddleware.GET("/context")),
    bareBytes: async () => {
      const result = await asBytes.GET("/context", { parseAs: "stream" });
      expectOk("bare+bytes", result);
      const bytes = new Uint8Array(await result.response.arrayBuffer());
      JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"));
    },
    client: async () => {
      const out = await client.context.get();
      if (out.kind !== "succeeded") throw new Error(`client GET /context: ${out.kind} ${out.status ?? ""}`.trimEnd());
      for (const attempt of out.attempts) clientWaitedMs += attempt.delayMs;
    },
  };
  const names = Object.keys(variants) as VariantName[];
  // Interleaved in small chunks: the emulator's state grows and the machine's load drifts during a
  // run; alternating 100 + 100 spreads both evenly over the two sides instead of favouring one.
  const measure = async (once: () => Promise<void>): Promise<{ wall: number; cpu: number }> => {
    const t = performance.now();
    const c = process.cpuUsage();
    for (let i = 0; i < chunk; i++) await once();
    const d = process.cpuUsage(c);
    return { wall: performance.now() - t, cpu: (d.user + d.system) / 1000 };
  };
  try {
    for (let i = 0; i < 10; i++) for (const name of names) await measure(variants[name]); // JIT warm-up
    pacerWaits = 0;
    clientWaitedMs = 0;
    const wallRatios: number[] = [];
    const cpuRatios: number[] = [];
    const perRequest = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<VariantName, number[]>;
    const total = { bareWall: 0, bareCpu: 0, clientWall: 0, clientCpu: 0 };
    const sets = rounds * Math.ceil(requests / chunk);
    for (let n = 0; n < sets; n++) {
      // Alternate the order so no side always follows a GC of another's garbage.
      const order = n % 2 === 0 ? names : [...names].reverse();
      const got = {} as Record<VariantName, { wall: number; cpu: number }>;
      for (const name of order) {
        const waitedBefore = clientWaitedMs;
        got[name] = await measure(variants[name]);
        // A window-edge wait is the rate policy, not the stack's cost: the time spent in it is left out.
        got[name].wall -= clientWaitedMs - waitedBefore;
      }
      for (const name of names) perRequest[name].push((got[name].cpu / chunk) * 1000);
      const b = got.bare;
      const c = got.client;
      wallRatios.push(c.wall / b.wall);
      if (b.cpu > 0) cpuRatios.push(c.cpu / b.cpu);
      total.bareWall += b.wall;
      total.bareCpu += b.cpu;
      total.clientWall += c.wall;
      total.clientCpu += c.cpu;
    }
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
      parts: Object.fromEntries(names.map((name) => [name, median(perRequest[name])])) as Record<VariantName, number>,
      pacerWaits,
      pacerWaitedMs: clientWaitedMs,
      guardMs,
      windowMs,
    };
  } finally {
    await emulator.close();
  }
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
        pacer_waits: result.pacerWaits,
        pacer_waited_ms: Math.round(result.pacerWaitedMs),
        target: "report (targets: the real-socket row)",
      },
    ],
    {
      title:
        "client overhead: full stack vs bare openapi-fetch (GET /context, in-process emulator; median of per-chunk ratios)",
    },
  );
  const p = result.parts;
  const row = (part: string, us: number, of: string) => ({
    part,
    cpu_us: Number(us.toFixed(1)),
    over_bare: Number((us - p.bare).toFixed(1)),
    of,
  });
  printTable(
    [
      row("bare openapi-fetch", p.bare, "baseline (emulator + undici Request/Response + openapi-fetch)"),
      row(
        "+ per-request abort signal",
        p.bareSignal,
        "an AbortController per call, its signal on openapi-fetch's Request",
      ),
      row("+ one no-op middleware", p.bareMiddleware, "openapi-fetch's own cost of hosting the client's chain"),
      row("+ body as bytes, then JSON", p.bareBytes, "reading the body whole inside the attempt (E4)"),
      row("full client", p.client, "everything: the parts above plus the client's own work"),
      row(
        "remainder",
        p.client - (p.bareSignal - p.bare) - (p.bareMiddleware - p.bare) - (p.bareBytes - p.bare),
        "client minus the three parts: the client's own work (pacer, runner, Outcome…)",
      ),
    ],
    {
      title:
        "what the overhead is made of (median process-CPU µs per request, same interleaved run; deferred GC work — " +
        "such as the finalizer undici registers for every signal it follows — lands on whichever part runs when it happens)",
    },
  );
  return writeResult("client-overhead", result);
}

runWhenDirect("overhead", async () => {
  const result = await runOverheadBench();
  process.stderr.write(`wrote ${await reportOverheadBench(result)}\n`);
  const socket = await runSocketOverheadBench();
  process.stderr.write(`wrote ${await reportSocketOverheadBench(socket, result)}\n`);
  return socket.cpuPass && socket.wallPass;
});
