// Multi-process pacing (I1, C2, C3, C8, C12): 4 client PROCESSES on ONE API key against one emulator
// over loopback, real clock, scaled window (W = 3000 ms, L = 60). Two modes in the same run, each on
// a fresh key:
//   redis — every process paces through stores/redis-window-store.ts on a real redis-server
//           (test/support/redis.ts): the processes share one window, one spacing cursor, one pause;
//   local — every process paces alone at the full limit (memory store): together they overshoot.
// Saturated: every process queues far more commands than can be sent (2 × L each, 8 × L in all) and
// keeps its queue non-empty until `stopAt` = start + (N + 1.5) × W (N = 6), then aborts what is
// left. Processes warm up (connection, Redis) before the common start. Server windows are read
// from X-RateLimit-Remaining in the emulator's processing order.
//   utilisation (headline) = accepted in the first N SATURATED windows ÷ (L × span ÷ W): a window
//     is saturated when the next one opened before the stop (its queue never ran dry); span = first
//     window's open → the open of window N+1, so gaps between windows count as lost time. The
//     ramp-down (windows after N, and the one the stop cut) is excluded and shown after `|`.
//   utilisationAll (secondary, nothing hidden) = every accepted request ÷ (L × elapsed ÷ W),
//     elapsed = first send → end of the last server window used (bench/pacing.ts's measure),
//     including the cut tail window.
// Target for redis: utilisation ≥ 95 % with zero 429s (429s counted over the whole run).
// Export: runMultiprocessBench() / reportMultiprocessBench(); importing has no side effects.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { startEmulatorServer, type EmulatorServer } from "../emulator/public";
import { startRedis } from "../test/support/redis";
import { printTable } from "./lib/table";
import { writeResult } from "./lib/results";
import { runWhenDirect } from "./lib/direct";

const ROOT = new URL("../", import.meta.url).pathname;
const CHILD = join(ROOT, "bench/multiprocess-child.ts");

export interface MultiprocessRow {
  mode: string;
  processes: number;
  accepted: number;
  attempts: number;
  count429: number;
  /** Saturated windows (queues non-empty throughout): accepted ÷ (L × span ÷ W). The headline. */
  utilisation: number;
  /** How many server windows `utilisation` covers (the first ones; `|` marks the end in perWindow). */
  saturatedWindows: number;
  /** Every accepted request ÷ (L × (first send → end of last window) ÷ W), cut tail included. */
  utilisationAll: number;
  /** Accepted per server window, in order; `|` ends the measured windows, `[cut n]` is the window the stop cut. */
  perWindow: string;
  /** First window: sends, last send's offset from the first, and the gaps between sends. */
  firstWindow: string;
  elapsedMs: number;
  /** Commands that failed before the stop (must be 0). */
  failedCommands: number;
  /** Commands still queued (or in flight) when the stop came: > 0 in every process proves saturation. */
  cutByStop: string;
}

interface ChildAttempt {
  sentAt: number;
  status: number | null;
  remaining: number | null;
  requestId: string | null;
}

interface ChildResult {
  succeeded: number;
  failed: number;
  cutByStop: number;
  attempts: ChildAttempt[];
}

interface Child {
  /** Resolves once the child is up and warmed up (it printed "ready"). */
  ready: Promise<void>;
  /** Tells the child when to start and stop (one JSON line on its stdin). */
  start(times: { startAt: number; stopAt: number }): void;
  result: Promise<ChildResult>;
}

function spawnChild(cfg: Record<string, unknown>, token: string): Child {
  // node --import tsx: the pid we hold is the client itself (tsx's CLI would add a wrapper process).
  const child = spawn(process.execPath, ["--import", "tsx", CHILD, JSON.stringify(cfg)], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, RESELLER_TOKEN: token },
  });
  let out = "";
  let err = "";
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout.on("data", (b: Buffer) => {
    out += b.toString();
    if (out.split("\n").includes("ready")) onReady();
  });
  child.stderr.on("data", (b: Buffer) => (err += b.toString()));
  const result = new Promise<ChildResult>((resolve, reject) => {
    const bound = setTimeout(() => child.kill("SIGKILL"), 600_000);
    child.on("exit", (code) => {
      clearTimeout(bound);
      onReady(); // a child that died before it was ready must not hold the others
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (code !== 0 || !line) reject(new Error(`child exited ${code}: ${err.slice(-2000)}`));
      else resolve(JSON.parse(line) as ChildResult);
    });
  });
  return { ready, result, start: (times) => child.stdin.end(JSON.stringify(times) + "\n") };
}

