/**
 * Shared by the pacing tests on the emulator: one key on an emulator with a VirtualClock, commands
 * (GET /context, 2 ms each way) through a pacer, and the server's windows as its answers show them.
 */
import { createEmulator, type Emulator } from "../../emulator/index";
import { VirtualClock } from "../../runtime/clock";
import type { Pacer, WindowStore } from "../../pacing";
import { createResellerClient, type Outcome, type ResellerClient } from "../../src/index";

const BASE = "http://emulator.test/api/reseller/v1";

interface Sent {
  sentAt: number;
  status: number;
  remaining: number | null;
}

export interface Job {
  clock: VirtualClock;
  emu: Emulator;
  token: string;
  keyId: string;
  log: Sent[];
  inFlight: number;
  peakInFlight: number;
}

export function world(limit: number, windowMs: number): Job {
  const clock = new VirtualClock();
  const emu = createEmulator({ clock, windowMs, defaultRateLimit: limit });
  const key = emu.control.createKey({ environment: "test", rate_limit_per_minute: limit });
  return { clock, emu, token: key.token, keyId: key.public_key_id, log: [], inFlight: 0, peakInFlight: 0 };
}

const header = (res: Response, name: string): number | null => {
  const v = res.headers.get(name);
  return v === null ? null : Number(v);
};

/**
 * One command: GET /context through `pacer`, 2 ms each way (or `oneWay()` ms each way), repeated
 * after a 429 (C12).
 */
export async function command(j: Job, pacer: Pacer, signal?: AbortSignal, oneWay = () => 2): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const ticket = await pacer.acquire(j.keyId, signal);
    const sentAt = j.clock.now();
    j.peakInFlight = Math.max(j.peakInFlight, ++j.inFlight);
    await j.clock.sleep(oneWay());
    const res = await j.emu.fetch(`${BASE}/context`, { headers: { authorization: `Bearer ${j.token}` } });
    await res.arrayBuffer();
    await j.clock.sleep(oneWay());
    j.inFlight -= 1;
    const remaining = header(res, "x-ratelimit-remaining");
    j.log.push({ sentAt, status: res.status, remaining });
    ticket.release({
      receivedAt: j.clock.now(),
      status: res.status,
      limit: header(res, "x-ratelimit-limit"),
      remaining,
      retryAfter: res.headers.get("retry-after"),
      isRateLimit: res.status === 429,
      attempt,
    });
    if (res.status !== 429) return res.status;
  }
}

/**
 * The server's windows as the answers show them: a 200 with Remaining = L − 1 was the first request
 * of a window (C3), which opened when it arrived (2 ms after its send). Sends are assigned to the
 * window whose span holds their arrival.
 */
export function serverWindows(j: Job, limit: number, windowMs: number): { start: number; arrivals: number[] }[] {
  const windows: { start: number; arrivals: number[] }[] = [];
  for (const s of [...j.log].sort((a, b) => a.sentAt - b.sentAt)) {
    if (s.status !== 200) continue;
    const arrival = s.sentAt + 2;
    if (s.remaining === limit - 1) windows.push({ start: arrival, arrivals: [] });
    const w = [...windows].reverse().find((x) => x.start <= arrival && arrival < x.start + windowMs);
    w?.arrivals.push(arrival);
  }
  return windows;
}

/** Most sends that reached the server within one tenth of any of its windows. */
export function maxPerTenth(j: Job, limit: number, windowMs: number): number {
  let max = 0;
  for (const w of serverWindows(j, limit, windowMs)) {
    const bins = new Array<number>(10).fill(0);
    for (const a of w.arrivals) bins[Math.floor(((a - w.start) * 10) / windowMs)] += 1;
    max = Math.max(max, ...bins);
  }
  return max;
}

/** Deterministic values in [0, max): a small LCG, the same run to run. */
export function seeded(max: number, seed: number): () => number {
  let n = seed;
  return () => {
    n = (n * 1103515245 + 12345) % 2147483648;
    return (n / 2147483648) * max;
  };
}

export const served429 = (emu: Emulator) => emu.control.requests().filter((r) => r.status === 429).length;

/** A WindowStore that hands every call to `inner`, its reserve() through `reserve` (a slow link, a counter). */
export function withReserve(inner: WindowStore, reserve: WindowStore["reserve"]): WindowStore {
  return {
    reserve,
    refund: (key, id) => inner.refund(key, id),
    confirmWindowStart: (key, id, at) => inner.confirmWindowStart(key, id, at),
    observe: (key, p) => inner.observe(key, p),
    pauseUntil: (key, until, id, closes) => inner.pauseUntil(key, until, id, closes),
    peek: (key, now) => inner.peek(key, now),
    close: () => inner.close(),
  };
}

/** A client on a fresh emulator key at the default 120 per 60 s (C1), all on one VirtualClock. */
export function defaultKeyClient(): { clock: VirtualClock; emu: Emulator; client: ResellerClient } {
  const clock = new VirtualClock();
  const emu = createEmulator({ clock });
  const key = emu.control.createKey({ environment: "test" });
  const client = createResellerClient({
    baseUrl: "http://127.0.0.1/api/reseller/v1",
    token: key.token,
    fetch: emu.fetch,
    clock,
  });
  return { clock, emu, client };
}

/** A web checkout: domains.check, quotes.create and orders.create, one after the other. */
export async function checkout(client: ResellerClient, externalId: string): Promise<Outcome[]> {
  return [
    await client.domains.check({ body: { names: ["shop.kz"] } }),
    await client.quotes.create({ body: { action: "register", domain: "shop.kz", period: 1 } } as never),
    await client.orders.create({
      body: { external_id: externalId, action: "register", domain: "shop.kz", period: 1 },
    } as never),
  ];
}
