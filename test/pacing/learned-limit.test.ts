// A key whose limit is below the pacer's assumption (C1: 1..10 000; the pacer assumes 120 until an
// answer says otherwise, A5). Every client of the key in one process, and every process sharing a
// Redis window store, must pace to the limit ONE of them learned — a second client or a restarted
// process may not send at the assumed 120 into a window the server caps lower.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmulator } from "../../emulator/index";
import { VirtualClock } from "../../runtime/clock";
import { createPacer, type Pacer, type WindowStore } from "../../pacing";
import { createResellerClient } from "../../src/index";
import { createRedisWindowStore } from "../../stores/redis-window-store";
import { startRedis, type RedisServer } from "../support/redis";
import { command, served429, world } from "./emulator-world";

const BASE = "http://127.0.0.1/api/reseller/v1";

describe("a learned limit is the key's, not one client's (C1, A5, I1)", () => {
  for (const limit of [1, 2, 5, 10]) {
    it(`C1/A5: four clients of one key (limit ${limit}) in one process, the first learns it — 0 × 429`, async () => {
      const clock = new VirtualClock();
      const emulator = createEmulator({ clock });
      const key = emulator.control.createKey({ environment: "test", rate_limit_per_minute: limit });
      const clients = Array.from({ length: 4 }, () =>
        createResellerClient({ baseUrl: BASE, token: key.token, fetch: emulator.fetch, clock, deadlineMs: Infinity }),
      );
      expect((await clients[0].context.get()).kind).toBe("succeeded"); // A5: call it first
      const outcomes = await Promise.all(
        clients.flatMap((c) => Array.from({ length: limit }, () => c.domains.list({}))),
      );
      expect(outcomes.every((o) => o.kind === "succeeded")).toBe(true);
      const requests = emulator.control.requests();
      expect(requests.filter((r) => r.status === 429)).toEqual([]);
      expect(requests).toHaveLength(1 + 4 * limit);
    });
  }

  describe("across processes, through Redis", () => {
    let server: RedisServer;
    const stores: WindowStore[] = [];
    beforeAll(async () => {
      server = await startRedis();
    });
    afterAll(async () => {
      for (const s of stores) await s.close();
      await server?.stop();
    });
    const processPacer = (clock: VirtualClock, prefix: string, windowMs: number, initialLimit?: number): Pacer => {
      const store = createRedisWindowStore({ redis: server.url, keyPrefix: prefix });
      stores.push(store);
      return createPacer({ clock, windowMs, initialLimit, maxConcurrency: 4, store });
    };

    it("C1/I1: a new process on a key whose window its predecessor filled takes the limit (5) the predecessor learned — 0 × 429", async () => {
      const [L, W] = [5, 4000];
      const j = world(L, W);
      const prefix = "learned:";
      // The predecessor learns the key's limit from its answers and fills the window, then dies.
      const old = processPacer(j.clock, prefix, W);
      expect((await Promise.all(Array.from({ length: L }, () => command(j, old)))).every((s) => s === 200)).toBe(true);
      expect(old.snapshot(j.keyId).limit).toBe(L);
      // The new process knows nothing of the key: it assumes the default 120 until told otherwise,
      // and its answers take 40 ms each way — longer than the assumed limit's spacing.
      const fresh = processPacer(j.clock, prefix, W);
      const statuses = await Promise.all(Array.from({ length: 2 * L }, () => command(j, fresh, undefined, () => 40)));
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect(served429(j.emu)).toBe(0);
      expect(fresh.snapshot(j.keyId).limit).toBe(L);
    });
  });
});
