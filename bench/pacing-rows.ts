// Pacer rows of `npm run bench -- pacing` beside the utilisation table (C3, C8, C10, I3): how long an
// idle key's calls wait, what shape a bulk job and a sequential loop give the server's windows, and a
// process started at several phases of a predecessor's window. Real loopback emulator, real clock.
import { startEmulatorServer, type EmulatorServer } from "../emulator/public";
import { createPacer, type Pacer } from "../src/pacing";
import { percentile } from "./lib/stats";

interface Sent {
  sentAt: number;
  status: number;
  remaining: number | null;
}

interface Run {
  server: EmulatorServer;
  token: string;
  keyId: string;
  log: Sent[];
  inFlight: number;
  peak: number;
}

function newKey(server: EmulatorServer, limit: number): Run {
  const key = server.emulator.control.createKey({ environment: "test", rate_limit_per_minute: limit });
  return { server, token: key.token, keyId: key.public_key_id, log: [], inFlight: 0, peak: 0 };
}

/** One command: GET /context through the pacer; the same command again after a 429 (C12). Returns the waits. */
async function command(r: Run, pacer: Pacer, signal?: AbortSignal): Promise<number[]> {
  const waits: number[] = [];
  for (let attempt = 0; ; attempt++) {
    const ticket = await pacer.acquire(r.keyId, signal);
    waits.push(ticket.waitedMs);
    const sentAt = Date.now();
    r.peak = Math.max(r.peak, ++r.inFlight);
    let res: Response;
    try {
      res = await fetch(`${r.server.baseUrl}/context`, { headers: { authorization: `Bearer ${r.token}` } });
      await res.arrayBuffer();
    } catch (error) {
      r.inFlight -= 1;
      ticket.release({ receivedAt: Date.now() });
      throw error;
    }
    r.inFlight -= 1;
    const num = (name: string) => (res.headers.get(name) === null ? null : Number(res.headers.get(name)));
    r.log.push({ sentAt, status: res.status, remaining: num("x-ratelimit-remaining") });
    ticket.release({
      receivedAt: Date.now(),
      status: res.status,
      limit: num("x-ratelimit-limit"),
      remaining: num("x-ratelimit-remaining"),
      retryAfter: res.headers.get("retry-after"),
      isRateLimit: res.status === 429,
      attempt,
    });
    if (res.status !== 429) return waits;
  }
}

/** Server windows (C3) from the answers: a 200 with Remaining = L − 1 opened one. Sends are binned by send time. */
function windows(log: Sent[], limit: number, windowMs: number): { start: number; sends: number[] }[] {
  const out: { start: number; sends: number[] }[] = [];
  for (const s of [...log].sort((a, b) => a.sentAt - b.sentAt)) {
    if (s.status !== 200) continue;
    if (s.remaining === limit - 1) out.push({ start: s.sentAt, sends: [] });
    const w = [...out].reverse().find((x) => x.start <= s.sentAt && s.sentAt < x.start + windowMs);
    w?.sends.push(s.sentAt);
  }
  return out;
}

function maxPerTenth(log: Sent[], limit: number, windowMs: number): number {
  let max = 0;
  for (const w of windows(log, limit, windowMs)) {
    const bins = new Array<number>(10).fill(0);
    for (const t of w.sends) bins[Math.min(9, Math.floor(((t - w.start) * 10) / windowMs))] += 1;
    max = Math.max(max, ...bins);
  }
  return max;
}

const count429 = (r: Run) => r.log.filter((s) => s.status === 429).length;

export interface InteractiveRow {
  /** p95 of the pacer wait per call, idle key (ms). */
  idleP95Ms: number;
  /** p95 of the pacer wait per call after 4 calls spent the allowance (ms). */
  spentP95Ms: number;
  checkouts: number;
}

