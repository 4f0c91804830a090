import { describe, expect, it } from "vitest";
import { VirtualClock } from "../../runtime/clock";
import { createPacer, type PacingEvent, type Pacer, type ReleaseResult } from "../../pacing";
import { createMemoryWindowStore } from "../../pacing";
import type { WindowStore } from "../../pacing";
import { withReserve } from "./emulator-world";

const W = 3000;
const G = 25;
/** The next window's margin past the server's latest possible end: whole ms + clock drift (2 + W / 2000). */
const E = 2 + Math.ceil(W / 2000);
const KEY = "key-a";
const spacingFor = (limit: number) => Math.floor((W - G) / limit);
const flush = () => new Promise<void>((r) => setImmediate(r));

function setup(extra: Partial<Parameters<typeof createPacer>[0]> = {}) {
  const clock = new VirtualClock();
  const events: PacingEvent[] = [];
  const pacer = createPacer({
    clock,
    windowMs: W,
    guardMs: G,
    initialLimit: 3,
    random: () => 0,
    onEvent: (e) => events.push(e),
    ...extra,
  });
  return { clock, pacer, events, t0: clock.now() };
}

/** One attempt through the pacer: wait for the slot, "send", answer after `latencyMs`. */
async function attempt(
  pacer: Pacer,
  clock: VirtualClock,
  latencyMs: number,
  result: Partial<ReleaseResult> = { status: 200 },
  key = KEY,
): Promise<number> {
  const ticket = await pacer.acquire(key);
  const sentAt = clock.now();
  await clock.sleep(latencyMs);
  ticket.release({ receivedAt: clock.now(), ...result });
  return sentAt;
}

