/**
 * Conformance suite for any WindowStore (pacing/window-store.ts). The memory store runs it in
 * memory-window-store.test.ts; the Redis store (stores/) can run the very same suite:
 *   describeWindowStore("redis", async () => ({ store, cleanup }))
 * Times are plain numbers: a store must only use the `now` it is given.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ReserveDecision, ReserveParams, WindowStore } from "../../pacing";

export interface StoreFixture {
  store: WindowStore;
  cleanup?: () => Promise<void>;
}

const W = 3000;
const G = 25;
const T0 = 1_000_000;

function params(now: number, limit = 3, spacingMs = 0, burst?: number): ReserveParams {
  return { limit, windowMs: W, spacingMs, guardMs: G, now, ...(burst === undefined ? {} : { burst }) };
}

type Grant = Extract<ReserveDecision, { granted: true }>;

/** The answer to grant `g` with X-RateLimit-Remaining `remaining` of 10, arriving at `now`. */
function answer(store: WindowStore, key: string, g: Grant, remaining: number, now: number, slack?: number) {
  return store.observe(key, {
    windowId: g.windowId,
    remaining,
    limit: 10,
    now,
    ord: g.ord,
    sentAt: g.sendAt,
    ...(slack === undefined ? {} : { slack }),
  });
}
function granted(d: ReserveDecision): Grant {
  if (!d.granted) throw new Error(`expected a grant, got a refusal until ${d.retryAt}`);
  return d;
}

