// The burst allowance (C8) and the re-dating of the window from the server's answers (C3, C10),
// against the reference emulator on one VirtualClock: how the pacer behaves, never how long it took.
import { describe, expect, it } from "vitest";
import { VirtualClock } from "../../runtime/clock";
import { createPacer, type Pacer, type PacingSnapshot, type ReleaseResult } from "../../pacing";
import { checkout, command, defaultKeyClient, maxPerTenth, served429, serverWindows, world } from "./emulator-world";

describe("pacer: burst allowance (C8) on the emulator", () => {
  it("C8: a checkout (domains.check, quotes.create, orders.create) on an idle key at 120 per 60 s waits 0 ms per call", async () => {
    const { emu, client } = defaultKeyClient(); // C1: 120 per 60 s
    const outcomes = await checkout(client, "checkout-1");
    expect(outcomes.map((o) => o.attempts.length)).toEqual([1, 1, 1]);
    expect(outcomes.flatMap((o) => o.attempts.map((a) => a.delayMs))).toEqual([0, 0, 0]);
    // The allowance is spent once maxConcurrency (4) sends went out together; the next waits its turn.
    const more = [];
    for (let i = 0; i < 3; i++) more.push(await client.context.get());
    const waits = more.map((o) => o.attempts[0].delayMs);
    expect(waits[0]).toBe(0);
    expect(waits[1]).toBeGreaterThan(0);
    expect(waits[1]).toBeLessThanOrEqual(Math.floor((60_000 - 300) / 120));
    await emu.close();
  });

  it("C8: an idle key's send is granted synchronously — no timer, not even a 0 ms one", async () => {
    const clock = new VirtualClock();
    const pacer = createPacer({ clock, windowMs: 60_000, initialLimit: 120 });
    for (let i = 0; i < 4; i++) {
      const before = clock.now();
      const ticket = await pacer.acquire("k");
      expect(clock.pending).toBe(0);
      expect(clock.now()).toBe(before);
      ticket.release({ receivedAt: clock.now(), status: 200, limit: 120, remaining: 119 - i });
    }
  });

  it("C8: a fresh key sends one request and bursts only once its answer confirmed the window", async () => {
    const j = world(60, 3000);
    const pacer = createPacer({ clock: j.clock, windowMs: 3000, initialLimit: 60, maxConcurrency: 4 });
    await Promise.all(Array.from({ length: 3 }, () => command(j, pacer)));
    const at = j.log.map((s) => s.sentAt - j.log[0].sentAt).sort((a, b) => a - b);
    // The second waits for a spacing (the first answer came 4 ms in); the third then goes with it.
    expect(at).toEqual([0, 49, 49]);
  });

  it("C3/C8: 3×L commands at once — ≤ maxConcurrency in flight, ≤ allowance + L/10 sends per tenth of a server window, 0 × 429", async () => {
    const [L, W] = [60, 3000];
    const j = world(L, W);
    const pacer = createPacer({ clock: j.clock, windowMs: W, initialLimit: L, maxConcurrency: 4 });
    const statuses = await Promise.all(Array.from({ length: 3 * L }, () => command(j, pacer)));
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(served429(j.emu)).toBe(0);
    expect(j.peakInFlight).toBeLessThanOrEqual(4);
    expect(maxPerTenth(j, L, W)).toBeLessThanOrEqual(4 + L / 10);
    const windows = serverWindows(j, L, W);
    expect(windows.map((w) => w.arrivals.length)).toEqual([L, L, L]);
  });

  it("C3/C8: a sequential loop of L calls — one in flight, ≤ allowance + L/10 sends per tenth of a server window", async () => {
    const [L, W] = [60, 3000];
    const j = world(L, W);
    const pacer = createPacer({ clock: j.clock, windowMs: W, initialLimit: L, maxConcurrency: 4 });
    for (let i = 0; i < 2 * L; i++) expect(await command(j, pacer)).toBe(200);
    expect(served429(j.emu)).toBe(0);
    expect(j.peakInFlight).toBe(1);
    expect(maxPerTenth(j, L, W)).toBeLessThanOrEqual(4 + L / 10);
  });
});