describe("pacer decisions (C3, C8, C12, I1, I3) on a VirtualClock", () => {
  it("I3: the 4th send of a limit-3 key waits for first answer + W + a margin (not first send + W)", async () => {
    const { clock, pacer, t0 } = setup({ burst: 1 });
    const sent = await Promise.all(Array.from({ length: 4 }, () => attempt(pacer, clock, 400)));
    const spacing = spacingFor(3);
    expect(sent.slice(0, 3).map((t) => t - t0)).toEqual([0, spacing, 2 * spacing]);
    expect(sent[3] - t0).toBe(400 + W + E);
  });

  it("I3: slow round trips raise the send guard (the model needs one-way latency < guard); the window end needs no latency margin", async () => {
    const { clock, pacer, t0 } = setup({ initialLimit: 1 });
    const sent = await Promise.all(Array.from({ length: 3 }, () => attempt(pacer, clock, 60)));
    // The server counted the first request before it answered: the next window opens E after that answer.
    expect(sent[1] - t0).toBe(60 + W + E);
    expect(sent[2] - sent[1]).toBe(60 + W + E);
    // The guard in force (the slowest recent round trip) shortens the spacing: the last send of a
    // window must still land inside it.
    const b = setup({ initialLimit: 10, maxConcurrency: 1, burst: 1 });
    const spaced = [];
    for (let i = 0; i < 3; i++) spaced.push(await attempt(b.pacer, b.clock, 60));
    expect(spaced[1] - spaced[0]).toBe(Math.floor((W - G) / 10)); // granted before the slow trip was seen
    expect(spaced[2] - spaced[1]).toBe(Math.floor((W - 60) / 10));
    const c = setup({ initialLimit: 10, maxConcurrency: 1, burst: 1 });
    const capped = [];
    for (let i = 0; i < 3; i++) capped.push(await attempt(c.pacer, c.clock, 200));
    expect(capped[2] - capped[1]).toBe(Math.floor((W - W / 40) / 10)); // capped at windowMs / 40
  });

  it("C8: with burst 1, sends are spread evenly at ≈ (W − guard) / limit, never bursted", async () => {
    const { clock, pacer, t0 } = setup({ initialLimit: 10, maxConcurrency: 10, burst: 1 });
    const sent = await Promise.all(Array.from({ length: 10 }, () => attempt(pacer, clock, 5)));
    const gaps = sent.slice(1).map((t, i) => t - sent[i]);
    for (const g of gaps) expect(g).toBe(spacingFor(10));
    expect(sent[0]).toBe(t0);
  });

  it("C3: at most `limit` sends in any window of the simulated server, over many windows", async () => {
    const { clock, pacer } = setup({ initialLimit: 5 });
    const sent = await Promise.all(Array.from({ length: 40 }, () => attempt(pacer, clock, 30)));
    // Simulated server: window starts at the first arrival (send + 0..30 ms) and lasts W.
    for (const arrival of [0, 30]) {
      let start = -Infinity;
      let count = 0;
      for (const t of sent.map((s) => s + arrival)) {
        if (t >= start + W) {
          start = t;
          count = 0;
        }
        count += 1;
        expect(count).toBeLessThanOrEqual(5);
      }
    }
  });

  it("C8: at most maxConcurrency attempts of a key are in flight", async () => {
    const { clock, pacer } = setup({ initialLimit: 100, maxConcurrency: 2 });
    let inFlight = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        const t = await pacer.acquire(KEY);
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await clock.sleep(500); // slow server: the cap, not the spacing, is the bottleneck
        inFlight -= 1;
        t.release({ receivedAt: clock.now(), status: 200 });
      }),
    );
    expect(peak).toBe(2);
  });

  it("G2: one FIFO queue per key — grants come in arrival order", async () => {
    const { clock, pacer } = setup({ initialLimit: 2 });
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const t = await pacer.acquire(KEY);
        order.push(i);
        await clock.sleep(10);
        t.release({ receivedAt: clock.now(), status: 200 });
      }),
    );
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("C2: keys are paced independently", async () => {
    const { clock, pacer, t0 } = setup({ initialLimit: 1 });
    const [a, b] = await Promise.all([
      attempt(pacer, clock, 10, { status: 200 }, "k1"),
      attempt(pacer, clock, 10, { status: 200 }, "k2"),
    ]);
    expect([a - t0, b - t0]).toEqual([0, 0]);
  });

  it("C12: a 429 with Retry-After pauses the WHOLE key: no queued request is granted before it ends", async () => {
    const { clock, pacer, events, t0 } = setup({ initialLimit: 100, maxConcurrency: 1 });
    const first = await pacer.acquire(KEY);
    const queued = [pacer.acquire(KEY), pacer.acquire(KEY), pacer.acquire(KEY)];
    await clock.sleep(20);
    first.release({ receivedAt: clock.now(), status: 429, isRateLimit: true, retryAfter: "2" });
    const grantedAt: number[] = [];
    for (const p of queued) {
      const t = await p;
      grantedAt.push(clock.now());
      t.release({ receivedAt: clock.now() + 1, status: 200 });
    }
    expect(grantedAt[0]).toBeGreaterThanOrEqual(t0 + 20 + 2000);
    expect(events).toContainEqual({
      type: "pause",
      apiKeyId: KEY,
      untilMs: t0 + 20 + 2000,
      reason: "retry-after",
      retryAfterMs: 2000,
    });
    expect(pacer.snapshot(KEY).pausedUntil).toBeNull();
  });

  it("C12: the pause adds a random margin (random = 1 − ε → up to 250 ms + 5 %)", async () => {
    const { clock, pacer, events } = setup({ random: () => 0.999 });
    const t = await pacer.acquire(KEY);
    const at = clock.now();
    t.release({ receivedAt: at, status: 429, isRateLimit: true, retryAfter: "10" });
    const pause = events.find((e) => e.type === "pause");
    expect(pause?.type === "pause" && pause.untilMs - at).toBeCloseTo(10_000 + 0.999 * 750, 6);
    expect(pacer.snapshot(KEY).pausedUntil).toBe(pause?.type === "pause" ? pause.untilMs : -1);
  });

  it("C12: Retry-After: 0 pauses at least the floor — never a busy loop", async () => {
    const { clock, pacer, events } = setup({ initialLimit: 100 });
    const sent: number[] = [];
    for (let i = 0; i < 4; i++) {
      const t = await pacer.acquire(KEY);
      sent.push(clock.now());
      t.release({ receivedAt: clock.now(), status: 429, isRateLimit: true, retryAfter: "0", attempt: i });
    }
    const gaps = sent.slice(1).map((t, i) => t - sent[i]);
    expect(gaps[0]).toBeGreaterThanOrEqual(250);
    expect(gaps[1]).toBeGreaterThanOrEqual(500); // repeated 0 escalates like backoff
    expect(gaps[2]).toBeGreaterThanOrEqual(1000);
    expect(
      events.filter((e) => e.type === "pause").every((e) => e.type === "pause" && e.reason === "retry-after-zero"),
    ).toBe(true);
  });

  it("C12: a 429 without Retry-After (proxy) pauses with bounded exponential backoff", async () => {
    const { clock, pacer, events } = setup({ random: () => 0.5 });
    const t = await pacer.acquire(KEY);
    t.release({ receivedAt: clock.now(), status: 429, isRateLimit: true, attempt: 2 });
    const e = events.find((x) => x.type === "pause");
    expect(e).toMatchObject({ reason: "backoff", retryAfterMs: null, untilMs: clock.now() + 4000 });
  });

  it("C12: a proxy's HTTP-date Retry-After is honoured", async () => {
    const { clock, pacer, events } = setup();
    const t = await pacer.acquire(KEY);
    const now = clock.now();
    t.release({ receivedAt: now, status: 429, isRateLimit: true, retryAfter: new Date(now + 7000).toUTCString() });
    expect(events.find((x) => x.type === "pause")).toMatchObject({ reason: "retry-after", retryAfterMs: 7000 });
    const next = await pacer.acquire(KEY);
    expect(clock.now()).toBeGreaterThanOrEqual(now + 7000);
    next.release({ receivedAt: clock.now(), status: 200 });
  });

  it("C6/C12: after the pause the next window starts fresh (a full window does not carry over)", async () => {
    const { clock, pacer, t0 } = setup({ initialLimit: 2 });
    const a = await pacer.acquire(KEY);
    a.release({ receivedAt: clock.now() + 1, status: 200, limit: 2, remaining: 0 }); // window full
    const b = await pacer.acquire(KEY); // waits for the end of the full window
    expect(clock.now()).toBe(t0 + 1 + W + E);
    b.release({ receivedAt: clock.now(), status: 429, isRateLimit: true, retryAfter: "3" });
    const [c, d] = await Promise.all([pacer.acquire(KEY), pacer.acquire(KEY)]);
    expect(c.waitedMs).toBe(3000);
    // The pause proved the server's window reset (C11), so the fresh window's allowance (2) applies.
    expect(d.waitedMs).toBe(3000);
    c.release({ receivedAt: clock.now(), status: 200 });
    d.release({ receivedAt: clock.now(), status: 200 });
  });

  it("C10: X-RateLimit-Remaining raises the used count (another client on the key)", async () => {
    const { clock, pacer, t0 } = setup({ initialLimit: 10 });
    const a = await pacer.acquire(KEY);
    a.release({ receivedAt: clock.now() + 2, status: 200, limit: 10, remaining: 0 });
    await flush();
    expect(pacer.snapshot(KEY)).toMatchObject({ limit: 10, remaining: 0, windowEndsAt: t0 + 2 + W + E });
    await pacer.acquire(KEY);
    expect(clock.now()).toBe(t0 + 2 + W + E);
  });

  it("A5/C10: limits are learned from /context or X-RateLimit-Limit, invalid ones ignored", async () => {
    const { clock, pacer, events } = setup();
    expect(pacer.snapshot(KEY).limit).toBe(3);
    pacer.learnLimit(KEY, 60);
    pacer.learnLimit(KEY, 60); // unchanged: no second event
    for (const bad of [0, -1, 1.5, Number.NaN, 10_001]) pacer.learnLimit(KEY, bad);
    expect(pacer.snapshot(KEY).limit).toBe(60);
    const t = await pacer.acquire(KEY);
    t.release({ receivedAt: clock.now(), status: 200, limit: 90, remaining: 89 });
    expect(pacer.snapshot(KEY).limit).toBe(90);
    expect(events.filter((e) => e.type === "limit-learned")).toEqual([
      { type: "limit-learned", apiKeyId: KEY, limit: 60 },
      { type: "limit-learned", apiKeyId: KEY, limit: 90 },
    ]);
    expect(createPacer({ clock }).snapshot("fresh")).toEqual({
      limit: 120,
      remaining: null,
      pausedUntil: null,
      windowEndsAt: null,
    });
  });

  it("G2: abort — an aborted waiter leaves the shared queue cleanly and its slot goes to the next waiter", async () => {
    const { clock, pacer, t0 } = setup({ initialLimit: 3 });
    const first = await pacer.acquire(KEY);
    const ac = new AbortController();
    const aborted = pacer.acquire(KEY, ac.signal);
    const third = pacer.acquire(KEY);
    ac.abort(new Error("caller gave up"));
    await expect(aborted).rejects.toThrow("caller gave up");
    const t = await third;
    expect(clock.now() - t0).toBe(spacingFor(3)); // the second slot, not the third
    first.release({ receivedAt: clock.now(), status: 200 });
    t.release({ receivedAt: clock.now(), status: 200 });
    expect(pacer.snapshot(KEY).remaining).toBe(1);
  });

  it("G2: abort — an already-aborted signal rejects at once; a lone aborted waiter gives its slot back", async () => {
    const { clock, pacer } = setup({ initialLimit: 2 });
    const ac = new AbortController();
    ac.abort();
    await expect(pacer.acquire(KEY, ac.signal)).rejects.toBeDefined();
    const first = await pacer.acquire(KEY);
    const ac2 = new AbortController();
    const p = pacer.acquire(KEY, ac2.signal); // reserved for sendAt = spacing later
    await clock.sleep(100);
    ac2.abort();
    await expect(p).rejects.toBeDefined();
    await clock.sleep(2000); // the pump wakes, finds nobody, refunds
    expect(pacer.snapshot(KEY).remaining).toBe(1);
    first.release({ receivedAt: clock.now(), status: 200 });
  });

  it("C8: release is idempotent — a second call frees no extra in-flight slot", async () => {
    const { clock, pacer } = setup({ initialLimit: 100, maxConcurrency: 1 });
    const a = await pacer.acquire(KEY);
    a.release({ receivedAt: clock.now(), status: 200 });
    a.release({ receivedAt: clock.now(), status: 200 });
    const b = await pacer.acquire(KEY);
    let cGranted = false;
    const c = pacer.acquire(KEY).then((t) => ((cGranted = true), t));
    await clock.sleep(5_000);
    expect(cGranted).toBe(false); // b still holds the only in-flight slot
    b.release({ receivedAt: clock.now(), status: 200 });
    (await c).release({ receivedAt: clock.now(), status: 200 });
  });

  it("C3/C6: a 401, a 503 without X-RateLimit-* or a reset says nothing about the window; a counted answer bounds it", async () => {
    const { clock, pacer } = setup();
    const a = await pacer.acquire(KEY);
    a.release({ receivedAt: clock.now() + 3, status: 401 });
    expect(pacer.snapshot(KEY).windowEndsAt).toBeNull();
    const b = await pacer.acquire(KEY);
    b.release({ receivedAt: clock.now() + 5, status: 503 }); // a proxy's, or refused before the limiter
    const c = await pacer.acquire(KEY);
    c.release({ receivedAt: clock.now() + 7 }); // transport failure: maybe never counted
    await clock.sleep(0);
    expect(pacer.snapshot(KEY).windowEndsAt).toBeNull(); // the server's window may not have started yet
    const d = await pacer.acquire(KEY);
    await clock.sleep(40);
    d.release({ receivedAt: clock.now(), status: 500, limit: 120, remaining: 119 }); // passed the limiter (C10)
    await clock.sleep(0);
    expect(pacer.snapshot(KEY).windowEndsAt).toBe(clock.now() + W + E);
  });

  it("C6/C10: a 503 without X-RateLimit-* (never counted) gives its slot back; a 500 with them does not", async () => {
    const { clock, pacer, t0 } = setup({ initialLimit: 3 });
    await attempt(pacer, clock, 10, { status: 200, limit: 3, remaining: 2 });
    await attempt(pacer, clock, 10, { status: 503 }); // refused before the limiter
    await attempt(pacer, clock, 10, { status: 500, limit: 3, remaining: 1 }); // counted (C10 headers)
    const fourth = await attempt(pacer, clock, 10, { status: 200, limit: 3, remaining: 0 });
    expect(fourth - t0).toBeLessThan(W); // the 503's slot was reused in the same window
    const fifth = await attempt(pacer, clock, 10);
    expect(fifth - t0).toBeGreaterThanOrEqual(10 + W + E); // three counted: the next window
  });

  it("I1: a store failure rejects the waiting request instead of sending unpaced", async () => {
    const broken: WindowStore = {
      ...createMemoryWindowStore(),
      reserve: async () => {
        throw new Error("redis down");
      },
    };
    const { pacer, events } = setup({ store: broken });
    await expect(pacer.acquire(KEY)).rejects.toThrow("redis down");
    expect(events.some((e) => e.type === "store-error")).toBe(true);
  });

  it("I7: window-wait events report waits for a full window", async () => {
    const { clock, pacer, events } = setup({ initialLimit: 1 });
    await Promise.all([attempt(pacer, clock, 10), attempt(pacer, clock, 10)]);
    expect(events.some((e) => e.type === "window-wait" && e.waitMs > 0)).toBe(true);
  });
});

