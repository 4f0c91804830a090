// Per-window record of a fleet run (bench/fleet.ts), for reading where utilisation went: every server
// window (C3, C4, rebuilt from arrival order), how many requests it counted, how long after its
// nominal end the next one opened, how its first request fared, and which run events (SIGKILLs,
// database restarts, window-store failovers) fell into it. Written to bench/results/fleet-windows.tmp;
// every request of the run to bench/results/fleet-requests.tmp.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface ServerWindow {
  start: number;
  count: number;
}

export interface WindowRequest {
  arrivedAt: number;
  respondedAt: number | null;
  status: number | null;
  counted: boolean;
  fault: string | null;
  socketFault: string | null;
}

export interface RunMark {
  at: number;
  what: string;
}

export function describeWindows(
  windows: readonly ServerWindow[],
  requests: readonly WindowRequest[],
  marks: readonly RunMark[],
  W: number,
  t0: number,
): string[] {
  const counted = requests.filter((r) => r.counted).sort((a, b) => a.arrivedAt - b.arrivedAt);
  const lines = ["# i  start_s count gap_ms first(status/fault rtt_ms) firstAnswer_ms marks"];
  let j = 0;
  windows.forEach((w, i) => {
    const next = windows[i + 1];
    const inside: WindowRequest[] = [];
    while (j < counted.length && counted[j].arrivedAt < w.start + W && (!next || counted[j].arrivedAt < next.start)) {
      inside.push(counted[j++]);
    }
    const first = inside[0];
    const answered = inside.filter((r) => r.respondedAt !== null && r.status !== null);
    const firstAnswer = answered.length ? Math.min(...answered.map((r) => r.respondedAt!)) - w.start : null;
    const end = next ? next.start : w.start + W;
    const here = marks.filter((m) => m.at >= w.start && m.at < end).map((m) => m.what);
    lines.push(
      [
        String(i).padStart(3),
        ((w.start - t0) / 1000).toFixed(2).padStart(7),
        String(w.count).padStart(5),
        next ? String(next.start - w.start - W).padStart(6) : "     -",
        first
          ? `${first.status ?? "-"}/${first.fault ?? first.socketFault ?? "ok"} ${first.respondedAt === null ? "-" : first.respondedAt - first.arrivedAt}`
          : "-",
        firstAnswer === null ? "-" : String(firstAnswer),
        here.join(","),
      ].join(" "),
    );
  });
  return lines;
}

export function writeWindowLog(root: string, lines: readonly string[]): void {
  mkdirSync(join(root, "bench/results"), { recursive: true });
  writeFileSync(join(root, "bench/results/fleet-windows.tmp"), lines.join("\n") + "\n");
}

/**
 * Every API request of the key in arrival order (ms from the first), for reading a 429 or a gap:
 * arrival, answer, status, fault, whether the limiter counted it, Remaining and the idempotency key.
 * Written to bench/results/fleet-requests.tmp.
 */
export function writeRequestLog(
  root: string,
  requests: readonly (WindowRequest & { remaining?: string | null; key: string | null; method: string })[],
): void {
  const sorted = [...requests].sort((a, b) => a.arrivedAt - b.arrivedAt);
  const t0 = sorted[0]?.arrivedAt ?? 0;
  const lines = ["# arrived_ms answered_ms status fault counted remaining method key"];
  for (const r of sorted) {
    lines.push(
      [
        r.arrivedAt - t0,
        r.respondedAt === null ? "-" : r.respondedAt - t0,
        r.status ?? "-",
        r.fault ?? r.socketFault ?? "ok",
        r.counted ? "c" : "-",
        r.remaining ?? "-",
        r.method,
        r.key ?? "-",
      ].join(" "),
    );
  }
  mkdirSync(join(root, "bench/results"), { recursive: true });
  writeFileSync(join(root, "bench/results/fleet-requests.tmp"), lines.join("\n") + "\n");
}

/** An interval in which the fleet was not allowed to send, and why. */
export interface Blocked {
  from: number;
  to: number;
  why: string;
}

/**
 * When the product's own rules held every send back (so no server window overlapping it can be
 * filled, whatever the demand):
 * - a worker's Redis window store failed over: it sends nothing until one window (+ guard) has
 *   passed or Redis answers again, whichever comes first (other workers may have filled the
 *   server's window just before Redis went away, and it cannot see their sends, C3, I3); when it
 *   paced locally before Redis came back, it pauses the shared window for one window more after
 *   its last local send (its local sends were invisible to the others);
 * - PostgreSQL was down: nothing new can be recorded, and nothing unrecorded is sent (G1, I5).
 */
export function blockedIntervals(
  events: readonly Record<string, string>[],
  marks: readonly RunMark[],
  windowAndGuardMs: number,
  runEnd: number,
): Blocked[] {
  const out: Blocked[] = [];
  const open = new Map<string, number>();
  const close = (worker: string, recovered: number) => {
    const f = open.get(worker)!;
    open.delete(worker);
    out.push({ from: f, to: Math.min(recovered, f + windowAndGuardMs), why: `failover:${worker}` });
    if (recovered > f + windowAndGuardMs) {
      out.push({ from: recovered, to: recovered + windowAndGuardMs, why: `failback:${worker}` });
    }
  };
  for (const e of [...events].sort((a, b) => Number(a.t) - Number(b.t))) {
    if (e.e === "store-failover" && !open.has(e.worker)) open.set(e.worker, Number(e.t));
    if (e.e === "store-recovered" && open.has(e.worker)) close(e.worker, Number(e.t));
    // Redis answered without the key's window (restarted without its data): one window paused.
    if (e.e === "store-state-lost") {
      out.push({ from: Number(e.t), to: Number(e.t) + windowAndGuardMs, why: `state-lost:${e.worker}` });
    }
  }
  // A worker killed while failed over: its block ends with it (its sends end too).
  for (const w of [...open.keys()]) close(w, Math.min(runEnd, open.get(w)! + windowAndGuardMs));
  const pgDown = marks.filter((m) => m.what === "pg-restart").map((m) => m.at);
  const pgUp = marks.filter((m) => m.what === "pg-up").map((m) => m.at);
  pgDown.forEach((at, i) => out.push({ from: at, to: pgUp[i] ?? runEnd, why: "pg-down" }));
  return out;
}

/** Whether [from, to] overlaps any failover, failback or lost state of the window store. */
export function overlapsFailover(blocked: readonly Blocked[], from: number, to: number): boolean {
  return blocked.some((b) => /^(fail|state-lost)/.test(b.why) && b.from < to && b.to > from);
}