/** A checkout-like sequence of 3 calls on idle keys at the default 120 per 60 s. */
export async function runInteractive(
  server: EmulatorServer,
  checkouts = 40,
  spentCheckouts = 6,
): Promise<InteractiveRow> {
  const run = async (into: number[], before: number) => {
    const r = newKey(server, 120);
    const pacer = createPacer(); // C1 defaults: 120 per 60 s, maxConcurrency 4
    for (let i = 0; i < before; i++) await command(r, pacer);
    for (let call = 0; call < 3; call++) into.push(...(await command(r, pacer)));
  };
  const idle: number[] = [];
  const spent: number[] = [];
  for (let i = 0; i < checkouts; i++) await run(idle, 0);
  // The allowance spent first (4 calls in a row), then the same checkout: it waits for the spacing.
  for (let i = 0; i < spentCheckouts; i++) await run(spent, 4);
  return { idleP95Ms: percentile(idle, 95), spentP95Ms: percentile(spent, 95), checkouts };
}

export interface ShapeRow {
  shape: string;
  commands: number;
  peakInFlight: number;
  maxPerTenth: number;
  /** allowance + L/10 */
  tenthBound: number;
  count429: number;
}

/** 3×L commands at once, and a sequential loop of L calls: in flight and sends per tenth of a server window. */
export async function runShapes(server: EmulatorServer, limit = 60, windowMs = 3000): Promise<ShapeRow[]> {
  const rows: ShapeRow[] = [];
  const bound = 4 + limit / 10;
  {
    const r = newKey(server, limit);
    const pacer = createPacer({ windowMs, initialLimit: limit });
    await Promise.all(Array.from({ length: 3 * limit }, () => command(r, pacer)));
    rows.push({
      shape: "3×L at once",
      commands: 3 * limit,
      peakInFlight: r.peak,
      maxPerTenth: maxPerTenth(r.log, limit, windowMs),
      tenthBound: bound,
      count429: count429(r),
    });
  }
  {
    const r = newKey(server, limit);
    const pacer = createPacer({ windowMs, initialLimit: limit });
    for (let i = 0; i < limit; i++) await command(r, pacer);
    rows.push({
      shape: "sequential loop of L",
      commands: limit,
      peakInFlight: r.peak,
      maxPerTenth: maxPerTenth(r.log, limit, windowMs),
      tenthBound: bound,
      count429: count429(r),
    });
  }
  return rows;
}

export interface RestartRow {
  offsetMs: number;
  jobMs: number;
  /** (⌈N/L⌉ + 1) × W */
  boundMs: number;
  count429: number;
  /** Sends in each server window the new process used. */
  fills: string;
}

/**
 * A predecessor spends half a server window and stops; `offset` ms before that window ends a new
 * process (fresh pacer, nothing persisted) runs a 3×L job on the key (L = 40 per 4 s).
 */
export async function runRestart(limit = 40, windowMs = 4000, offsets = [100, 600, 2000]): Promise<RestartRow[]> {
  const server = await startEmulatorServer({ host: "127.0.0.1", port: 0, windowMs, defaultRateLimit: limit });
  const rows: RestartRow[] = [];
  try {
    for (const offsetMs of offsets) {
      const r = newKey(server, limit);
      const old = createPacer({ windowMs, initialLimit: limit });
      const t0 = Date.now();
      await Promise.all(Array.from({ length: limit / 2 }, () => command(r, old)));
      const opened = r.log.find((s) => s.remaining === limit - 1)?.sentAt ?? t0;
      await new Promise((res) => setTimeout(res, Math.max(0, opened + windowMs - offsetMs - Date.now())));
      const before = r.log.length;
      const pacer = createPacer({ windowMs, initialLimit: limit });
      const start = Date.now();
      await Promise.all(Array.from({ length: 3 * limit }, () => command(r, pacer)));
      const jobMs = Date.now() - start;
      const ours = windows(r.log, limit, windowMs).filter((w) => w.start >= start);
      rows.push({
        offsetMs,
        jobMs,
        boundMs: (Math.ceil((3 * limit) / limit) + 1) * windowMs,
        count429: r.log.slice(before).filter((s) => s.status === 429).length,
        fills: ours.map((w) => w.sends.length).join("/"),
      });
    }
  } finally {
    await server.close();
  }
  return rows;
}