describe("pacer priority lanes (recovery before new work) on a VirtualClock", () => {
  it("G4/I1: a recovery waiter queued behind new work is granted the next slot; new work keeps its FIFO order", async () => {
    const { clock, pacer } = setup({ initialLimit: 100, maxConcurrency: 1 });
    const first = await pacer.acquire(KEY);
    const order: string[] = [];
    const take = (name: string, priority?: "normal" | "recovery") =>
      pacer.acquire(KEY, undefined, undefined, priority).then((t) => {
        order.push(name);
        t.release({ receivedAt: clock.now() + 1, status: 200 });
      });
    const all = [take("n1"), take("n2"), take("r1", "recovery"), take("n3"), take("r2", "recovery")];
    await flush();
    first.release({ receivedAt: clock.now() + 1, status: 200 });
    await Promise.all(all);
    expect(order).toEqual(["r1", "r2", "n1", "n2", "n3"]);
  });

  it("C3: both lanes draw from one window: recovery takes the next slot, but never one beyond the limit", async () => {
    const { clock, pacer, t0 } = setup({ initialLimit: 2 });
    const sent: { name: string; at: number }[] = [];
    const take = (name: string, priority?: "normal" | "recovery") =>
      pacer.acquire(KEY, undefined, undefined, priority).then((t) => {
        sent.push({ name, at: clock.now() - t0 });
        t.release({ receivedAt: clock.now() + 10, status: 200 });
      });
    await Promise.all([take("n1"), take("n2"), take("n3"), take("r1", "recovery"), take("r2", "recovery")]);
    const windowEnd = 10 + W + E; // first answer + W + end margin
    expect(sent.map((s) => s.name)).toEqual(["n1", "r1", "r2", "n2", "n3"]); // n1 was granted before r1 queued
    expect(sent[1].at).toBe(spacingFor(2)); // r1: the window's second slot
    expect(sent[2].at).toBe(windowEnd); // r2: the window is full, so the next window's first slot
    expect(sent.filter((s) => s.at < windowEnd)).toHaveLength(2); // never more than the limit per window
  });

  it("C8: a recovery waiter with a deadline it cannot meet is rejected with when the key can send, like new work", async () => {
    const { clock, pacer } = setup({ initialLimit: 1 });
    const a = await pacer.acquire(KEY);
    a.release({ receivedAt: clock.now() + 10, status: 200 });
    await flush();
    await expect(pacer.acquire(KEY, undefined, clock.now() + 100, "recovery")).rejects.toMatchObject({
      code: "deadline_exceeded",
    });
  });
});

