// Pacing utilisation bench (C3, C8, C12, I1, I3): a saturated queue of 3×L commands against the
// emulator over a real loopback port and the REAL clock, with a scaled window (L = 60, W = 3000 ms).
// Side by side in one run, each on its own fresh key (C2: separate counters):
//   naive        — bare fetch as fast as possible from 8 workers; each 429 waits Retry-After, retries
//   token-bucket — seed 002's advice: bucket at L/W with burst L in front of the same 8 workers
//   pacer        — pacing/pacer.ts (fixed-window fit, even spacing, whole-key pause)
// Utilisation = accepted ÷ (L × elapsed / W), where elapsed runs from the first send to the END of
// the last server window the strategy used (that window's opener + W): the share of the key's
// capacity used while the strategy occupied it; 1.0 = back-to-back full windows. Server windows are
// read from X-RateLimit-Remaining (a 200 with remaining = L − 1 opened one). Every strategy starts
// on a warmed-up connection (one request on another key first), so none pays for JIT/TCP set-up.
// Import runPacingBench() from bench/main.ts; run directly (`tsx bench/pacing.ts`) for a CLI.
import { startEmulatorServer, type EmulatorServer } from "../emulator/public";
import { systemClock } from "../src/index";
import { createPacer } from "../src/pacing";
import { parseRetryAfter } from "../src/pacing";
import { printTable } from "./lib/table";
import { writeResult } from "./lib/results";
import { runWhenDirect } from "./lib/direct";

export interface PacingBenchOptions {
  /** Requests per window (default 60). */
  limit?: number;
  /** Scaled window (default 3000 ms). */
  windowMs?: number;
  /** Commands per strategy (default 3 × limit). */
  commands?: number;
  /** Concurrent workers of the naive and token-bucket strategies (default 8). */
  workers?: number;
}

export interface PacingBenchRow {
  strategy: string;
  /** Commands answered 200. */
  accepted: number;
  /** HTTP attempts sent (accepted + 429s). */
  attempts: number;
  /** 429 responses received. */
  count429: number;
  /** count429 ÷ attempts. */
  rate429: number;
  /** accepted ÷ (L × elapsed / W); elapsed = first send → end of the last server window used. */
  utilisation: number;
  /** Accepted per server window (from X-RateLimit-Remaining), e.g. "60/60/60". */
  perWindow: string;
  /** min over the full server windows of accepted ÷ L. */
  minWindowFill: number;
  elapsedMs: number;
}

interface Attempt {
  sentAt: number;
  status: number;
  remaining: number | null;
  requestId: string | null;
}

interface Ctx {
  server: EmulatorServer;
  token: string;
  keyId: string;
  limit: number;
  windowMs: number;
  commands: number;
  workers: number;
  log: Attempt[];
}

const sleep = (ms: number) => systemClock.sleep(ms);

async function send(ctx: Ctx): Promise<Response> {
  const sentAt = Date.now();
  const res = await fetch(`${ctx.server.baseUrl}/context`, {
    headers: { authorization: `Bearer ${ctx.token}`, accept: "application/json" },
  });
  await res.arrayBuffer();
  const remaining = res.headers.get("x-ratelimit-remaining");
  ctx.log.push({
    sentAt,
    status: res.status,
    remaining: remaining === null ? null : Number(remaining),
    requestId: res.headers.get("x-request-id"),
  });
  return res;
}

/** Waits as the server says after a 429 (1 s when it says nothing usable). */
function retryAfterMs(res: Response): number {
  return parseRetryAfter(res.headers.get("retry-after"), Date.now())?.ms ?? 1000;
}

async function workerPool(ctx: Ctx, before: () => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: ctx.workers }, async () => {
      while (next < ctx.commands) {
        next += 1;
        for (;;) {
          await before();
          const res = await send(ctx);
          if (res.status !== 429) break;
          await sleep(retryAfterMs(res)); // this worker only: no whole-key pause
        }
      }
    }),
  );
}

async function naive(ctx: Ctx): Promise<void> {
  await workerPool(ctx, async () => undefined);
}

/** Seed 002: a token bucket refilled at L/W, holding at most L tokens (starts full), FIFO. */
async function tokenBucket(ctx: Ctx): Promise<void> {
  const rate = ctx.limit / ctx.windowMs; // tokens per ms
  let tokens = ctx.limit;
  let last = Date.now();
  let chain = Promise.resolve();
  const take = () => {
    const turn = chain.then(async () => {
      for (;;) {
        const now = Date.now();
        tokens = Math.min(ctx.limit, tokens + (now - last) * rate);
        last = now;
        if (tokens >= 1) {
          tokens -= 1;
          return;
        }
        await sleep(Math.ceil((1 - tokens) / rate));
      }
    });
    chain = turn;
    return turn;
  };
  await workerPool(ctx, take);
}

async function paced(ctx: Ctx): Promise<void> {
  const pacer = createPacer({ windowMs: ctx.windowMs });
  const num = (res: Response, name: string) => {
    const v = res.headers.get(name);
    return v === null ? null : Number(v);
  };
  await Promise.all(
    Array.from({ length: ctx.commands }, async () => {
      for (let attempt = 0; ; attempt++) {
        const ticket = await pacer.acquire(ctx.keyId);
        let res: Response;
        try {
          res = await send(ctx);
        } catch (error) {
          ticket.release({ receivedAt: Date.now() });
          throw error;
        }
        ticket.release({
          receivedAt: Date.now(),
          status: res.status,
          limit: num(res, "x-ratelimit-limit"),
          remaining: num(res, "x-ratelimit-remaining"),
          retryAfter: res.headers.get("retry-after"),
          isRateLimit: res.status === 429,
          attempt,
        });
        if (res.status !== 429) return;
      }
    }),
  );
}

