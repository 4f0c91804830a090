// The pacer against the reference emulator's fixed window (C3–C12, I1, I3): plain emulator.fetch
// calls gated by the pacer, one VirtualClock shared by both, no mocks.
import { describe, expect, it } from "vitest";
import { createEmulator, type Emulator } from "../../emulator/index";
import { VirtualClock } from "../../runtime/clock";
import { createPacer, type Pacer, type PacingEvent } from "../../pacing";
import { createMemoryWindowStore } from "../../pacing";
import { seeded } from "./emulator-world";

const BASE = "http://emulator.test/api/reseller/v1";
const W = 3000;
const L = 60;

interface Sent {
  sentAt: number;
  receivedAt: number;
  status: number;
  retryAfter: string | null;
  remaining: number | null;
}

/** Deterministic one-way network latency in [0, maxMs): a small LCG, reproducible run to run. */
function latency(maxMs: number, seed = 7): () => number {
  const next = seeded(maxMs, seed);
  return () => Math.floor(next());
}

interface World {
  clock: VirtualClock;
  emu: Emulator;
  pacer: Pacer;
  log: Sent[];
  /** One-way latency per direction (virtual ms); none by default. */
  net?: () => number;
}

function world(options: { limit?: number; pacerLimit?: number; random?: () => number } = {}) {
  const clock = new VirtualClock();
  const emu = createEmulator({ clock, windowMs: W, defaultRateLimit: L });
  const key = emu.control.createKey({ environment: "test", rate_limit_per_minute: options.limit ?? L });
  const events: PacingEvent[] = [];
  const pacer = createPacer({
    clock,
    windowMs: W,
    initialLimit: options.pacerLimit,
    random: options.random ?? (() => 0.5),
    onEvent: (e) => events.push(e),
  });
  return { clock, emu, key, pacer, events, log: [] as Sent[] };
}

const num = (res: Response, name: string): number | null => {
  const v = res.headers.get(name);
  return v === null ? null : Number(v);
};

function get(emu: Emulator, token: string, path = "/context"): Promise<Response> {
  return emu.fetch(`${BASE}${path}`, { headers: { authorization: `Bearer ${token}`, accept: "application/json" } });
}

/** One command: paced attempts of GET /context, repeating the same command after a 429 (C12). */
async function pacedCommand(w: World, token: string, keyId: string, maxAttempts = 6): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const ticket = await w.pacer.acquire(keyId);
    const sentAt = w.clock.now();
    if (w.net) await w.clock.sleep(w.net()); // request on the wire: the server counts it later
    const res = await get(w.emu, token);
    await res.arrayBuffer();
    if (w.net) await w.clock.sleep(w.net()); // response on the wire
    const receivedAt = w.clock.now();
    const retryAfter = res.headers.get("retry-after");
    ticket.release({
      receivedAt,
      status: res.status,
      limit: num(res, "x-ratelimit-limit"),
      remaining: num(res, "x-ratelimit-remaining"),
      retryAfter,
      isRateLimit: res.status === 429,
      attempt,
    });
    w.log.push({ sentAt, receivedAt, status: res.status, retryAfter, remaining: num(res, "x-ratelimit-remaining") });
    if (res.status !== 429 || attempt + 1 >= maxAttempts) return res.status;
  }
}

/** 429s the emulator actually sent (its own request log — retried attempts included). */
function served429(emu: Emulator): number {
  return emu.control.requests().filter((r) => r.status === 429).length;
}