describe("pacer: re-synchronising with the server's window (C3, C10)", () => {
  const [L, W] = [40, 4000];

  /** `p` with every answer passed through `edit` before the pacer sees it. */
  const editAnswers = (p: Pacer, edit: (r: ReleaseResult) => ReleaseResult): Pacer => ({
    ...p,
    acquire: async (...args) => {
      const t = await p.acquire(...args);
      return { ...t, release: (r) => t.release(edit(r)) };
    },
  });

  /**
   * A predecessor spends half of a server window; 600 ms before it ends a fresh pacer whose answers
   * pass through `edit` runs a 3×L job. The server windows from the job's first send on.
   */
  async function editedRestart(edit: (r: ReleaseResult) => ReleaseResult) {
    const j = world(L, W);
    const old = createPacer({ clock: j.clock, windowMs: W, initialLimit: L });
    const t0 = j.clock.now();
    await Promise.all(Array.from({ length: L / 2 }, () => command(j, old)));
    await j.clock.sleep(t0 + 2 + W - 600 - j.clock.now());
    const fresh = editAnswers(createPacer({ clock: j.clock, windowMs: W, initialLimit: L }), edit);
    const before = j.log.length;
    const statuses = await Promise.all(Array.from({ length: 3 * L }, () => command(j, fresh)));
    const start = j.log[before].sentAt;
    const fills = serverWindows(j, L, W)
      .filter((w) => w.start >= start)
      .map((w) => w.arrivals.length);
    return { statuses, fills, count429: served429(j.emu) };
  }

  /**
   * A predecessor spends half of a server window and stops; `offset` ms before that window ends a
   * new process (a fresh pacer, knowing nothing) starts a 3×L job on the same key.
   */
  async function restart(offset: number) {
    const j = world(L, W);
    const old = createPacer({ clock: j.clock, windowMs: W, initialLimit: L });
    const t0 = j.clock.now();
    await Promise.all(Array.from({ length: L / 2 }, () => command(j, old)));
    const serverEnd = t0 + 2 + W; // the predecessor's first request opened the server's window
    await j.clock.sleep(serverEnd - offset - j.clock.now());
    const predecessor = j.log.length;
    const pacer = createPacer({ clock: j.clock, windowMs: W, initialLimit: L });
    const start = j.clock.now();
    const statuses = await Promise.all(Array.from({ length: 3 * L }, () => command(j, pacer)));
    const ours = j.log.slice(predecessor);
    const windows = serverWindows(j, L, W).filter((w) => w.start >= start);
    return {
      statuses,
      job: j.clock.now() - start,
      count429: served429(j.emu),
      lastSend: Math.max(...ours.map((s) => s.sentAt)),
      fills: windows.map((w) => w.arrivals.length),
      snapshot: pacer.snapshot(j.keyId),
    };
  }

  for (const offset of [100, 600, 2000]) {
    it(`C3: a process started ${offset} ms before a predecessor's window ends converges within one window — 3×L in ⌈N/L⌉ + 1 windows, 0 × 429`, async () => {
      const r = await restart(offset);
      expect(r.statuses.every((s) => s === 200)).toBe(true);
      expect(r.count429).toBe(0);
      expect(r.job).toBeLessThanOrEqual((3 + 1) * W);
      // Every server window after the one it started in is filled (up to the few sends in flight
      // when the window moved, counted twice to be safe), except the job's last.
      for (const fill of r.fills.slice(0, -1)) expect(fill).toBeGreaterThanOrEqual(L - 4);
    });
  }

  it("C3/C10: without the re-dating (the pacer never sees a Remaining that proves a reset) the same restart splits every window", async () => {
    // The control: the server's windows seen by a pacer that never re-dates are half-filled —
    // the rule the tests above rely on is what fills them.
    let highest = -1;
    const r = await editedRestart((a) => {
      // Only answers that raise the used count pass (the old rule): none can show a reset.
      const used = a.remaining == null ? -1 : L - a.remaining;
      if (used <= highest) return { ...a, remaining: null };
      highest = used;
      return a;
    });
    expect(Math.min(...r.fills.slice(0, -1))).toBeLessThan(L - 4);
  });

  it("C3/C10: the first answer of each server window lost (counted, then a reset): a later answer that counts no more than one received before it was sent re-dates the window — filled windows, 0 × 429", async () => {
    // The request the server counted first in a window never gets its answer to the client (a
    // connection reset after the server committed it): its Remaining = L − 1 is never seen.
    const r = await editedRestart((a) =>
      a.remaining === L - 1 ? { receivedAt: a.receivedAt, attempt: a.attempt } : a,
    );
    expect(r.count429).toBe(0);
    expect(r.statuses.every((st) => st === 200)).toBe(true);
    for (const fill of r.fills.slice(1, -1)) expect(fill).toBeGreaterThanOrEqual(L - 4);
  });

  it("C3: the re-dated window is visible in snapshot(): it ends one window after the answer that proved it", async () => {
    const j = world(L, W);
    const old = createPacer({ clock: j.clock, windowMs: W, initialLimit: L });
    const t0 = j.clock.now();
    await Promise.all(Array.from({ length: L / 2 }, () => command(j, old)));
    await j.clock.sleep(t0 + 2 + W - 300 - j.clock.now());
    const pacer = createPacer({ clock: j.clock, windowMs: W, initialLimit: L });
    const snaps: PacingSnapshot[] = [];
    const ac = new AbortController();
    const job = Promise.allSettled(Array.from({ length: L }, () => command(j, pacer, ac.signal)));
    await j.clock.sleep(2000);
    snaps.push(pacer.snapshot(j.keyId));
    ac.abort();
    await job;
    const opener = j.log.find((s) => s.sentAt > t0 + W && s.remaining === L - 1);
    expect(opener).toBeDefined();
    // The window now ends one window (+ the end margin) after the answer that opened the server's new one.
    expect(snaps[0].windowEndsAt).toBe(opener!.sentAt + 4 + W + 2 + Math.ceil(W / 2000));
  });
});

describe("pacer: a successor on a small-limit key (C10)", () => {
  for (const initialLimit of [120, 5]) {
    it(`C10: a process started right after its predecessor sent into a new server window counts that send — its own next grant waiting for its slot does not hide it (0 × 429, initialLimit ${initialLimit})`, async () => {
      const [L, W] = [5, 10_000];
      const j = world(L, W);
      // The predecessor: L + 1 calls at once — L fill the server's window, the last opens the next one.
      const old = createPacer({ clock: j.clock, windowMs: W, initialLimit: L });
      await Promise.all(Array.from({ length: L + 1 }, () => command(j, old)));
      // Its successor, a new process (knowing nothing), at once: L + 1 calls at once as well.
      const next = createPacer({ clock: j.clock, windowMs: W, initialLimit });
      const before = j.log.length;
      const statuses = await Promise.all(Array.from({ length: L + 1 }, () => command(j, next)));
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect(served429(j.emu)).toBe(0);
      // It sent L − 1 into the predecessor's last window (its first answer said 2 used), the rest after it.
      const firstEnd = j.log[before].sentAt + W;
      expect(j.log.slice(before).filter((s) => s.sentAt < firstEnd).length).toBe(L - 1);
    });
  }
});