/**
 * Server windows (C3), in the emulator's processing order (its request log), told apart by the
 * X-RateLimit-Remaining we got back for each request (matched by X-Request-ID): a 200 whose
 * remaining is higher than the previous one's opened a new window.
 */
function serverWindows(ctx: Ctx): { openedAt: number; accepted: number }[] {
  const byId = new Map(ctx.log.filter((a) => a.requestId !== null).map((a) => [a.requestId!, a]));
  const windows: { openedAt: number; accepted: number }[] = [];
  let previous = Number.POSITIVE_INFINITY;
  for (const entry of ctx.server.emulator.control.requests()) {
    if (entry.public_key_id !== ctx.keyId || entry.status !== 200 || entry.request_id === null) continue;
    const a = byId.get(entry.request_id);
    if (a === undefined) continue;
    if (a.remaining === null) continue;
    if (a.remaining > previous || windows.length === 0) windows.push({ openedAt: a.sentAt, accepted: 0 });
    windows[windows.length - 1].accepted += 1;
    previous = a.remaining;
  }
  return windows;
}

/** One request on the default key: TCP keep-alive connections and JIT are ready before timing. */
async function warmUp(server: EmulatorServer): Promise<void> {
  const key = server.emulator.control.keys().find((k) => k.environment === "test");
  if (!key) return;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      const res = await fetch(`${server.baseUrl}/context`, { headers: { authorization: `Bearer ${key.token}` } });
      await res.arrayBuffer();
    }),
  );
}

async function measure(
  strategy: string,
  run: (ctx: Ctx) => Promise<void>,
  base: Omit<Ctx, "token" | "keyId" | "log">,
): Promise<PacingBenchRow> {
  const key = base.server.emulator.control.createKey({ environment: "test", rate_limit_per_minute: base.limit });
  const ctx: Ctx = { ...base, token: key.token, keyId: key.public_key_id, log: [] };
  await warmUp(base.server);
  const t0 = Date.now();
  await run(ctx);
  const wall = Date.now() - t0;
  const ok = ctx.log.filter((a) => a.status === 200);
  const count429 = ctx.log.filter((a) => a.status === 429).length;
  const first = Math.min(...ctx.log.map((a) => a.sentAt));
  const windows = serverWindows(ctx);
  const elapsed = windows.length > 0 ? windows[windows.length - 1].openedAt + ctx.windowMs - first : wall;
  const full = windows.slice(0, Math.floor(ok.length / ctx.limit)).map((w) => w.accepted);
  return {
    strategy,
    accepted: ok.length,
    attempts: ctx.log.length,
    count429,
    rate429: ctx.log.length > 0 ? count429 / ctx.log.length : 0,
    utilisation: ok.length / ((ctx.limit * elapsed) / ctx.windowMs),
    perWindow: windows.map((w) => w.accepted).join("/"),
    minWindowFill: full.length > 0 ? Math.min(...full) / ctx.limit : 0,
    elapsedMs: Math.round(elapsed),
  };
}

/** Runs the three strategies one after another against one loopback emulator; returns one row each. */
export async function runPacingBench(options: PacingBenchOptions = {}): Promise<PacingBenchRow[]> {
  const limit = options.limit ?? 60;
  const windowMs = options.windowMs ?? 3000;
  const server = await startEmulatorServer({
    host: "127.0.0.1",
    port: 0,
    windowMs,
    defaultRateLimit: limit,
    withDefaultKeys: true,
  });
  try {
    const base = { server, limit, windowMs, commands: options.commands ?? 3 * limit, workers: options.workers ?? 8 };
    return [
      await measure("naive (retry on 429)", naive, base),
      await measure("token bucket L/W, burst L", tokenBucket, base),
      await measure("pacer (fixed-window fit)", paced, base),
    ];
  } finally {
    await server.close();
  }
}

/** Prints the rows (target for the pacer: utilisation ≥ 0.97 with zero 429s) and writes the JSON. */
export async function reportPacingBench(rows: PacingBenchRow[]): Promise<string> {
  printTable(
    rows.map((r) => ({ ...r, utilisation: Number(r.utilisation.toFixed(3)), rate429: Number(r.rate429.toFixed(3)) })),
    { title: "pacing utilisation (L = 60 per 3 s window, loopback, real clock)" },
  );
  const ours = rows.find((r) => r.strategy.startsWith("pacer"));
  if (ours) {
    process.stdout.write(
      `pacer: utilisation ${(ours.utilisation * 100).toFixed(1)} % (target ≥ 97 %), 429s ${ours.count429} (target 0)\n\n`,
    );
  }
  return writeResult("pacing", rows);
}

runWhenDirect("pacing", async () => {
  const rows = await runPacingBench();
  process.stderr.write(`wrote ${await reportPacingBench(rows)}\n`);
  const ours = rows.find((r) => r.strategy.startsWith("pacer"));
  return !!ours && ours.count429 === 0 && ours.utilisation >= 0.97;
});
