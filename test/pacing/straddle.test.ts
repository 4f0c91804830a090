// The last guard of a window (I3, C8): a send there may land in the server's current window or open
// its next one. With room in the current window it goes at once and opens our next window, counted
// in both — against the reference emulator on one VirtualClock: what was sent and what the server
// answered, never how long the test took.
import { describe, expect, it } from "vitest";
import { createMemoryWindowStore, createPacer, type WindowStore } from "../../pacing";
import { checkout, command, defaultKeyClient, seeded, served429, withReserve, world } from "./emulator-world";

const W = 3000;
const L = 60;

/** The memory store, counting the grants it made to straddlers (their windowId is never the window's own). */
function countingStore(): { store: WindowStore; straddlers: () => number } {
  const inner = createMemoryWindowStore();
  let straddlers = 0;
  const store = withReserve(inner, async (key, p) => {
    const d = await inner.reserve(key, p);
    if (d.granted && d.windowId !== d.state.windowId) straddlers += 1;
    return d;
  });
  return { store, straddlers: () => straddlers };
}

describe("pacer: the last guard of a window (I3, C8)", () => {
  it("C8/I3: a checkout whose calls fall in the last 300 ms of the key's window (120 per 60 s) waits 0 ms per call, 0 × 429", async () => {
    const { clock, emu, client } = defaultKeyClient();
    const t0 = clock.now();
    expect((await client.context.get()).kind).toBe("succeeded"); // opens the window (A5)
    await clock.sleep(t0 + 60_000 - 200 - clock.now()); // inside the 300 ms guard
    const outcomes = await checkout(client, "late-checkout");
    expect(outcomes.map((o) => o.kind)).toEqual(["succeeded", "succeeded", "succeeded"]);
    expect(outcomes.flatMap((o) => o.attempts.map((a) => a.delayMs))).toEqual([0, 0, 0]);
    expect(served429(emu)).toBe(0);
    await emu.close();
  });

  it("I3: 30 windows, a call aimed into or just before each window's last guard and one right after, up to 20 ms each way — every call goes at once, 0 × 429", async () => {
    const j = world(L, W);
    const pacer = createPacer({ clock: j.clock, windowMs: W, initialLimit: L }); // guard 25 ms
    const oneWay = seeded(20, 42);
    const waits: number[] = [];
    let inGuard = 0;
    const call = async (lastSafe: number) => {
      const before = j.clock.now();
      if (before >= lastSafe) inGuard += 1;
      await command(j, pacer, undefined, oneWay);
      waits.push(j.log[j.log.length - 1].sentAt - before); // the pacer's wait: asked → sent
    };
    const pick = seeded(24, 7);
    for (let n = 0; n < 30; n++) {
      await command(j, pacer, undefined, oneWay);
      const opener = j.log[j.log.length - 1].sentAt;
      // Into our window's last guard (windowStart + W − 25 ms up to its confirmed end), or just before it.
      await j.clock.sleep(opener + W - 25 - 12 + Math.ceil(pick()) - j.clock.now());
      await call(opener + W - 25);
      await call(opener + W - 25);
      await j.clock.sleep(2 * W + 100); // every window of ours over: the next call opens one
    }
    expect(inGuard).toBeGreaterThanOrEqual(30);
    expect(Math.max(...waits)).toBe(0);
    expect(j.log.every((s) => s.status === 200)).toBe(true);
    expect(served429(j.emu)).toBe(0);
  });

  it("I3/C3: calls arriving at random at ~90 % of the limit, up to 20 ms each way — straddlers go and no server window takes more than L (0 × 429)", async () => {
    const j = world(L, W);
    const { store, straddlers } = countingStore();
    const pacer = createPacer({ clock: j.clock, windowMs: W, initialLimit: L, store });
    const oneWay = seeded(20, 2024);
    const at = seeded(10 * W, 5);
    const starts = Array.from({ length: Math.round(0.9 * L * 10) }, () => Math.floor(at())).sort((a, b) => a - b);
    const t0 = j.clock.now();
    const statuses = await Promise.all(
      starts.map(async (s) => {
        await j.clock.sleep(t0 + s - j.clock.now());
        return command(j, pacer, undefined, oneWay);
      }),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(served429(j.emu)).toBe(0);
    expect(straddlers()).toBeGreaterThan(0);
  });

  it("C8/I3: a sparse key — a call, one in the last guard, one just past the next window's safe instant — sends every call at once (no stall while its window has room), 0 × 429", async () => {
    const { clock, emu, client } = defaultKeyClient();
    const t0 = clock.now();
    const waits: number[] = [];
    const call = async () => {
      const o = await client.context.get();
      expect([o.kind, o.kind === "unknown" ? o.reason : ""]).toEqual(["succeeded", ""]);
      waits.push(...o.attempts.map((a) => a.delayMs));
    };
    await call(); // opens the window; its answer confirms it
    await clock.sleep(t0 + 59_800 - clock.now()); // in the last guard (300 ms): opens the next window, counted in both
    await call();
    // No call until just past that window's safe send instant: its only send was the straddler,
    // whose answer confirms nothing.
    await clock.sleep(t0 + 119_600 - clock.now());
    await call();
    await call();
    expect(waits).toEqual([0, 0, 0, 0]);
    expect(served429(emu)).toBe(0);
    await emu.close();
  });

  it("C8/I3: a light key — 1,500 sequential calls at random gaps (50 ms to 1.5 windows), up to 20 ms each way — no call waits more than 4 guards, 0 × 429", async () => {
    const j = world(L, W);
    const pacer = createPacer({ clock: j.clock, windowMs: W, initialLimit: L }); // guard 25 ms
    const oneWay = seeded(20, 77);
    const gap = seeded(1.5 * W - 50, 1234);
    const waits: number[] = [];
    for (let n = 0; n < 1500; n++) {
      await j.clock.sleep(50 + Math.floor(gap()));
      const asked = j.clock.now();
      await command(j, pacer, undefined, oneWay);
      waits.push(j.log[j.log.length - 1].sentAt - asked);
    }
    expect(j.log.every((s) => s.status === 200)).toBe(true);
    expect(served429(j.emu)).toBe(0);
    expect(Math.max(...waits)).toBeLessThanOrEqual(4 * 25);
  });
});
