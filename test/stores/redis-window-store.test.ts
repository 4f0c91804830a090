/**
 * The Redis WindowStore against a real redis-server started by this file: the window-store
 * conformance suite (same semantics as the memory store), a differential test against the memory
 * store's pure transitions, N=4 processes on one key in a simulated fixed-window server, the shared
 * 429 pause, and failover/recovery when the server is stopped mid-test.
 */
import fc from "fast-check";
import Redis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryWindowStore } from "../../pacing";
import type { WindowSnapshot, WindowStore } from "../../pacing";
import { createRedisWindowStore, type RedisWindowStoreEvent } from "../../stores/redis-window-store";
import { describeWindowStore } from "../pacing/window-store-conformance";
import { freePort } from "../support/process";
import { startRedis, type RedisServer } from "../support/redis";
import { maxPerWindow, simulate } from "./window-sim";

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server?.stop();
});

let keyN = 0;
const freshKey = (label: string) => `${label}-${++keyN}-${Math.random().toString(36).slice(2, 8)}`;

describeWindowStore("redis", async () => ({ store: createRedisWindowStore({ redis: server.url }) }));

describe("redis WindowStore: shared across processes", () => {
  const W = 3000;
  const G = 25;
  const T0 = 1_800_000_000_000;
  const stores: WindowStore[] = [];
  const open = (opts: Partial<Parameters<typeof createRedisWindowStore>[0]> = {}) => {
    const s = createRedisWindowStore({ redis: server.url, ...opts });
    stores.push(s);
    return s;
  };
  afterAll(async () => {
    for (const s of stores) await s.close();
  });

  it("I1: the Lua port makes the same decisions as the memory store (differential, random operation sequences)", async () => {
    const op = fc.oneof(
      fc.record({
        t: fc.constant("reserve" as const),
        dt: fc.integer({ min: 0, max: 2500 }),
        limit: fc.integer({ min: 1, max: 5 }),
        spacing: fc.constantFrom(0, 7, 333.25),
        burst: fc.integer({ min: 1, max: 4 }),
      }),
      fc.record({
        t: fc.constant("confirm" as const),
        dt: fc.integer({ min: 0, max: 800 }),
        back: fc.integer({ min: 0, max: 2 }),
      }),
      fc.record({
        t: fc.constant("observe" as const),
        dt: fc.integer({ min: 0, max: 500 }),
        remaining: fc.integer({ min: -1, max: 6 }),
        back: fc.integer({ min: 0, max: 2 }),
        withOrd: fc.boolean(),
        slack: fc.integer({ min: 0, max: 3 }),
      }),
      fc.record({
        t: fc.constant("pause" as const),
        dt: fc.integer({ min: -500, max: 4000 }),
        back: fc.integer({ min: 0, max: 3 }),
        nullId: fc.boolean(),
        closes: fc.boolean(),
      }),
      fc.record({ t: fc.constant("refund" as const), back: fc.integer({ min: 0, max: 2 }) }),
      fc.record({ t: fc.constant("peek" as const), dt: fc.integer({ min: 0, max: 5000 }) }),
    );
    const redisStore = open();
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
        const memory = createMemoryWindowStore();
        const key = freshKey("diff");
        let now = T0;
        const ids: string[] = [];
        const grants: { ord?: number; sendAt: number }[] = [];
        const pick = (back: number) => ids[ids.length - 1 - back] ?? "none";
        for (const o of ops) {
          const both = async <T>(f: (s: WindowStore) => Promise<T>) => [await f(memory), await f(redisStore)] as const;
          let pair: readonly [unknown, unknown];
          switch (o.t) {
            case "reserve": {
              now += o.dt;
              const p = { limit: o.limit, windowMs: W, spacingMs: o.spacing, guardMs: G, burst: o.burst, now };
              pair = await both((s) => s.reserve(key, p));
              const d = pair[0] as { granted: boolean; windowId?: string; ord?: number; sendAt?: number };
              if (d.granted) {
                ids.push(d.windowId!);
                grants.push({ ord: d.ord, sendAt: d.sendAt! });
              }
              break;
            }
            case "confirm":
              now += o.dt;
              pair = await both((s) => s.confirmWindowStart(key, pick(o.back), now));
              break;
            case "observe":
              now += o.dt;
              {
                const g = grants[grants.length - 1 - o.back];
                const extra = o.withOrd && g ? { ord: g.ord, sentAt: g.sendAt, slack: o.slack } : {};
                pair = await both((s) =>
                  s.observe(key, { windowId: pick(o.back), remaining: o.remaining, limit: 5, now, ...extra }),
                );
              }
              break;
            case "pause":
              pair = await both((s) => s.pauseUntil(key, now + o.dt, o.nullId ? null : pick(o.back), o.closes));
              break;
            case "refund":
              pair = await both((s) => s.refund(key, pick(o.back)));
              break;
            case "peek":
              pair = await both((s) => s.peek(key, now + o.dt));
              break;
          }
          expect(pair[1], JSON.stringify(o)).toEqual(pair[0]);
        }
        await memory.close();
      }),
      { numRuns: 120 },
    );
  });

  it("C2/I1: two processes share one counter and one window per key", async () => {
    const a = open();
    const b = open();
    const key = freshKey("shared");
    const p = (now: number) => ({ limit: 3, windowMs: W, spacingMs: 0, guardMs: G, now });
    const r1 = await a.reserve(key, p(T0));
    const r2 = await b.reserve(key, p(T0 + 1));
    const r3 = await a.reserve(key, p(T0 + 2));
    expect([r1.granted, r2.granted, r3.granted]).toEqual([true, true, true]);
    if (!r1.granted || !r2.granted) throw new Error("unreachable");
    expect(r2.windowId).toBe(r1.windowId);
    expect(r2.state.count).toBe(2);
    expect((await b.reserve(key, p(T0 + 3))).granted).toBe(false);
    const seen = await b.peek(key, T0 + 4);
    expect(seen).toMatchObject({ windowId: r1.windowId, count: 3, windowStart: T0 });
  });

  it("C12: a 429 pause set by one process stops every process on the key", async () => {
    const [a, b, c] = [open(), open(), open()];
    const key = freshKey("pause");
    const p = (now: number) => ({ limit: 10, windowMs: W, spacingMs: 0, guardMs: G, now });
    const first = await a.reserve(key, p(T0));
    if (!first.granted) throw new Error("expected a grant");
    await a.pauseUntil(key, T0 + 42_000, first.windowId, true);
    for (const s of [b, c]) {
      expect(await s.reserve(key, p(T0 + 100))).toMatchObject({ granted: false, retryAt: T0 + 42_000 });
    }
    // C12: never shortened by another process's shorter pause.
    expect((await c.pauseUntil(key, T0 + 1000, null, true)).pausedUntil).toBe(T0 + 42_000);
    expect(await b.reserve(key, p(T0 + 42_000))).toMatchObject({ granted: true, sendAt: T0 + 42_000 });
  });

  it("C3/C8/I1: four processes on one key never exceed the limit in any server window", async () => {
    const four = [open(), open(), open(), open()];
    const limit = 12;
    const sim = await simulate(
      { stores: four, key: freshKey("four"), limit, windowMs: W, guardMs: G, latencyMs: 40, start: T0 },
      T0 + 10 * W,
    );
    expect(sim.rejected429).toBe(0);
    expect(maxPerWindow(sim)).toBeLessThanOrEqual(limit);
    // Not a vacuous pass: the key was actually used near its capacity.
    expect(sim.windows.length).toBeGreaterThanOrEqual(8);
    expect(sim.windows.slice(0, -1).every((w) => w.count >= limit - 1)).toBe(true);
    // C8: each window's sends are spread, not a burst.
    const firstWindow = sim.sends.filter((t) => t < sim.windows[1].start).sort((x, y) => x - y);
    for (let i = 1; i < firstWindow.length; i++)
      expect(firstWindow[i] - firstWindow[i - 1]).toBeGreaterThanOrEqual((W - G) / limit - 1e-6);
  });

  it("C8/I1: four processes asking in bursts (no spacing) still never exceed the limit: the count is atomic", async () => {
    const four = [open(), open(), open(), open()];
    const limit = 10;
    const sim = await simulate(
      { stores: four, key: freshKey("burst"), limit, windowMs: W, guardMs: G, latencyMs: 40, start: T0, spacingMs: 0 },
      T0 + 8 * W,
    );
    expect(sim.rejected429).toBe(0);
    expect(maxPerWindow(sim)).toBe(limit); // full, and not one more
    expect(sim.windows.length).toBeGreaterThanOrEqual(6);
  });

  it("I1: keys are written under the configured prefix and expire after their times have passed", async () => {
    const s = open({ keyPrefix: "test-prefix:", ttlGraceMs: 60_000 });
    const key = freshKey("ttl");
    await s.reserve(key, { limit: 2, windowMs: W, spacingMs: 0, guardMs: G, now: T0 });
    const probe = new Redis(server.url);
    try {
      const keys = await probe.keys(`test-prefix:*${key}*`);
      expect(keys.sort()).toEqual([`test-prefix:window-seq:{${key}}`, `test-prefix:window:{${key}}`]);
      const ttl = await probe.pttl(`test-prefix:window:{${key}}`);
      // Unconfirmed window: deadline T0 + 2W + G, so TTL ≈ 2W + G + grace.
      // (Between 2W + G and a confirmed window's W + G: the formula, not how fast this test ran.)
      expect(ttl).toBeGreaterThan(60_000 + 1.5 * W);
      expect(ttl).toBeLessThanOrEqual(60_000 + 2 * W + G);
      // Deleting the hash (an expiry) never reuses a windowId: the sequence key survives.
      await probe.del(`test-prefix:window:{${key}}`);
      const again = await s.reserve(key, { limit: 2, windowMs: W, spacingMs: 0, guardMs: G, now: T0 + 1 });
      expect(again).toMatchObject({ granted: true, windowId: "2" });
    } finally {
      probe.disconnect();
    }
  });
});