export function describeWindowStore(name: string, make: () => Promise<StoreFixture>): void {
  describe(`WindowStore conformance: ${name}`, () => {
    let fixture: StoreFixture | null = null;
    let n = 0;
    const setup = async () => {
      fixture = await make();
      n += 1;
      return { store: fixture.store, key: `key-${name}-${n}-${Math.random().toString(36).slice(2)}` };
    };
    afterEach(async () => {
      await fixture?.store.close();
      await fixture?.cleanup?.();
      fixture = null;
    });

    it("C3: the first send opens the window; at most `limit` sends per window", async () => {
      const { store, key } = await setup();
      const a = await store.reserve(key, params(T0));
      expect(a).toMatchObject({ granted: true, sendAt: T0 });
      const b = await store.reserve(key, params(T0 + 1));
      const c = await store.reserve(key, params(T0 + 2));
      expect(b.granted && c.granted).toBe(true);
      if (!a.granted || !b.granted || !c.granted) throw new Error("unreachable");
      expect(new Set([a.windowId, b.windowId, c.windowId]).size).toBe(1);
      expect(c.state).toMatchObject({ count: 3, limit: 3, windowStart: T0, windowEnd: null });
      const d = await store.reserve(key, params(T0 + 3));
      expect(d.granted).toBe(false);
      // The end is not confirmed yet: a short poll, not a guess.
      if (!d.granted) expect(d.retryAt).toBeGreaterThan(T0 + 3);
    });

    it("I3: the next window opens at the earliest response + W + guard, not at first send + W", async () => {
      const { store, key } = await setup();
      const a = await store.reserve(key, params(T0));
      if (!a.granted) throw new Error("expected a grant");
      await store.reserve(key, params(T0));
      await store.reserve(key, params(T0));
      await store.confirmWindowStart(key, a.windowId, T0 + 400);
      const later = await store.confirmWindowStart(key, a.windowId, T0 + 900); // later answer: no change
      expect(later.windowEnd).toBe(T0 + 400 + W + G);
      const early = await store.reserve(key, params(T0 + W + 10));
      expect(early).toMatchObject({ granted: false, retryAt: T0 + 400 + W + G });
      const next = await store.reserve(key, params(T0 + 400 + W + G));
      expect(next).toMatchObject({ granted: true, sendAt: T0 + 400 + W + G });
      if (next.granted) {
        expect(next.windowId).not.toBe(a.windowId);
        expect(next.state.count).toBe(1);
      }
    });

    it("I3: no send after windowStart + W − guard in the same window: with room, it goes at once and opens the next window (a straddler)", async () => {
      const { store, key } = await setup();
      const a = granted(await store.reserve(key, params(T0, 10)));
      await store.confirmWindowStart(key, a.windowId, T0 + 5);
      const ok = granted(await store.reserve(key, params(T0 + W - G - 1, 10)));
      expect(ok.windowId).toBe(a.windowId);
      const late = granted(await store.reserve(key, params(T0 + W - G, 10)));
      const next = String(Number(a.windowId) + 1);
      expect(late.sendAt).toBe(T0 + W - G);
      expect(late.windowId).toBe(`${next}s`); // never the window's own id: its answer confirms nothing
      expect(late.state).toMatchObject({ windowId: next, windowStart: T0 + W - G, windowEnd: null, count: 1 });
    });

    it("I3: a full window's last guard still waits for its confirmed end", async () => {
      const { store, key } = await setup();
      const a = granted(await store.reserve(key, params(T0, 3)));
      await store.confirmWindowStart(key, a.windowId, T0 + 5);
      granted(await store.reserve(key, params(T0 + 10, 3)));
      granted(await store.reserve(key, params(T0 + 20, 3)));
      const late = await store.reserve(key, params(T0 + W - G, 3));
      expect(late).toMatchObject({ granted: false, retryAt: T0 + 5 + W + G });
    });

    it("I3/C3: straddlers count in both windows — no more of them than the window before has room for; then the first send after its end", async () => {
      const { store, key } = await setup();
      const a = granted(await store.reserve(key, params(T0, 3)));
      await store.confirmWindowStart(key, a.windowId, T0 + 5);
      granted(await store.reserve(key, params(T0 + 10, 3))); // the old window holds 2 of 3
      const s1 = granted(await store.reserve(key, params(T0 + W - G, 3)));
      expect(s1.windowId.endsWith("s")).toBe(true);
      // The old window is now full (2 + this straddler): the next send waits for its confirmed end.
      const after = granted(await store.reserve(key, params(T0 + W - G + 1, 3)));
      expect(after.sendAt).toBe(T0 + 5 + W + G);
      expect(after.windowId).toBe(s1.state.windowId);
      expect(after.state.count).toBe(2);
    });

    it("I3: a straddler's answer neither confirms nor observes; the next window is dated by an answer to a send after the old end", async () => {
      const { store, key } = await setup();
      const a = granted(await store.reserve(key, params(T0, 10)));
      await store.confirmWindowStart(key, a.windowId, T0 + 5);
      const s1 = granted(await store.reserve(key, params(T0 + W - G, 10)));
      // It may have been counted in the OLD server window: its answer says nothing about the new one.
      let v = await store.confirmWindowStart(key, s1.windowId, T0 + W - G + 4);
      expect(v.windowEnd).toBeNull();
      v = await answer(store, key, s1, 0, T0 + W - G + 4); // used 10 (the old window's count)
      expect(v.count).toBe(1);
      await store.refund(key, s1.windowId); // never given back: it may have been counted
      expect((await store.peek(key, T0 + W)).count).toBe(1);
      const x = granted(await store.reserve(key, params(T0 + 5 + W + G, 10)));
      expect(x.windowId).toBe(s1.state.windowId);
      v = await store.confirmWindowStart(key, x.windowId, T0 + 5 + W + G + 4);
      expect(v.windowEnd).toBe(T0 + 5 + W + G + 4 + W + G);
    });

    it("I3/C8: a window opened by a straddler and confirmed by nothing (no send after the old end): past its safe instant with room, a send opens the next window at once, counted in both until its latest end", async () => {
      const { store, key } = await setup();
      const a = granted(await store.reserve(key, params(T0, 10)));
      await store.confirmWindowStart(key, a.windowId, T0 + 5);
      const s1 = granted(await store.reserve(key, params(T0 + W - G, 10))); // opens window N, trusted
      await store.confirmWindowStart(key, s1.windowId, T0 + W - G + 4); // confirms nothing
      const nStart = T0 + W - G;
      // The server's window holding N's sends began at or after nStart: before N's safe instant they
      // are all in it, and it has room — the key need not wait for N's unconfirmed deadline.
      const late = granted(await store.reserve(key, params(nStart + W - G, 10)));
      expect(late.sendAt).toBe(nStart + W - G);
      const next = String(Number(s1.state.windowId) + 1);
      expect(late.windowId).toBe(`${next}s`);
      expect(late.state).toMatchObject({ windowId: next, windowStart: nStart + W - G, windowEnd: null, count: 1 });
      // Window N may last until nStart + 2·W + guard: until then a send counts in both, while N has room.
      const both = granted(await store.reserve(key, params(nStart + W - G + 1, 10)));
      expect(both.windowId).toBe(`${next}s`);
      expect(both.state.count).toBe(2);
    });

    it("C3/C8: a send of the window before that the server counted FIRST in its new window (Remaining L − 1), answered after a straddler opened ours, raises our count by it", async () => {
      const { store, key } = await setup();
      const a = granted(await store.reserve(key, params(T0, 10)));
      await store.confirmWindowStart(key, a.windowId, T0 + 5);
      await answer(store, key, a, 9, T0 + 5);
      // b leaves before the old window's safe instant, but reaches the server only after its window ended.
      const b = granted(await store.reserve(key, params(T0 + W - G - 10, 10)));
      expect(b.windowId).toBe(a.windowId);
      const s1 = granted(await store.reserve(key, params(T0 + W - G, 10)));
      expect(s1.state.count).toBe(1);
      // b opened the server's new window: it holds b and the straddler, not just the straddler.
      const v = await answer(store, key, b, 9, T0 + W + 20);
      expect(v).toMatchObject({ windowId: s1.state.windowId, count: 2 });
      // Its answer again (a retried observe) counts it once.
      expect((await answer(store, key, b, 9, T0 + W + 21)).count).toBe(2);
    });

    it("I3: a window no answer confirmed whose count is not known to be the server's (a never-seen key) still holds past its safe instant", async () => {
      const { store, key } = await setup();
      granted(await store.reserve(key, params(T0, 10)));
      const late = await store.reserve(key, params(T0 + W - G, 10));
      expect(late.granted).toBe(false);
    });

    it("C12: a 429 on a straddler closes the window it opened (the pause dates the server's reset)", async () => {
      const { store, key } = await setup();
      const a = granted(await store.reserve(key, params(T0, 10)));
      await store.confirmWindowStart(key, a.windowId, T0 + 5);
      const s1 = granted(await store.reserve(key, params(T0 + W - G, 10)));
      const v = await store.pauseUntil(key, T0 + 2 * W, s1.windowId, true);
      expect(v).toMatchObject({ windowId: null, pausedUntil: T0 + 2 * W });
    });

    it("C8: grants are spaced at least spacingMs apart, also when asked at once", async () => {
      const { store, key } = await setup();
      const got: number[] = [];
      for (let i = 0; i < 3; i++) {
        const d = await store.reserve(key, params(T0, 3, 100));
        if (!d.granted) throw new Error("expected a grant");
        got.push(d.sendAt);
      }
      expect(got).toEqual([T0, T0 + 100, T0 + 200]);
    });

    it("C12: a pause refuses every send and closes the window; the next window starts fresh after it", async () => {
      const { store, key } = await setup();
      const a = await store.reserve(key, params(T0));
      if (!a.granted) throw new Error("expected a grant");
      const s = await store.pauseUntil(key, T0 + 5000, a.windowId, true);
      expect(s.windowId).toBeNull();
      expect(s.pausedUntil).toBe(T0 + 5000);
      expect(await store.reserve(key, params(T0 + 4999))).toMatchObject({ granted: false, retryAt: T0 + 5000 });
      const b = await store.reserve(key, params(T0 + 5000));
      expect(b).toMatchObject({ granted: true, sendAt: T0 + 5000 });
      if (b.granted) {
        expect(b.windowId).not.toBe(a.windowId);
        expect(b.state.count).toBe(1);
      }
    });

    it("C12: a pause is never shortened; a late 429 from an old window does not close the new one", async () => {
      const { store, key } = await setup();
      const a = await store.reserve(key, params(T0));
      if (!a.granted) throw new Error("expected a grant");
      await store.pauseUntil(key, T0 + 5000, a.windowId, true);
      const shorter = await store.pauseUntil(key, T0 + 1000, a.windowId, true);
      expect(shorter.pausedUntil).toBe(T0 + 5000);
      const b = await store.reserve(key, params(T0 + 5000));
      if (!b.granted) throw new Error("expected a grant");
      const stale = await store.pauseUntil(key, T0 + 4000, a.windowId, true);
      expect(stale.windowId).toBe(b.windowId);
    });

    it("C11/C12: a pause that proves no window over (closesWindow false) delays sends but keeps the window and its count", async () => {
      const { store, key } = await setup();
      const a = granted(await store.reserve(key, params(T0)));
      const s = await store.pauseUntil(key, T0 + 500, a.windowId, false);
      expect(s).toMatchObject({ windowId: a.windowId, count: 1, pausedUntil: T0 + 500 });
      expect(await store.reserve(key, params(T0 + 499))).toMatchObject({ granted: false, retryAt: T0 + 500 });
      const b = granted(await store.reserve(key, params(T0 + 500)));
      expect(b.windowId).toBe(a.windowId);
      expect(b.state.count).toBe(2);
      // The same call with closesWindow closes it: the next grant opens a fresh window.
      await store.pauseUntil(key, T0 + 600, b.windowId, true);
      const c = granted(await store.reserve(key, params(T0 + 600)));
      expect(c.windowId).not.toBe(a.windowId);
      expect(c.state.count).toBe(1);
    });

    it("C10: an X-RateLimit-Remaining snapshot raises the count, never lowers it", async () => {
      const { store, key } = await setup();
      const a = await store.reserve(key, params(T0, 10));
      if (!a.granted) throw new Error("expected a grant");
      let s = await store.observe(key, { windowId: a.windowId, remaining: 4, limit: 10, now: T0 + 5 });
      expect(s.count).toBe(6);
      s = await store.observe(key, { windowId: a.windowId, remaining: 9, limit: 10, now: T0 + 6 });
      expect(s.count).toBe(6);
      s = await store.observe(key, { windowId: "stale", remaining: 0, limit: 10, now: T0 + 7 });
      expect(s.count).toBe(6);
    });

    it("C10: a snapshot with sends we did not make also counts our grants made after that request (not yet counted)", async () => {
      const { store, key } = await setup();
      const a = granted(await store.reserve(key, params(T0, 40)));
      const b = granted(await store.reserve(key, params(T0 + 1, 40))); // granted before a's answer
      // A predecessor used 20 of the server's window: a's answer says 21 used — b is not among them.
      const s = await store.observe(key, { windowId: a.windowId, remaining: 19, limit: 40, now: T0 + 5, ord: a.ord });
      expect(s.count).toBe(22);
      // b's own answer (22 used) adds nothing: it is one of ours, already counted.
      const t = await store.observe(key, { windowId: b.windowId, remaining: 18, limit: 40, now: T0 + 6, ord: b.ord });
      expect(t.count).toBe(22);
    });

    it("C10: a used count equal to ours still counts a predecessor's send when a later grant of ours was not sent yet (unsent)", async () => {
      const { store, key } = await setup();
      const a = granted(await store.reserve(key, params(T0, 5)));
      granted(await store.reserve(key, params(T0 + 1, 5))); // b: granted for later, still waiting for its slot
      // A predecessor's one send + a = 2 used: equal to our 2 grants, but b was not sent — 3 in the window.
      const s = await store.observe(key, {
        windowId: a.windowId,
        remaining: 3,
        limit: 5,
        now: T0 + 5,
        ord: a.ord,
        sentAt: a.sendAt,
        unsent: 1,
      });
      expect(s.count).toBe(3);
      // Two more fit, then the window is full (5 in the server's window: 1 foreign + 4 ours).
      granted(await store.reserve(key, params(T0 + 6, 5)));
      granted(await store.reserve(key, params(T0 + 7, 5)));
      expect((await store.reserve(key, params(T0 + 8, 5))).granted).toBe(false);
    });

    it("C10: with no sends but ours, used + unsent never exceeds our count (nothing is counted twice)", async () => {
      const { store, key } = await setup();
      const a = granted(await store.reserve(key, params(T0, 5)));
      granted(await store.reserve(key, params(T0 + 1, 5)));
      const s = await store.observe(key, {
        windowId: a.windowId,
        remaining: 4,
        limit: 5,
        now: T0 + 5,
        ord: a.ord,
        sentAt: a.sendAt,
        unsent: 1,
      });
      expect(s.count).toBe(2);
    });

    it("I3: the next window opens `endGuardMs` after the earliest response + W (the server counted before it answered)", async () => {
      const { store, key } = await setup();
      const withEnd = (now: number) => ({ ...params(now), endGuardMs: 4 });
      const a = granted(await store.reserve(key, withEnd(T0)));
      await store.reserve(key, withEnd(T0));
      await store.reserve(key, withEnd(T0));
      const s = await store.confirmWindowStart(key, a.windowId, T0 + 400);
      expect(s.windowEnd).toBe(T0 + 400 + W + 4);
      expect(await store.reserve(key, withEnd(T0 + 400 + W + 3))).toMatchObject({ granted: false });
      expect(await store.reserve(key, withEnd(T0 + 400 + W + 4))).toMatchObject({
        granted: true,
        sendAt: T0 + 400 + W + 4,
      });
    });

    it("C6: an unconfirmed window whose every send was given back holds nothing: past its safe send instant a send opens a fresh window at once", async () => {
      const { store, key } = await setup();
      const a = granted(await store.reserve(key, params(T0, 10)));
      await store.refund(key, a.windowId); // a 503 without X-RateLimit-*: never counted
      const b = granted(await store.reserve(key, params(T0 + W, 10))); // past windowStart + W − guard
      expect(b.sendAt).toBe(T0 + W);
      expect(b.windowId).not.toBe(a.windowId);
      expect(b.state).toMatchObject({ windowStart: T0 + W, count: 1 });
      // A transport failure keeps its slot counted (it may have reached the server): the window holds.
      const c = granted(await store.reserve(key, params(T0 + W + 1, 10)));
      expect(await store.reserve(key, params(T0 + 2 * W, 10))).toMatchObject({ granted: false });
      expect(c.windowId).toBe(b.windowId);
    });

    it("C3: an unconfirmed window is given up after 2·W + guard", async () => {
      const { store, key } = await setup();
      const a = await store.reserve(key, params(T0, 1));
      if (!a.granted) throw new Error("expected a grant");
      const wait = await store.reserve(key, params(T0 + W, 1));
      expect(wait.granted).toBe(false);
      const next = await store.reserve(key, params(T0 + 2 * W + G, 1));
      expect(next.granted).toBe(true);
    });

    it("C3: refund gives an unsent slot back to the open window only", async () => {
      const { store, key } = await setup();
      const a = await store.reserve(key, params(T0, 2));
      const b = await store.reserve(key, params(T0, 2));
      if (!a.granted || !b.granted) throw new Error("expected grants");
      expect((await store.refund(key, b.windowId)).count).toBe(1);
      expect((await store.refund(key, "stale")).count).toBe(1);
      expect((await store.reserve(key, params(T0 + 1, 2))).granted).toBe(true);
    });

    it("C2: keys are independent; peek of an unknown key is empty", async () => {
      const { store, key } = await setup();
      await store.reserve(key, params(T0, 1));
      expect((await store.reserve(`${key}-other`, params(T0, 1))).granted).toBe(true);
      expect(await store.peek(`${key}-never`, T0)).toMatchObject({ windowId: null, count: 0, pausedUntil: null });
    });

    it("C8: in a confirmed window the next burst − 1 sends go at once, then one per spacing", async () => {
      const { store, key } = await setup();
      const a = granted(await store.reserve(key, params(T0, 10, 100, 3)));
      await store.confirmWindowStart(key, a.windowId, T0 + 5);
      const at: number[] = [a.sendAt];
      for (const now of [T0 + 6, T0 + 7, T0 + 8, T0 + 9])
        at.push(granted(await store.reserve(key, params(now, 10, 100, 3))).sendAt);
      expect(at).toEqual([T0, T0 + 6, T0 + 7, T0 + 100, T0 + 200]);
      expect(a.ord).toBeDefined();
    });

    it("C8: a never-seen key's window does not burst before its first answer (the server may hold others' sends)", async () => {
      const { store, key } = await setup();
      granted(await store.reserve(key, params(T0, 10, 100, 3)));
      expect(granted(await store.reserve(key, params(T0 + 1, 10, 100, 3))).sendAt).toBe(T0 + 100);
    });

    it("C8/C12: the window after a 429 pause, or after a confirmed end, bursts from its first send", async () => {
      const { store, key } = await setup();
      const a = granted(await store.reserve(key, params(T0, 10, 100, 3)));
      await store.pauseUntil(key, T0 + 5000, a.windowId, true);
      const after: number[] = [];
      for (let i = 0; i < 4; i++) after.push(granted(await store.reserve(key, params(T0 + 5000, 10, 100, 3))).sendAt);
      expect(after).toEqual([T0 + 5000, T0 + 5000, T0 + 5000, T0 + 5100]);
      const b = granted(await store.reserve(key, params(T0 + 5100, 10, 100, 3)));
      await store.confirmWindowStart(key, b.windowId, T0 + 5010);
      const end = T0 + 5010 + W + G;
      const next: number[] = [];
      for (let i = 0; i < 3; i++) next.push(granted(await store.reserve(key, params(end, 10, 100, 3))).sendAt);
      expect(next).toEqual([end, end, end]);
    });

    it("C3: the allowance never lets a window hold more than `limit` sends", async () => {
      const { store, key } = await setup();
      const a = granted(await store.reserve(key, params(T0, 2, 100, 4)));
      await store.confirmWindowStart(key, a.windowId, T0 + 1);
      expect(granted(await store.reserve(key, params(T0 + 2, 2, 100, 4))).sendAt).toBe(T0 + 2);
      expect((await store.reserve(key, params(T0 + 3, 2, 100, 4))).granted).toBe(false);
    });

    it("C3/C10: Remaining back at L − 1 on a later request, sent after the window's first answer, re-dates the window", async () => {
      const { store, key } = await setup();
      const grants: Grant[] = [];
      for (let i = 0; i < 4; i++) grants.push(granted(await store.reserve(key, params(T0 + i * 100, 10, 100))));
      const [a, b, c] = grants;
      await store.confirmWindowStart(key, a.windowId, T0 + 5);
      await store.confirmWindowStart(key, c.windowId, T0 + 210);
      const s = await store.observe(key, {
        windowId: c.windowId,
        remaining: 9,
        limit: 10,
        now: T0 + 210,
        ord: c.ord,
        sentAt: c.sendAt,
        slack: 0,
      });
      // The server's window started with c: it holds c and d, and ends one window after c's answer.
      expect(s).toMatchObject({ windowId: a.windowId, windowStart: T0 + 200, windowEnd: T0 + 210 + W + G, count: 2 });
      // An answer about b (sent before c) is about the server's previous window: ignored.
      const late = await store.observe(key, {
        windowId: b.windowId,
        remaining: 0,
        limit: 10,
        now: T0 + 211,
        ord: b.ord,
        sentAt: b.sendAt,
      });
      expect(late.count).toBe(2);
      // Eight more fit, and none after the re-dated window's last safe instant.
      for (let i = 0; i < 8; i++) granted(await store.reserve(key, params(T0 + 400 + i * 100, 10, 100)));
      expect(await store.reserve(key, params(T0 + 1300, 10, 100))).toMatchObject({
        granted: false,
        retryAt: T0 + 210 + W + G,
      });
    });

    it("C3: requests still in flight when the re-dating one was sent stay counted (slack)", async () => {
      const { store, key } = await setup();
      const a = granted(await store.reserve(key, params(T0, 10)));
      await store.confirmWindowStart(key, a.windowId, T0 + 1);
      const b = granted(await store.reserve(key, params(T0 + 2, 10)));
      const c = granted(await store.reserve(key, params(T0 + 3, 10)));
      const s = await store.observe(key, {
        windowId: c.windowId,
        remaining: 9,
        limit: 10,
        now: T0 + 9,
        ord: c.ord,
        sentAt: c.sendAt,
        slack: 5,
      });
      // c itself, plus at most the two requests granted before it (b and a), never the claimed 5.
      expect(s.count).toBe(3);
      expect(b.ord).toBeLessThan(c.ord!);
    });

    it("C3/C10: a used count no higher than an answer received before the request was sent re-dates the window (the new window's first answer was lost)", async () => {
      const { store, key } = await setup();
      const grants: Grant[] = [];
      for (let i = 0; i < 4; i++) grants.push(granted(await store.reserve(key, params(T0 + i * 100, 10, 100))));
      const [a, , , d] = grants;
      await store.confirmWindowStart(key, a.windowId, T0 + 5);
      // a was counted 7th (sends we did not make): the window is full with our later grants on top.
      const raised = await answer(store, key, a, 3, T0 + 5);
      expect(raised.count).toBe(10);
      // d, sent after a's answer, was counted 2nd: the server's window reset in between (its first, c, lost).
      const s = await answer(store, key, d, 8, T0 + 310, 0);
      // It holds what the server counted up to d (2) and no later grant; it began after a was sent.
      expect(s).toMatchObject({ windowId: a.windowId, windowStart: T0, windowEnd: T0 + 310 + W + G, count: 2 });
      expect(granted(await store.reserve(key, params(T0 + 400, 10, 100))).windowId).toBe(a.windowId);
    });

    it("C3/C10: after a re-dating, a request granted before it but counted after it in the new window (late, or another process's) still raises the count", async () => {
      const { store, key } = await setup();
      const grants: Grant[] = [];
      for (let i = 0; i < 3; i++) grants.push(granted(await store.reserve(key, params(T0 + i * 50, 10, 50))));
      const [a, b, c] = grants;
      await store.confirmWindowStart(key, a.windowId, T0 + 5);
      await answer(store, key, a, 1, T0 + 5);
      // c was the first the server counted in its new window; b, granted before c, arrived after it.
      const redated = await answer(store, key, c, 9, T0 + 110);
      expect(redated.count).toBe(1);
      const s = await answer(store, key, b, 8, T0 + 120);
      // The server holds 2 in the new window: b, and c (ours after b, counted once more to be safe).
      expect(s.count).toBe(3);
      // An answer about the server's previous window (its count far above what the new one can hold) is ignored.
      const old = await answer(store, key, a, 0, T0 + 121);
      expect(old.count).toBe(3);
    });

    it("C3/C10: a send of the previous window that left late and was counted in the new one raises the new window's count", async () => {
      const { store, key } = await setup();
      const a = granted(await store.reserve(key, params(T0, 10)));
      const b = granted(await store.reserve(key, params(T0 + 1, 10)));
      await store.confirmWindowStart(key, a.windowId, T0 + 5);
      const c = granted(await store.reserve(key, params(T0 + 5 + W + G, 10)));
      expect(c.windowId).not.toBe(a.windowId);
      await store.confirmWindowStart(key, c.windowId, T0 + 10 + W + G);
      await answer(store, key, c, 9, T0 + 10 + W + G);
      // b (granted in the old window) reached the server only after c: second in the new window.
      const s = await answer(store, key, b, 8, T0 + 12 + W + G, 1);
      expect(s).toMatchObject({ windowId: c.windowId, count: 3 });
      // An old-window answer with the old window's count is about the old window: ignored.
      const old = await answer(store, key, a, 2, T0 + 13 + W + G);
      expect(old.count).toBe(3);
    });

    it("C10: a lower used count on a request sent before the higher one's answer arrived proves nothing (it may have been counted first)", async () => {
      const { store, key } = await setup();
      const a = granted(await store.reserve(key, params(T0, 10)));
      const b = granted(await store.reserve(key, params(T0, 10)));
      await store.confirmWindowStart(key, a.windowId, T0 + 5);
      await answer(store, key, a, 3, T0 + 5);
      const s = await answer(store, key, b, 8, T0 + 6);
      expect(s).toMatchObject({ windowStart: T0, windowEnd: T0 + 5 + W + G, count: 8 });
    });

    it("C3: Remaining L − 1 from a request that overtook the window's first (sent before any answer) does not re-date", async () => {
      const { store, key } = await setup();
      const a = granted(await store.reserve(key, params(T0, 10)));
      const b = granted(await store.reserve(key, params(T0, 10)));
      await store.confirmWindowStart(key, b.windowId, T0 + 3);
      const s = await store.observe(key, {
        windowId: b.windowId,
        remaining: 9,
        limit: 10,
        now: T0 + 3,
        ord: b.ord,
        sentAt: b.sendAt,
      });
      expect(s).toMatchObject({ windowStart: T0, windowEnd: T0 + 3 + W + G, count: 2 });
      expect(a.windowId).toBe(b.windowId);
    });
  });
}