async function measure(
  server: EmulatorServer,
  mode: "redis" | "local",
  redisUrl: string | null,
  o: { processes: number; limit: number; windowMs: number; perProcess: number; saturatedWindows: number },
): Promise<MultiprocessRow> {
  const key = server.emulator.control.createKey({ environment: "test", rate_limit_per_minute: o.limit });
  const children = Array.from({ length: o.processes }, () =>
    spawnChild(
      { baseUrl: server.baseUrl, redisUrl, commands: o.perProcess, windowMs: o.windowMs, limit: o.limit },
      key.token,
    ),
  );
  // Every process is up (tsx start-up, warm-up) before the common start, however slow this machine is.
  await Promise.all(children.map((c) => c.ready));
  const startAt = Date.now() + 500;
  // 1.5 windows past the wanted count: windows drift by guard + latency each and a loaded machine
  // may dispatch late, so the window after the last counted one has opened by then.
  const stopAt = startAt + (o.saturatedWindows + 1.5) * o.windowMs;
  for (const c of children) c.start({ startAt, stopAt });
  const results = await Promise.all(children.map((c) => c.result));
  const all = results.flatMap((r) => r.attempts);
  const byId = new Map(all.filter((a) => a.requestId).map((a) => [a.requestId!, a]));
  // Server windows in the emulator's processing order: a 200 whose remaining went up opened one.
  const windows: { openedAt: number; accepted: number; sends: number[] }[] = [];
  let previous = Number.POSITIVE_INFINITY;
  let count429 = 0;
  for (const entry of server.emulator.control.requests()) {
    if (entry.public_key_id !== key.public_key_id) continue;
    if (entry.status === 429) count429 += 1; // the server's count: includes requests cut in flight
    if (entry.status !== 200 || !entry.request_id) continue;
    const a = byId.get(entry.request_id);
    if (a === undefined) continue;
    if (a.remaining === null) continue;
    if (a.remaining > previous || windows.length === 0) windows.push({ openedAt: a.sentAt, accepted: 0, sends: [] });
    windows[windows.length - 1].accepted += 1;
    windows[windows.length - 1].sends.push(a.sentAt);
    previous = a.remaining;
  }
  const ok = all.filter((a) => a.status === 200).length;
  // Saturated windows: the next window opened before the stop, so this one's queues never ran dry.
  // The headline covers the first `saturatedWindows` of them (a fixed amount of server time).
  let k = 0;
  while (k < o.saturatedWindows && k + 1 < windows.length && windows[k + 1].openedAt <= stopAt) k += 1;
  const span = k > 0 ? windows[k].openedAt - windows[0].openedAt : 0;
  const saturatedAccepted = windows.slice(0, k).reduce((n, w) => n + w.accepted, 0);
  const first = Math.min(...all.map((a) => a.sentAt));
  const elapsed = windows.length > 0 ? windows[windows.length - 1].openedAt + o.windowMs - first : 0;
  const w0 = windows[0];
  // Dispatch order (the server's processing order interleaves processes): spacing and the drift
  // that decides whether the first window fits all L sends (see stores/README.md).
  const sends = w0 ? [...w0.sends].sort((x, y) => x - y) : [];
  const gaps = sends.slice(1).map((t, i) => t - sends[i]);
  return {
    mode,
    processes: o.processes,
    accepted: ok,
    attempts: all.length,
    count429,
    utilisation: span > 0 ? saturatedAccepted / ((o.limit * span) / o.windowMs) : 0,
    saturatedWindows: k,
    utilisationAll: elapsed > 0 ? ok / ((o.limit * elapsed) / o.windowMs) : 0,
    perWindow: windows
      .map((w, i) =>
        i === k - 1 ? `${w.accepted} |` : i === windows.length - 1 ? `[cut ${w.accepted}]` : String(w.accepted),
      )
      .join(" "),
    firstWindow:
      sends.length > 1
        ? `${w0.accepted} sends, last +${sends[sends.length - 1] - sends[0]} ms, gaps ${Math.min(...gaps)}–${Math.max(...gaps)} ms (median ${[...gaps].sort((x, y) => x - y)[gaps.length >> 1]})`
        : "",
    elapsedMs: Math.round(elapsed),
    failedCommands: results.reduce((s, r) => s + r.failed, 0),
    cutByStop: results.map((r) => r.cutByStop).join("/"),
  };
}

export async function runMultiprocessBench(
  options: {
    processes?: number;
    limit?: number;
    windowMs?: number;
    perProcess?: number;
    saturatedWindows?: number;
  } = {},
): Promise<MultiprocessRow[]> {
  const processes = options.processes ?? 4;
  const limit = options.limit ?? 60;
  const windowMs = options.windowMs ?? 3000;
  const saturatedWindows = options.saturatedWindows ?? 6;
  // More than can be sent before the stop (≈ (windows + 1) × L in all): the queues never run dry.
  const perProcess = options.perProcess ?? Math.ceil((2 * (saturatedWindows + 1) * limit) / processes);
  const redis = await startRedis();
  const server = await startEmulatorServer({ host: "127.0.0.1", port: 0, windowMs, defaultRateLimit: limit });
  try {
    const o = { processes, limit, windowMs, perProcess, saturatedWindows };
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
      utilisationAll: Number(r.utilisationAll.toFixed(3)),
    })),
    { title: "4 processes, one API key, saturated queues (L = 60 per 3 s window, loopback, real clock)" },
  );
  const redis = rows.find((r) => r.mode === "redis");
  if (redis) {
    process.stdout.write(
      `redis: utilisation ${(redis.utilisation * 100).toFixed(1)} % over ${redis.saturatedWindows} saturated windows (target ≥ 95 %; ` +
        `the ramp-down after them is excluded — over every accepted request incl. it: ${(redis.utilisationAll * 100).toFixed(1)} %), ` +
        `429s ${redis.count429} (target 0), commands still queued at the stop per process ${redis.cutByStop}\n\n`,
    );
  }
  return writeResult("multiprocess", rows);
}

runWhenDirect("multiprocess", async () => {
  const rows = await runMultiprocessBench();
  process.stderr.write(`wrote ${await reportMultiprocessBench(rows)}\n`);
  const redis = rows.find((r) => r.mode === "redis");
  return !!redis && redis.count429 === 0 && redis.utilisation >= 0.95;
});