describe("redis WindowStore: failover when Redis goes away, recovery when it returns", () => {
  it("I1: fails over to local pacing at 1/N, never exceeds the limit, reports it, and recovers", async () => {
    const own = await startRedis(); // this test kills its own server
    const W = 3000;
    const G = 25;
    const T0 = 1_900_000_000_000;
    const limit = 16;
    const events: RedisWindowStoreEvent[][] = [[], [], [], []];
    const clients = events.map(
      () => new Redis(own.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 50 }),
    );
    for (const c of clients) c.on("error", () => undefined);
    const four = clients.map((redis, i) =>
      createRedisWindowStore({
        redis,
        failover: { share: 1 / 4, commandTimeoutMs: 500, retryIntervalMs: 0 },
        onEvent: (e) => events[i].push(e),
      }),
    );
    let restarted: Awaited<ReturnType<typeof startRedis>> | undefined;
    try {
      const key = freshKey("failover");
      let phase: "up" | "down" | "back" = "up";
      let killAt = 0;
      let backAt = 0;
      const sim = await simulate(
        {
          stores: four,
          key,
          limit,
          windowMs: W,
          guardMs: G,
          latencyMs: 30,
          start: T0,
          async beforeEvent(now, srv) {
            const current = srv.windows.at(-1);
            // Worst moments: Redis dies when the shared window is nearly full, and comes back while
            // local sends are already in the server's current window.
            const inWindow = current !== undefined && now < current.start + W - 800;
            if (phase === "up" && now > T0 + 3 * W && inWindow && current.count >= limit / 2) {
              phase = "down";
              killAt = now;
              await own.stop();
            } else if (
              phase === "down" &&
              now > killAt + 3 * W &&
              inWindow &&
              current.start > killAt + W &&
              current.count >= 2
            ) {
              phase = "back";
              backAt = now;
              restarted = await startRedis({ port: own.port });
              // ioredis reconnects on its own; the stores use Redis again on their next call.
              const deadline = Date.now() + 10_000;
              while (clients.some((c) => c.status !== "ready") && Date.now() < deadline) {
                await new Promise((r) => setTimeout(r, 20));
              }
            }
          },
        },
        T0 + 16 * W,
      );
      expect(phase).toBe("back");
      expect(sim.rejected429).toBe(0);
      expect(maxPerWindow(sim)).toBeLessThanOrEqual(limit);
      for (const e of events) {
        // Reported, not silent: one failover (with its error) then one recovery.
        expect(e.map((x) => x.type)).toEqual(["store-failover", "store-recovered"]);
        expect((e[0] as { error: unknown }).error).toBeInstanceOf(Error);
      }
      // Sending never stopped: local pacing granted sends while Redis was down…
      const down = sim.sends.filter((t) => t > killAt && t < backAt);
      expect(down.length).toBeGreaterThanOrEqual(limit / 4);
      // …at no more than 1/N of the limit per process per window-length interval.
      // …and after recovery the shared window is back in charge (full capacity again).
      const after = sim.windows.filter((w) => w.start > backAt + 2 * W);
      expect(after.length).toBeGreaterThan(0);
      expect(Math.max(...after.map((w) => w.count))).toBeGreaterThan(limit / 4 + 1);
      const snapshot: WindowSnapshot = await four[0].peek(key, T0 + 16 * W);
      expect(snapshot.windowId === null || /^\d+$/.test(snapshot.windowId)).toBe(true); // a Redis window again
    } finally {
      for (const s of four) await s.close();
      for (const c of clients) c.disconnect();
      await restarted?.stop();
      await own.stop();
    }
  });
});