describe("pacer × emulator fixed window (VirtualClock)", () => {
  it("I3: 3×L requests through the pacer get zero 429s and fill ≥ 97 % of the windows", async () => {
    const w = world();
    // A5: the first call is GET /context; its rate_limit_per_minute is the limit to pace at.
    const tFirst = w.clock.now();
    const first = await w.pacer.acquire(w.key.public_key_id);
    const res = await get(w.emu, w.key.token);
    const body = (await res.json()) as { data: { credential: { rate_limit_per_minute: number } } };
    w.pacer.learnLimit(w.key.public_key_id, body.data.credential.rate_limit_per_minute);
    first.release({
      receivedAt: w.clock.now(),
      status: res.status,
      limit: num(res, "x-ratelimit-limit"),
      remaining: num(res, "x-ratelimit-remaining"),
    });
    const net = { ...w, net: latency(20) }; // up to 20 ms each way (< the 25 ms guard)
    const statuses = await Promise.all(
      Array.from({ length: 3 * L - 1 }, () => pacedCommand(net, w.key.token, w.key.public_key_id)),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(served429(w.emu)).toBe(0);
    expect(w.log.filter((s) => s.status === 429)).toHaveLength(0);
    // Utilisation = accepted ÷ (L × elapsed / W), elapsed = first send … end of the last server window
    // used (its first request, the one answered Remaining = L − 1, + W).
    const openers = w.log.filter((s) => s.remaining === L - 1).map((s) => s.sentAt);
    expect(openers).toHaveLength(2); // the /context call opened the first window
    const elapsed = Math.max(...openers) + W - tFirst;
    const utilisation = (3 * L) / ((L * elapsed) / W);
    expect(utilisation).toBeGreaterThanOrEqual(0.97);
    expect(utilisation).toBeLessThanOrEqual(1);
  });

  it("I3: 10 windows with jittery latency — every window is fitted to the server's, zero 429s", async () => {
    // Each window's end is taken from its FIRST ANSWER (the server may have started it up to one
    // latency after our first send); a pacer that reopened at first send + W would send into the
    // server's still-open window whenever a window opener was slower than the next one.
    const w = world({ pacerLimit: L });
    const net = { ...w, net: latency(20, 12345) };
    const statuses = await Promise.all(
      Array.from({ length: 10 * L }, () => pacedCommand(net, w.key.token, w.key.public_key_id)),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(served429(w.emu)).toBe(0);
  });

  it("I3: a burst at the very end of a quiet window does not spill into the next server window", async () => {
    // A send in the last moments of our window may reach the server after ITS window ended and
    // open the next one early; the pacer stops sending guardMs before the earliest possible end.
    const w = world({ pacerLimit: L });
    const net = { ...w, net: latency(20, 99) };
    const t0 = w.clock.now();
    await pacedCommand(net, w.key.token, w.key.public_key_id);
    await w.clock.sleep(t0 + W - 15 - w.clock.now());
    const statuses = await Promise.all(
      Array.from({ length: 2 * L }, () => pacedCommand(net, w.key.token, w.key.public_key_id)),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(served429(w.emu)).toBe(0);
  });

  it("C10/I3: the limit is learned from X-RateLimit-Limit when it is lower than the assumed 120 — zero 429s", async () => {
    const w = world({ limit: 20 }); // pacer assumes 120 until the first answer
    const statuses = await Promise.all(
      Array.from({ length: 60 }, () => pacedCommand(w, w.key.token, w.key.public_key_id)),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(served429(w.emu)).toBe(0);
    expect(w.pacer.snapshot(w.key.public_key_id).limit).toBe(20);
    expect(w.events).toContainEqual({ type: "limit-learned", apiKeyId: w.key.public_key_id, limit: 20 });
  });

  it("I1: two processes sharing one WindowStore on one key stay inside the window — zero 429s", async () => {
    const w = world();
    const store = createMemoryWindowStore();
    const a = createPacer({ clock: w.clock, windowMs: W, initialLimit: L, store });
    const b = createPacer({ clock: w.clock, windowMs: W, initialLimit: L, store });
    const statuses = await Promise.all(
      Array.from({ length: 3 * L }, (_, i) =>
        pacedCommand({ ...w, pacer: i % 2 === 0 ? a : b, net: latency(20, i) }, w.key.token, w.key.public_key_id),
      ),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(served429(w.emu)).toBe(0);
  });

  it("C3/C12: a window started by another client is respected via Retry-After: one 429, nothing sent before it ends", async () => {
    const w = world();
    // Another client (no pacer) spends the whole window first.
    for (let i = 0; i < L; i++) expect((await get(w.emu, w.key.token)).status).toBe(200);
    const statuses = await Promise.all(
      Array.from({ length: L }, () => pacedCommand(w, w.key.token, w.key.public_key_id)),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    const limited = w.log.filter((s) => s.status === 429);
    expect(limited).toHaveLength(1); // the pause held back every queued request of the key
    const hit = limited[0];
    const resumeAt = hit.receivedAt + Number(hit.retryAfter) * 1000;
    expect(w.log.filter((s) => s.sentAt > hit.receivedAt && s.sentAt < resumeAt)).toHaveLength(0);
    expect(w.events.filter((e) => e.type === "pause")).toMatchObject([
      { reason: "retry-after", retryAfterMs: Number(hit.retryAfter) * 1000 },
    ]);
  });

  it("C12: Retry-After: 0 (fault retry_after_zero) pauses the whole key for ≥ the floor — no busy loop", async () => {
    const w = world({ random: () => 0 });
    w.emu.control.addFault({ method: "GET", path: "/context", kind: "retry_after_zero", times: 3 });
    const statuses = await Promise.all(
      Array.from({ length: 8 }, () => pacedCommand(w, w.key.token, w.key.public_key_id)),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    const limited = w.log.filter((s) => s.status === 429);
    expect(limited).toHaveLength(3);
    for (const hit of limited) {
      expect(hit.retryAfter).toBe("0");
      expect(w.log.filter((s) => s.sentAt > hit.receivedAt && s.sentAt < hit.receivedAt + 250)).toHaveLength(0);
    }
    expect(
      w.events.filter((e) => e.type === "pause").every((e) => e.type === "pause" && e.reason === "retry-after-zero"),
    ).toBe(true);
  });

  it("C12: a limiter 429 without Retry-After (fault rate_limit_no_header) backs off exponentially for the whole key", async () => {
    const w = world({ random: () => 0.5 });
    w.emu.control.addFault({ method: "GET", path: "/context", kind: "rate_limit_no_header", times: 2 });
    const statuses = await Promise.all(
      Array.from({ length: 5 }, () => pacedCommand(w, w.key.token, w.key.public_key_id)),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    const limited = w.log.filter((s) => s.status === 429);
    expect(limited).toHaveLength(2);
    expect(limited.every((s) => s.retryAfter === null)).toBe(true);
    const pauses = w.events.filter((e) => e.type === "pause");
    expect(pauses).toHaveLength(2);
    for (const [i, hit] of limited.entries()) {
      const p = pauses[i];
      if (p.type !== "pause") throw new Error("unreachable");
      expect(p.reason).toBe("backoff");
      expect(p.untilMs - hit.receivedAt).toBeGreaterThanOrEqual(1000); // backoff(0) at random 0.5
      expect(w.log.filter((s) => s.sentAt > hit.receivedAt && s.sentAt < p.untilMs)).toHaveLength(0);
    }
  });

  it("C12: a proxy's 429 with an HTTP-date Retry-After (fault proxy_429_date) pauses until that date", async () => {
    const w = world({ random: () => 0 });
    w.emu.control.addFault({ method: "GET", path: "/context", kind: "proxy_429_date", retry_after_seconds: 4 });
    const statuses = await Promise.all(
      Array.from({ length: 5 }, () => pacedCommand(w, w.key.token, w.key.public_key_id)),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    const limited = w.log.filter((s) => s.status === 429);
    expect(limited).toHaveLength(1);
    const until = Date.parse(limited[0].retryAfter!);
    expect(until).toBeGreaterThan(limited[0].receivedAt + 3000);
    expect(w.log.filter((s) => s.sentAt > limited[0].receivedAt && s.sentAt < until)).toHaveLength(0);
    expect(w.events.find((e) => e.type === "pause")).toMatchObject({ reason: "retry-after" });
  });

  it("C11/C12: a `Retry-After: 0` 429 proves no window over — the window's last slot is used, the next send waits for the server's end, 0 × 429 of our own", async () => {
    const limit = 4;
    const w = world({ limit, pacerLimit: limit });
    const run = () => pacedCommand(w, w.key.token, w.key.public_key_id);
    for (let i = 0; i < limit - 1; i++) expect(await run()).toBe(200);
    w.emu.control.addFault({ method: "GET", path: "/context", kind: "retry_after_zero", times: 1 });
    const statuses = await Promise.all([run(), run()]);
    expect(statuses).toEqual([200, 200]);
    expect(served429(w.emu)).toBe(1); // the injected one only: none from the emulator's limiter
    const ok = w.log.filter((s) => s.status === 200).map((s) => s.sentAt);
    const windowEnd = ok[0] + W;
    // C6: the 429 was not counted, so one of the two still fits the first window; the other does not.
    expect(ok.filter((t) => t < windowEnd)).toHaveLength(limit);
    expect(ok.filter((t) => t >= windowEnd)).toHaveLength(1);
  });

  it("C6: the 429 spent no quota — after the pause all L commands fit into one fresh window", async () => {
    const w = world();
    w.emu.control.addFault({ method: "GET", path: "/context", kind: "retry_after_zero", times: 1 });
    const statuses = await Promise.all(
      Array.from({ length: L }, () => pacedCommand(w, w.key.token, w.key.public_key_id)),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(served429(w.emu)).toBe(1);
    const ok = w.log.filter((s) => s.status === 200).map((s) => s.sentAt);
    expect(ok).toHaveLength(L);
    // Had the 429 been charged, the L-th send would have waited for the next window.
    expect(Math.max(...ok) - Math.min(...ok)).toBeLessThan(W);
  });
});
