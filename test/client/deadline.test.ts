// A deadline on every call (`deadlineMs`, client-wide and per call): pacer waits, Retry-After pauses,
// backoff and attempts all fit inside it. When the wait alone would pass it, the call returns AT ONCE
// as `unknown` with reason "deadline", `sent` and `retryAt` — never sleeping through a proxy's
// Retry-After of a day. A Retry-After longer than one window is reported as a proxy anomaly.
import { describe, expect, it } from "vitest";
import { createMemoryWindowStore, createPacer, type WindowStore } from "../../pacing";
import {
  DeadlineExceededError,
  InvalidArgumentError,
  InvalidOptionsError,
  RequestAbortedError,
  TimeoutError,
  type ClientEvent,
} from "../../src/index";
import { VirtualClock } from "../../runtime/clock";
import { createMemoryJournal } from "../../stores/memory-journal";
import { requestsTo, setup } from "./harness";

const HOUR = 3_600_000;
const proxy429 = (retryAfter: string) =>
  new Response("<html>Too Many Requests</html>", {
    status: 429,
    headers: { "retry-after": retryAfter, "content-type": "text/html" },
  });
const ofType = <T extends ClientEvent["type"]>(events: ClientEvent[], type: T) =>
  events.filter((e): e is Extract<ClientEvent, { type: T }> => e.type === type);

