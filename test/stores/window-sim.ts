/**
 * A small discrete-event simulation of N client processes pacing one API key through their own
 * WindowStores against a server with the contract's FIXED window (C3: starts at the first counted
 * request, lasts W; C6: a 429 adds no hit). Time is a controlled number, never the wall clock.
 */
import type { WindowStore } from "../../pacing";

export interface SimOptions {
  stores: WindowStore[];
  key: string;
  limit: number;
  windowMs: number;
  guardMs: number;
  latencyMs: number;
  start: number;
  /** Gap between grants the pacer asks for; default even spacing (W − guard) / limit (C8). */
  spacingMs?: number;
  /** Called before each event; may await (e.g. to stop Redis at a given time). */
  beforeEvent?: (now: number, server: SimServer) => Promise<void> | void;
}

export interface SimServer {
  /** Counted requests per server window, in order. */
  windows: { start: number; count: number }[];
  rejected429: number;
  sends: number[];
}

type Event =
  | { at: number; kind: "ask"; p: number }
  | { at: number; kind: "arrive"; p: number; windowId: string }
  | { at: number; kind: "respond"; p: number; windowId: string; status: number; remaining: number };

/** Runs until `until`; returns the server's view. */
export async function simulate(o: SimOptions, until: number): Promise<SimServer> {
  const server: SimServer = { windows: [], rejected429: 0, sends: [] };
  const queue: Event[] = o.stores.map((_, p) => ({ at: o.start, kind: "ask", p }));
  const spacingMs = o.spacingMs ?? (o.windowMs - o.guardMs) / o.limit;
  const count = (arrival: number): { status: number; remaining: number } => {
    const w = server.windows.at(-1);
    if (!w || arrival >= w.start + o.windowMs) server.windows.push({ start: arrival, count: 1 });
    else if (w.count >= o.limit) return { status: 429, remaining: 0 };
    else w.count += 1;
    return { status: 202, remaining: o.limit - server.windows.at(-1)!.count };
  };

  while (queue.length > 0) {
    queue.sort((a, b) => a.at - b.at);
    const now = queue[0].at;
    if (now > until) break;
    await o.beforeEvent?.(now, server);
    // Everything due at `now` runs concurrently: the store must be atomic across processes.
    const due = queue.splice(
      0,
      queue.findIndex((e) => e.at !== now) === -1 ? queue.length : queue.findIndex((e) => e.at !== now),
    );
    await Promise.all(
      due.map(async (e) => {
        const store = o.stores[e.p];
        if (e.kind === "ask") {
          const d = await store.reserve(o.key, {
            limit: o.limit,
            windowMs: o.windowMs,
            spacingMs,
            guardMs: o.guardMs,
            now,
          });
          if (d.granted) {
            server.sends.push(d.sendAt);
            queue.push({ at: d.sendAt + o.latencyMs, kind: "arrive", p: e.p, windowId: d.windowId });
            queue.push({ at: d.sendAt, kind: "ask", p: e.p });
            if (d.sendAt === now) queue.at(-1)!.at = now + 1; // ask again just after sending
          } else {
            queue.push({ at: Math.max(d.retryAt, now + 1), kind: "ask", p: e.p });
          }
        } else if (e.kind === "arrive") {
          const r = count(now);
          if (r.status === 429) server.rejected429 += 1;
          queue.push({ at: now + o.latencyMs, kind: "respond", p: e.p, windowId: e.windowId, ...r });
        } else if (e.status === 429) {
          await store.pauseUntil(o.key, now + 1000, e.windowId, true);
        } else {
          await store.confirmWindowStart(o.key, e.windowId, now);
          await store.observe(o.key, { windowId: e.windowId, remaining: e.remaining, limit: o.limit, now });
        }
      }),
    );
  }
  return server;
}

/** The most requests the server saw in any of its fixed windows. */
export const maxPerWindow = (s: SimServer) => Math.max(0, ...s.windows.map((w) => w.count));