describe("pacer: a grant that comes back too late (I3)", () => {
  it("I3: a slot granted by a slow store past the window's last safe instant is given back; the send is decided afresh (a straddler of the next window)", async () => {
    const clock = new VirtualClock();
    const inner = createMemoryWindowStore();
    let delayMs = 0;
    const slow = withReserve(inner, async (key, params) => {
      const d = await inner.reserve(key, params);
      if (delayMs > 0) await clock.sleep(delayMs); // the answer crosses a congested link
      return d;
    });
    const pacer = createPacer({ clock, windowMs: W, guardMs: G, initialLimit: 2, random: () => 0, store: slow });
    const t0 = clock.now();
    const first = await pacer.acquire(KEY);
    await clock.sleep(10);
    first.release({ receivedAt: clock.now(), status: 200, limit: 2, remaining: 1 });
    delayMs = W; // the next grant arrives after the window's last safe send instant
    const late = pacer.acquire(KEY);
    await clock.sleep(W / 2);
    delayMs = 0;
    const ticket = await late;
    const sentAt = clock.now() - t0;
    ticket.release({ receivedAt: clock.now(), status: 200, limit: 2, remaining: 1 });
    // Not at its stale slot (10 ms) in the old window's tail, but decided again when it came back:
    // a straddler, counted in both windows — possible only because the late slot was given back
    // (without that the old window would hold 2 of 2 and the send would wait for its end).
    expect(sentAt).toBe(10 + W);
    expect(sentAt).toBeLessThan(10 + W + E);
    expect(await inner.peek(KEY, clock.now())).toMatchObject({ windowId: "2", count: 1 });
  });
});
