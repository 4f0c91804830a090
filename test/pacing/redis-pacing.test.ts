// The burst allowance and the re-dating through the Redis store's Lua scripts, across "processes"
// (pacers with their own Redis connections) on one key of the emulator, against a real redis-server
// started here. Decided by what the server counted, on one VirtualClock.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPacer, type Pacer, type WindowStore } from "../../pacing";
import { createRedisWindowStore } from "../../stores/redis-window-store";
import { startRedis, type RedisServer } from "../support/redis";
import { command, maxPerTenth, served429, serverWindows, world, type Job } from "./emulator-world";

let server: RedisServer;
const stores: WindowStore[] = [];
beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  for (const s of stores) await s.close();
  await server?.stop();
});

let prefixN = 0;
/** A process's own connection to the shared Redis; `prefix` names the shared state. */
function processPacer(j: Job, prefix: string, limit: number, windowMs: number): Pacer {
  const store = createRedisWindowStore({ redis: server.url, keyPrefix: prefix });
  stores.push(store);
  return createPacer({ clock: j.clock, windowMs, initialLimit: limit, maxConcurrency: 4, store });
}

describe("pacer × Redis store × emulator (C3, C8, I1)", () => {
  const [L, W] = [40, 4000];

  it("C8/I1: two processes, 3×L commands at once — ≤ 2 × maxConcurrency in flight, ≤ allowance + L/10 per tenth of a server window, 0 × 429", async () => {
    const j = world(L, W);
    const prefix = `burst-${++prefixN}:`;
    const [a, b] = [processPacer(j, prefix, L, W), processPacer(j, prefix, L, W)];
    const statuses = await Promise.all(Array.from({ length: 3 * L }, (_, i) => command(j, i % 2 ? a : b)));
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(served429(j.emu)).toBe(0);
    expect(j.peakInFlight).toBeLessThanOrEqual(8);
    // One bucket for the key across processes: the allowance is not doubled by a second process.
    expect(maxPerTenth(j, L, W)).toBeLessThanOrEqual(4 + L / 10);
  });

  for (const offset of [100, 600, 2000]) {
    it(`I1/C3: a process restarted ${offset} ms before the window ends continues its predecessor's full window from Redis — 0 × 429`, async () => {
      const j = world(L, W);
      const prefix = `restart-${++prefixN}:`;
      const old = processPacer(j, prefix, L, W);
      const t0 = j.clock.now();
      const ac = new AbortController();
      // The predecessor works through a long job and dies `offset` ms before its window ends.
      const dying = Promise.allSettled(Array.from({ length: 3 * L }, () => command(j, old, ac.signal)));
      await j.clock.sleep(t0 + 2 + W - offset - j.clock.now());
      ac.abort();
      await dying;
      const start = j.clock.now();
      const pacer = processPacer(j, prefix, L, W);
      const statuses = await Promise.all(Array.from({ length: 3 * L }, () => command(j, pacer)));
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect(served429(j.emu)).toBe(0);
      expect(j.clock.now() - start).toBeLessThanOrEqual((3 + 1) * W);
    });
  }

  it("C3: a process whose Redis state was lost re-dates its window from the server's answers (the Lua port) — filled windows, 0 × 429", async () => {
    const j = world(L, W);
    const old = processPacer(j, `lost-a-${++prefixN}:`, L, W);
    const t0 = j.clock.now();
    await Promise.all(Array.from({ length: L / 2 }, () => command(j, old)));
    await j.clock.sleep(t0 + 2 + W - 600 - j.clock.now());
    const start = j.clock.now();
    const pacer = processPacer(j, `lost-b-${prefixN}:`, L, W); // nothing of the predecessor's state
    const statuses = await Promise.all(Array.from({ length: 3 * L }, () => command(j, pacer)));
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(served429(j.emu)).toBe(0);
    expect(j.clock.now() - start).toBeLessThanOrEqual((3 + 1) * W);
    const fills = serverWindows(j, L, W)
      .filter((w) => w.start >= start)
      .map((w) => w.arrivals.length);
    for (const fill of fills.slice(0, -1)) expect(fill).toBeGreaterThanOrEqual(L - 4);
  });
});