describe("client: a deadline on every call", () => {
  it("C12: a proxy's 429 with Retry-After: 86400 does not stall a checkout — unknown (deadline), sent, retryAt ≈ +1 h, at once", async () => {
    const h = setup();
    const journal = createMemoryJournal();
    let first = true;
    const client = h.makeClient({
      journal,
      fetch: async (request) => (first ? ((first = false), proxy429("86400")) : h.fetch(request)),
    });
    const start = h.clock.now();
    const out = await client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
    expect(h.clock.now() - start).toBeLessThan(1_000); // returned instead of sleeping
    expect(out.kind).toBe("unknown");
    if (out.kind !== "unknown") return;
    expect(out.reason).toBe("deadline");
    expect(out.sent).toBe(true);
    expect(out.status).toBe(429);
    expect(out.retryAt).toBeGreaterThanOrEqual(start + HOUR); // the capped hour (+ margin)
    expect(out.retryAt).toBeLessThan(start + HOUR + 10 * 60_000);
    expect((await journal.get(out.commandId!))?.state).toBe("unknown"); // a 429 means nothing happened, but recover() decides
    const [anomaly] = ofType(h.events, "proxy-anomaly");
    expect(anomaly).toMatchObject({
      operationId: "domains.renew",
      retryAfter: "86400",
      retryAfterMs: HOUR,
      windowMs: 60_000,
    });
    expect(ofType(h.events, "deadline")).toMatchObject([{ waitingFor: "pause", sent: true, retryAt: out.retryAt }]);
  });

  it("C12: the next call on the paused key returns at once and sends nothing (sent: false, retryAt = the pause end)", async () => {
    const h = setup();
    let first = true;
    const client = h.makeClient({ fetch: async (r) => (first ? ((first = false), proxy429("86400")) : h.fetch(r)) });
    const paused = await client.context.get();
    const before = h.captured.length;
    const start = h.clock.now();
    const checkout = await client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
    expect(h.clock.now() - start).toBe(0);
    expect(h.captured.length).toBe(before); // nothing left the process
    expect(checkout.kind).toBe("unknown");
    if (checkout.kind !== "unknown" || paused.kind !== "unknown") return;
    expect(checkout).toMatchObject({ reason: "deadline", sent: false, retryAt: paused.retryAt, attempts: [] });
    expect(checkout.idempotencyKey).toBeDefined(); // call again with it later: safe (D2)
  });

  it("C12: a per-call deadlineMs overrides the client's — Infinity waits a (long) pause out and succeeds", async () => {
    const h = setup();
    let first = true;
    const client = h.makeClient({ fetch: async (r) => (first ? ((first = false), proxy429("120")) : h.fetch(r)) });
    const start = h.clock.now();
    const out = await client.context.get({}, { deadlineMs: Number.POSITIVE_INFINITY });
    expect(out.kind).toBe("succeeded");
    expect(h.clock.now() - start).toBeGreaterThanOrEqual(120_000);
    expect(ofType(h.events, "proxy-anomaly")).toHaveLength(1); // 120 s > one 60 s window
    const short = await h.makeClient({ deadlineMs: Number.POSITIVE_INFINITY }).context.get({}, { deadlineMs: 5_000 });
    expect(short.kind).toBe("succeeded");
  });

  it("C11: a Retry-After within one window is the API's own — waited out, no anomaly", async () => {
    const h = setup();
    let first = true;
    const client = h.makeClient({ fetch: async (r) => (first ? ((first = false), proxy429("20")) : h.fetch(r)) });
    const out = await client.context.get();
    expect(out.kind).toBe("succeeded");
    expect(ofType(h.events, "proxy-anomaly")).toHaveLength(0);
    expect(ofType(h.events, "deadline")).toHaveLength(0);
  });

  it("I2: a backoff that would pass the deadline returns at once, with when the retry was due", async () => {
    const h = setup();
    const client = h.makeClient({
      deadlineMs: 4_000,
      fetch: async () => new Response("busy", { status: 503 }),
    });
    const start = h.clock.now();
    const out = await client.context.get();
    expect(out.kind).toBe("unknown");
    if (out.kind !== "unknown") return;
    expect(out).toMatchObject({ reason: "deadline", sent: true, status: 503 });
    expect(h.clock.now() - start).toBeLessThan(4_000);
    expect(out.retryAt).toBeGreaterThan(h.clock.now());
    expect(out.attempts.length).toBeGreaterThanOrEqual(2); // the retries that fitted were made
    expect(ofType(h.events, "deadline")[0].waitingFor).toBe("backoff");
  });

  it("C3/I3: a full window — the call whose slot comes after its deadline is not sent", async () => {
    const L = 2;
    const h = setup({ rateLimit: L, client: { pacing: { initialLimit: L } } });
    const outs = await Promise.all(
      // Evenly spaced (C8): the 2nd slot is ≈ 30 s in, the 3rd only after the window's end (≥ 60 s).
      Array.from({ length: 3 }, () => h.client.domains.get({ domainUuid: h.domainUuid }, { deadlineMs: 45_000 })),
    );
    expect(outs.map((o) => o.kind)).toEqual(["succeeded", "succeeded", "unknown"]);
    const late = outs[2];
    if (late.kind !== "unknown") return;
    expect(late).toMatchObject({ reason: "deadline", sent: false, attempts: [] });
    expect(late.retryAt).toBeGreaterThanOrEqual(h.clock.now());
    expect(requestsTo(h.captured, "GET", `/domains/${h.domainUuid}`)).toHaveLength(2);
  });

  it("C8: waiting behind the concurrency cap ends at the deadline — not sent, retryAt unknown", async () => {
    const h = setup({ client: { pacing: { maxConcurrency: 1, initialLimit: 10_000 } } });
    const client = h.makeClient({ fetch: () => new Promise<Response>(() => undefined), pacing: { maxConcurrency: 1 } });
    const hung = client.context.get({}, { timeoutMs: 20_000 });
    const queued = await client.context.get({}, { deadlineMs: 3_000 });
    expect(queued).toMatchObject({ kind: "unknown", reason: "deadline", sent: false, retryAt: null });
    expect((await hung).kind).toBe("unknown");
  });

  it("C8: a later waiter with an earlier deadline is released at ITS deadline, not the queue's", async () => {
    const h = setup();
    const client = h.makeClient({ fetch: () => new Promise<Response>(() => undefined), pacing: { maxConcurrency: 1 } });
    const hung = client.context.get({}, { timeoutMs: 30_000, deadlineMs: 30_000 });
    const patient = client.context.get({}, { deadlineMs: 20_000 });
    const start = h.clock.now();
    const hurried = await client.context.get({}, { deadlineMs: 2_000 });
    expect(hurried).toMatchObject({ kind: "unknown", reason: "deadline", sent: false });
    expect(h.clock.now() - start).toBeLessThanOrEqual(2_000);
    expect((await patient).kind).toBe("unknown");
    expect((await hung).kind).toBe("unknown");
  });

  it("E4: an attempt's timeout is cut to what is left of the deadline", async () => {
    const h = setup();
    const client = h.makeClient({
      timeoutMs: 30_000,
      deadlineMs: 3_000,
      fetch: () => new Promise<Response>(() => undefined),
    });
    const start = h.clock.now();
    const out = await client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
    expect(h.clock.now() - start).toBeLessThanOrEqual(3_000);
    expect(out.kind).toBe("unknown");
    if (out.kind !== "unknown") return;
    expect(out.cause).toBeInstanceOf(TimeoutError);
    expect(out.reason === "timeout" || out.reason === "deadline").toBe(true);
  });

  it("E4: the caller's signal still bounds the whole call — an abort during a pause throws for a read", async () => {
    const h = setup();
    let first = true;
    const client = h.makeClient({
      deadlineMs: Number.POSITIVE_INFINITY,
      fetch: async (r) => (first ? ((first = false), proxy429("30")) : h.fetch(r)),
    });
    const ac = new AbortController();
    void h.clock.sleep(5_000).then(() => ac.abort());
    await expect(client.context.get({}, { signal: ac.signal })).rejects.toBeInstanceOf(RequestAbortedError);
  });

  it("deadlineMs must be positive: InvalidOptionsError for the client, InvalidArgumentError per call", async () => {
    const h = setup();
    for (const bad of [0, -1, Number.NaN, "10" as unknown as number]) {
      expect(() => h.makeClient({ deadlineMs: bad })).toThrow(InvalidOptionsError);
      await expect(h.client.context.get({}, { deadlineMs: bad })).rejects.toBeInstanceOf(InvalidArgumentError);
    }
    expect(() => h.makeClient({ maxResponseBytes: 0 })).toThrow(InvalidOptionsError);
  });

  it("C12: pacer.acquire(key, signal, deadlineAt) rejects with DeadlineExceededError instead of waiting out a pause", async () => {
    const clock = new VirtualClock();
    const pacer = createPacer({ clock, windowMs: 60_000 });
    const ticket = await pacer.acquire("k");
    ticket.release({ receivedAt: clock.now(), status: 429, retryAfter: "600", isRateLimit: true });
    const err = await pacer.acquire("k", undefined, clock.now() + 1_000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeadlineExceededError);
    expect(err).toMatchObject({ code: "deadline_exceeded", waitingFor: "pause" });
    expect((err as DeadlineExceededError).retryAt).toBeGreaterThanOrEqual(clock.now() + 600_000);
    expect(clock.now()).toBe(Date.UTC(2026, 9, 5, 9, 0, 0)); // no time passed
  });

  it("C12/I1: a pause set by another process (a shared store) also ends the wait at the deadline", async () => {
    const clock = new VirtualClock();
    const shared = createMemoryWindowStore();
    // Not the in-process class: the pacer takes its async store path, as with the Redis store.
    const store: WindowStore = {
      reserve: (k, p) => shared.reserve(k, p),
      refund: (k, w) => shared.refund(k, w),
      confirmWindowStart: (k, w, t) => shared.confirmWindowStart(k, w, t),
      observe: (k, p) => shared.observe(k, p),
      pauseUntil: (k, u, w, c) => shared.pauseUntil(k, u, w, c),
      peek: (k, n) => shared.peek(k, n),
      close: () => shared.close(),
    };
    const pacer = createPacer({ clock, store });
    await shared.pauseUntil("k", clock.now() + 600_000, null, true); // the other process got the 429
    const err = await pacer.acquire("k", undefined, clock.now() + 5_000).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "deadline_exceeded", waitingFor: "pause", retryAt: clock.now() + 600_000 });
    expect(clock.now()).toBe(Date.UTC(2026, 9, 5, 9, 0, 0));
    const ticket = await pacer.acquire("k", undefined, clock.now() + 700_000); // a deadline after the pause: waits
    expect(clock.now()).toBeGreaterThanOrEqual(Date.UTC(2026, 9, 5, 9, 10, 0));
    ticket.release({ receivedAt: clock.now(), status: 200 });
  });
});
