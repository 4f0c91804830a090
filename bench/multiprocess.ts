// Multi-process pacing (I1, C2, C3, C8, C12): 4 client PROCESSES on ONE API key against one emulator
// over loopback, real clock, scaled window (W = 3000 ms, L = 60), saturated queues (8 × L commands
// in all). Two modes in the same run, each on a fresh key:
//   redis — every process paces through stores/redis-window-store.ts on a real redis-server
//           (test/support/redis.ts): the processes share one window, one spacing cursor, one pause;
//   local — every process paces alone at the full limit (memory store): together they overshoot.
// Utilisation = accepted ÷ (L × elapsed / W), elapsed = first send → end of the last server window
// used (bench/pacing.ts's measure), plus the steady state over the full windows only; server windows are read from X-RateLimit-Remaining in the
// emulator's processing order. Target for redis: ≥ 95 % with zero 429s.
// Export: runMultiprocessBench() / reportMultiprocessBench(); importing has no side effects.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { startEmulatorServer, type EmulatorServer } from "../emulator/server";
import { startRedis } from "../test/support/redis";
import { printTable } from "./lib/table";
import { writeResult } from "./lib/results";

const ROOT = new URL("../", import.meta.url).pathname;
const CHILD = join(ROOT, "bench/multiprocess-child.ts");

export interface MultiprocessRow {
  mode: string;
  processes: number;
  accepted: number;
  attempts: number;
  count429: number;
  utilisation: number;
  /**
   * Steady state: requests accepted in the FULL server windows (all but the last) ÷ (L × their span
   * ÷ W), span = first window's open → last full window's end. Excludes the tail window, where a
   * single spilled command costs a whole W in `utilisation`.
   */
  steadyUtilisation: number;
  perWindow: string;
  elapsedMs: number;
  failedCommands: number;
}

interface ChildAttempt {
  sentAt: number;
  status: number | null;
  remaining: number | null;
  requestId: string | null;
}

function runChild(cfg: Record<string, unknown>, token: string): Promise<{ failed: number; attempts: ChildAttempt[] }> {
  return new Promise((resolve, reject) => {
    // node --import tsx: the pid we hold is the client itself (tsx's CLI would add a wrapper process).
    const child = spawn(process.execPath, ["--import", "tsx", CHILD, JSON.stringify(cfg)], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, RESELLER_TOKEN: token },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString()));
    child.stderr.on("data", (b: Buffer) => (err += b.toString()));
    const bound = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.on("exit", (code) => {
      clearTimeout(bound);
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (code !== 0 || !line) reject(new Error(`child exited ${code}: ${err.slice(-2000)}`));
      else resolve(JSON.parse(line));
    });
  });
}

async function measure(
  server: EmulatorServer,
  mode: "redis" | "local",
  redisUrl: string | null,
  o: { processes: number; limit: number; windowMs: number; perProcess: number },
): Promise<MultiprocessRow> {
  const key = server.emulator.control.createKey({ environment: "test", rate_limit_per_minute: o.limit });
  const startAt = Date.now() + 2500; // every process is up (tsx start-up) before the first send
  const results = await Promise.all(
    Array.from({ length: o.processes }, () =>
      runChild(
        { baseUrl: server.baseUrl, redisUrl, commands: o.perProcess, startAt, windowMs: o.windowMs, limit: o.limit },
        key.token,
      ),
    ),
  );
  const all = results.flatMap((r) => r.attempts);
  const byId = new Map(all.filter((a) => a.requestId).map((a) => [a.requestId!, a]));
  // Server windows in the emulator's processing order: a 200 whose remaining went up opened one.
  const windows: { openedAt: number; accepted: number }[] = [];
  let previous = Number.POSITIVE_INFINITY;
  for (const entry of server.emulator.control.requests()) {
    if (entry.public_key_id !== key.public_key_id || entry.status !== 200 || !entry.request_id) continue;
    const a = byId.get(entry.request_id);
    if (!a || a.remaining === null) continue;
    if (a.remaining > previous || windows.length === 0) windows.push({ openedAt: a.sentAt, accepted: 0 });
    windows[windows.length - 1].accepted += 1;
    previous = a.remaining;
  }
  const ok = all.filter((a) => a.status === 200).length;
  const full = windows.slice(0, -1);
  const steadySpan = full.length > 0 ? windows[windows.length - 1].openedAt - full[0].openedAt : 0;
  const steadyAccepted = full.reduce((n, w) => n + w.accepted, 0);
  const first = Math.min(...all.map((a) => a.sentAt));
  const elapsed = windows.length > 0 ? windows[windows.length - 1].openedAt + o.windowMs - first : 0;
  return {
    mode,
    processes: o.processes,
    accepted: ok,
    attempts: all.length,
    count429: all.filter((a) => a.status === 429).length,
    utilisation: elapsed > 0 ? ok / ((o.limit * elapsed) / o.windowMs) : 0,
    steadyUtilisation: steadySpan > 0 ? steadyAccepted / ((o.limit * steadySpan) / o.windowMs) : 0,
    perWindow: windows.map((w) => w.accepted).join("/"),
    elapsedMs: Math.round(elapsed),
    failedCommands: results.reduce((s, r) => s + r.failed, 0),
  };
}

export async function runMultiprocessBench(
  options: { processes?: number; limit?: number; windowMs?: number; perProcess?: number } = {},
): Promise<MultiprocessRow[]> {
  const processes = options.processes ?? 4;
  const limit = options.limit ?? 60;
  const windowMs = options.windowMs ?? 3000;
  const perProcess = options.perProcess ?? 2 * limit; // 8 × L in all: eight full windows
  const redis = await startRedis();
  const server = await startEmulatorServer({ host: "127.0.0.1", port: 0, windowMs, defaultRateLimit: limit });
  try {
    const o = { processes, limit, windowMs, perProcess };
    return [await measure(server, "redis", redis.url, o), await measure(server, "local", null, o)];
  } finally {
    await server.close();
    await redis.stop();
  }
}

export async function reportMultiprocessBench(rows: MultiprocessRow[]): Promise<string> {
  printTable(
    rows.map((r) => ({
      ...r,
      mode: r.mode === "redis" ? "redis window store (shared)" : "local pacing at full L (each)",
      utilisation: Number(r.utilisation.toFixed(3)),
      steadyUtilisation: Number(r.steadyUtilisation.toFixed(3)),
    })),
    { title: "4 processes, one API key (L = 60 per 3 s window, loopback, real clock)" },
  );
  const redis = rows.find((r) => r.mode === "redis");
  if (redis) {
    process.stdout.write(
      `redis: utilisation ${(redis.utilisation * 100).toFixed(1)} % (target ≥ 95 %; steady state over full windows ${(redis.steadyUtilisation * 100).toFixed(1)} %), 429s ${redis.count429} (target 0)\n\n`,
    );
  }
  return writeResult("multiprocess", rows);
}

const invokedDirectly = /(?:^|[\\/])multiprocess\.(?:ts|js|mjs)$/.test(process.argv[1] ?? "");
if (invokedDirectly) {
  runMultiprocessBench()
    .then(async (rows) => {
      process.stderr.write(`wrote ${await reportMultiprocessBench(rows)}\n`);
      const redis = rows.find((r) => r.mode === "redis");
      process.exit(redis && redis.count429 === 0 && redis.utilisation >= 0.95 ? 0 : 1);
    })
    .catch((error: unknown) => {
      process.stderr.write(`multiprocess bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    });
}