describe("redis WindowStore: failure modes", () => {
  const W = 3000;
  const G = 25;
  const T0 = 1_950_000_000_000;
  const p = (now: number, limit = 8) => ({ limit, windowMs: W, spacingMs: 0, guardMs: G, now });

  it("I1: Redis unreachable from the start → local pacing after one blocked window, reported once", async () => {
    const events: RedisWindowStoreEvent[] = [];
    const port = await freePort(); // nothing listens there
    const store = createRedisWindowStore({
      redis: `redis://127.0.0.1:${port}`,
      failover: { share: 1 / 4, commandTimeoutMs: 300 },
      onEvent: (e) => events.push(e),
    });
    try {
      // Others may have filled the server window just before: one full window is blocked first.
      expect(await store.reserve("k", p(T0))).toMatchObject({ granted: false, retryAt: T0 + W + G });
      const first = await store.reserve("k", p(T0 + W + G));
      expect(first).toMatchObject({ granted: true, sendAt: T0 + W + G });
      if (!first.granted) throw new Error("unreachable");
      expect(first.windowId).toMatch(/^local1:/);
      // 1/4 of 8 = 2 per window, spaced (W + G) / 2 apart so no W-interval holds more.
      const second = await store.reserve("k", p(T0 + W + G));
      expect(second).toMatchObject({ granted: true, sendAt: T0 + W + G + (W + G) / 2 });
      expect((await store.reserve("k", p(T0 + W + G + (W + G) / 2))).granted).toBe(false);
      // The local store honours the same operations (confirm/observe/pause/refund) with its own ids.
      const confirmed = await store.confirmWindowStart("k", first.windowId, T0 + W + G + 20);
      expect(confirmed.windowEnd).toBe(T0 + W + G + 20 + W + G);
      const paused = await store.pauseUntil("k", T0 + 10 * W, first.windowId, true);
      expect(paused).toMatchObject({ windowId: null, pausedUntil: T0 + 10 * W });
      expect(events.map((e) => e.type)).toEqual(["store-failover"]);
    } finally {
      await store.close();
    }
  });

  it("I1/C3: Redis answering again without a key's window (a restart without its data, an eviction) pauses the key for one window, for every process on it", async () => {
    const events: RedisWindowStoreEvent[] = [];
    const prefix = `lost-${Math.random().toString(36).slice(2, 8)}:`;
    const a = createRedisWindowStore({ redis: server.url, keyPrefix: prefix, onEvent: (e) => events.push(e) });
    const b = createRedisWindowStore({ redis: server.url, keyPrefix: prefix });
    const admin = new Redis(server.url);
    try {
      const key = freshKey("lost");
      for (let i = 0; i < 6; i++) expect((await a.reserve(key, p(T0 + i))).granted).toBe(true);
      // The server counted those six; Redis now forgets them (what a restart without persistence does).
      expect(await admin.del(`${prefix}window:{${key}}`, `${prefix}window-seq:{${key}}`)).toBe(2);
      // Without the pause, the fresh record would grant 8 more into the server's window that holds 6.
      const next = await a.reserve(key, p(T0 + 100));
      expect(next).toMatchObject({ granted: false, retryAt: T0 + 100 + W + G });
      expect(events).toEqual([{ type: "store-state-lost", key }]);
      // The pause is in Redis: another process that saw nothing waits too.
      expect(await b.reserve(key, p(T0 + 200))).toMatchObject({ granted: false, retryAt: T0 + 100 + W + G });
      // One window later the key sends again, at its full limit, and nothing more is reported.
      const later = await a.reserve(key, p(T0 + 100 + W + G));
      expect(later.granted).toBe(true);
      expect(events).toHaveLength(1);
    } finally {
      admin.disconnect();
      await a.close();
      await b.close();
    }
  });

  it("I1: a Redis that stops answering (CLIENT PAUSE) fails over after commandTimeoutMs, then recovers", async () => {
    const events: RedisWindowStoreEvent[] = [];
    const store = createRedisWindowStore({
      redis: { host: "127.0.0.1", port: server.port },
      failover: { commandTimeoutMs: 200, retryIntervalMs: 0 },
      onEvent: (e) => events.push(e),
    });
    const admin = new Redis(server.url);
    const key = freshKey("hang");
    try {
      expect((await store.reserve(key, p(T0))).granted).toBe(true);
      // Paused for 15× the store's timeout: only that timeout can end the store's wait in time.
      await admin.call("CLIENT", "PAUSE", "3000", "ALL");
      const during = await store.reserve(key, p(T0 + 10));
      // Answered while Redis still held every command: the local pacer's decision, not Redis's.
      expect(during).toMatchObject({ granted: false, retryAt: T0 + 10 + W + G });
      expect(events.map((e) => e.type)).toEqual(["store-failover"]);
      await admin.ping(); // answered once the pause is over
      const after = await store.reserve(key, p(T0 + 20));
      expect(events.map((e) => e.type)).toEqual(["store-failover", "store-recovered"]);
      expect(after.granted).toBe(true); // no local sends happened, so nothing to pause on recovery
      if (after.granted) expect(after.windowId).toMatch(/^\d+$/);
    } finally {
      await store.close();
      admin.disconnect();
    }
  });

  it("I1: a client passed in is used as is and left open by close()", async () => {
    const client = new Redis(server.url);
    const store = createRedisWindowStore({ redis: client, keyPrefix: "own-client:" });
    const key = freshKey("own");
    expect((await store.reserve(key, p(T0))).granted).toBe(true);
    await store.close();
    expect(await client.exists(`own-client:window:{${key}}`)).toBe(1);
    client.disconnect();
  });
});
