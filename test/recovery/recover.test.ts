// client.recover() against the in-process emulator with one shared VirtualClock (G4, D3, D6, D7,
// F1, F4, I4, I5, I6, C12). "Crashed" commands are written with the journal API exactly as the
// client leaves them (recorded → sending, attempts appended after each response) and, for
// "the server committed before the crash", delivered to the emulator with the same key and bytes.
import { describe, expect, it } from "vitest";
import { createMemoryJournal } from "../../stores/memory-journal";
import type { Journal, NewCommand } from "../../journal";
import type { ClientEvent } from "../../core";
import type { OperationId } from "../../generated/operations";
import { VirtualClock } from "../../runtime/clock";
import { BASE_URL, decode, requestsTo, setup, type Harness } from "../client/harness";
import { fingerprintSync } from "../../stores/sqlite-backfill";
import { tempSqliteJournals } from "../support/journal";

const sqlite = tempSqliteJournals("reseller-recover-");

const enc = (s: string) => new TextEncoder().encode(s);
let seq = 0;

interface Crash {
  operationId: OperationId;
  method: NewCommand["method"];
  path: string;
  body: string | null;
  externalId?: string;
  lockKey?: string | null;
  /** "recorded": never reached the send path; "sending": died mid-flight. */
  state: "recorded" | "sending";
  /** The server received and committed the request before the crash. */
  delivered?: boolean;
  createdAt?: number;
  key?: string;
}

/** Leaves a command in the journal exactly where a killed client process would have left it. */
async function crashed(h: Harness, journal: Journal, c: Crash) {
  const key = c.key ?? `cmd-${++seq}-${Math.floor(h.clock.now())}`;
  const rec = await journal.record({
    id: crypto.randomUUID(),
    environment: "test",
    apiKeyId: h.publicKeyId,
    operationId: c.operationId,
    method: c.method,
    path: c.path,
    query: "",
    body: c.body === null ? null : enc(c.body),
    fingerprint: fingerprintSync(c.method, c.path, "", c.body === null ? null : enc(c.body)),
    idempotencyKey: key,
    externalId: c.externalId ?? null,
    lockKey: c.lockKey ?? null,
    createdAt: c.createdAt ?? h.clock.now(),
  });
  if (c.state === "sending") await journal.transition(rec.id, "sending");
  if (c.delivered) {
    const res = await h.emulator.fetch(`${BASE_URL}${c.path}`, {
      method: c.method,
      headers: {
        authorization: `Bearer ${h.token}`,
        "idempotency-key": key,
        "content-type": "application/json",
        "x-request-id": `pre-crash-${seq}`,
      },
      body: c.body ?? undefined,
    });
    expect(res.status).toBeLessThan(300);
  }
  return { id: rec.id, key, body: c.body };
}

const renewCrash = (h: Harness, extra: Partial<Crash> = {}): Crash => ({
  operationId: "domains.renew",
  method: "POST",
  path: `/domains/${h.domainUuid}/renew`,
  body: '{ "period": 1 }', // odd whitespace on purpose: the exact bytes must travel (D4)
  lockKey: `domain:${h.domainUuid}`,
  state: "sending",
  ...extra,
});

const orderCrash = (externalId: string, extra: Partial<Crash> = {}): Crash => ({
  operationId: "orders.create",
  method: "POST",
  path: "/orders",
  body: JSON.stringify({ external_id: externalId, action: "register", domain: `${externalId}.kz`, period: 1 }),
  externalId,
  lockKey: `domain-name:${externalId}.kz`,
  state: "sending",
  ...extra,
});

const effectsOf = (h: Harness, kind: string) => h.emulator.control.effects().filter((e) => e.kind === kind);

describe("recover(): possibly-sent commands", () => {
  it("D3/G4: a renew killed after the server committed is resent with the SAME key and bytes → one renewal", async () => {
    const h = setup();
    const { journal } = sqlite();
    const c = await crashed(h, journal, renewCrash(h, { delivered: true }));
    const client = h.makeClient({ journal });
    const first = await client.recover();
    expect(first.examined).toBe(1);
    // Replayed 202; the operation is still pending in the emulator's lifecycle (F3: not a failure).
    expect(first.stillPending.map((p) => p.to)).toEqual(["accepted"]);
    h.clock.advance(10_000);
    const second = await client.recover();
    expect(second.resolved).toEqual([expect.objectContaining({ commandId: c.id, from: "accepted", to: "completed" })]);
    const sent = requestsTo(h.captured, "POST", "/renew");
    expect(sent).toHaveLength(1);
    expect(sent[0].headers["idempotency-key"]).toBe(c.key);
    expect(decode(sent[0].body)).toBe(c.body);
    expect(effectsOf(h, "domain.renew")).toHaveLength(1);
    expect((await journal.get(c.id))?.state).toBe("completed");
  });

  it("I4/F5: an order killed after the server created it is found by external_id — no second POST", async () => {
    const h = setup();
    const { journal } = sqlite();
    const c = await crashed(h, journal, orderCrash("ext-found", { delivered: true }));
    const summary = await h.makeClient({ journal }).recover();
    expect(summary.resolved).toEqual([expect.objectContaining({ commandId: c.id, from: "sending", to: "succeeded" })]);
    expect(requestsTo(h.captured, "POST", "/orders")).toHaveLength(0);
    expect(requestsTo(h.captured, "GET", "/orders")).toHaveLength(1);
    expect(effectsOf(h, "order.create")).toHaveLength(1);
    const rec = await journal.get(c.id);
    expect(rec?.resources.orderUuid).toBe(effectsOf(h, "order.create")[0].resource_uuid);
    expect(rec?.reconciliation).toMatch(/external_id/);
  });

  it("I4/D3: an order that never reached the server is not found, then resent with the same key and bytes → one order", async () => {
    const h = setup();
    const { journal } = sqlite();
    const c = await crashed(h, journal, orderCrash("ext-missing"));
    const summary = await h.makeClient({ journal }).recover();
    expect(summary.resolved).toEqual([expect.objectContaining({ commandId: c.id, to: "succeeded" })]);
    const posts = requestsTo(h.captured, "POST", "/orders");
    expect(posts).toHaveLength(1);
    expect(posts[0].headers["idempotency-key"]).toBe(c.key);
    expect(decode(posts[0].body)).toBe(c.body);
    expect(effectsOf(h, "order.create")).toHaveLength(1);
  });

  it("D6/D7: past the replay TTL an order not found by external_id → needs_manual_check, nothing sent", async () => {
    const h = setup();
    const { journal } = sqlite();
    const c = await crashed(h, journal, orderCrash("ext-late", { createdAt: h.clock.now() - 25 * 3_600_000 }));
    const summary = await h.makeClient({ journal }).recover();
    expect(summary.manual).toHaveLength(1);
    expect(summary.manual[0].manualCheck.reason).toMatch(/TTL/);
    expect(requestsTo(h.captured, "POST", "/orders")).toHaveLength(0);
    const rec = await journal.get(c.id);
    expect(rec?.state).toBe("needs_manual_check");
    expect(rec?.manualCheck?.requestIds.length).toBeGreaterThan(0); // the lookup's X-Request-ID (F4)
  });

  it("D7: past the TTL a renew is resent with the same key; the durable binding returns the SAME operation", async () => {
    const h = setup({ emulator: { replayTtlMs: 3_600_000 } });
    const { journal } = sqlite();
    const c = await crashed(h, journal, renewCrash(h, { delivered: true }));
    h.clock.advance(26 * 3_600_000); // well past the emulator's and the client's TTL
    const summary = await h.makeClient({ journal }).recover({ replayTtlMs: 3_600_000, safetyMarginMs: 60_000 });
    expect(summary.resolved).toEqual([expect.objectContaining({ commandId: c.id, to: "completed" })]);
    expect(requestsTo(h.captured, "GET", /\/operations$/)).toHaveLength(1); // G4: the operations are looked up first
    expect(effectsOf(h, "domain.renew")).toHaveLength(1);
    expect(requestsTo(h.captured, "POST", "/renew").every((r) => r.headers["idempotency-key"] === c.key)).toBe(true);
  });

  it("D7: asyncResendPastTtl: false → a renew past the TTL becomes needs_manual_check with the domain UUID", async () => {
    const h = setup();
    const { journal } = sqlite();
    await crashed(h, journal, renewCrash(h, { createdAt: h.clock.now() - 30 * 3_600_000 }));
    const summary = await h.makeClient({ journal }).recover({ asyncResendPastTtl: false });
    expect(summary.manual[0].manualCheck.domainUuid).toBe(h.domainUuid);
    expect(requestsTo(h.captured, "POST", "/renew")).toHaveLength(0);
  });

  it("D6/F4: a key stuck in processing answers 409 → needs_manual_check with every X-Request-ID, never a new key", async () => {
    const h = setup();
    const { journal } = sqlite();
    h.emulator.control.addFault({ method: "POST", path: "/domains/{domainUuid}/renew", kind: "stuck_processing" });
    const key = "stuck-renew-1";
    // The first attempt hangs on the server (reserved, never executed): the process dies meanwhile.
    const hung = h.emulator.fetch(`${BASE_URL}/domains/${h.domainUuid}/renew`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.token}`, "idempotency-key": key, "content-type": "application/json" },
      body: '{"period":1}',
      signal: AbortSignal.timeout(50),
    });
    hung.catch(() => undefined);
    const c = await crashed(h, journal, renewCrash(h, { key, body: '{"period":1}' }));
    const summary = await h.makeClient({ journal }).recover();
    expect(summary.manual).toHaveLength(1);
    const check = summary.manual[0].manualCheck;
    expect(check.reason).toMatch(/409/);
    expect(check.domainUuid).toBe(h.domainUuid);
    expect(check.requestIds.length).toBeGreaterThan(0);
    const posts = requestsTo(h.captured, "POST", "/renew");
    expect(posts.length).toBeGreaterThan(0);
    expect(new Set(posts.map((p) => p.headers["idempotency-key"]))).toEqual(new Set([key]));
    expect((await journal.get(c.id))?.state).toBe("needs_manual_check");
    expect(effectsOf(h, "domain.renew")).toHaveLength(0);
  });

  it("F4/D5: a `report` write (webhooks.create) that may have been sent is never resent → needs_manual_check", async () => {
    const h = setup();
    const { journal } = sqlite();
    await crashed(h, journal, {
      operationId: "webhooks.create",
      method: "POST",
      path: "/webhooks",
      body: JSON.stringify({ url: "https://hooks.example/x", events: ["operation.completed"] }),
      state: "sending",
    });
    const summary = await h.makeClient({ journal }).recover();
    expect(summary.manual).toHaveLength(1);
    expect(h.captured).toHaveLength(0);
  });
});

describe("recover(): other states", () => {
  it("G1: a `recorded` command with no attempt was never sent → sent normally with its journalled key", async () => {
    const h = setup();
    const { journal } = sqlite();
    const c = await crashed(h, journal, renewCrash(h, { state: "recorded" }));
    const summary = await h.makeClient({ journal }).recover();
    expect(summary.stillPending[0]).toMatchObject({ commandId: c.id, from: "recorded", to: "accepted" });
    expect(requestsTo(h.captured, "POST", "/renew")[0].headers["idempotency-key"]).toBe(c.key);
    expect(effectsOf(h, "domain.renew")).toHaveLength(1);
  });

  it("F1/F3: accepted → completed / failed only from the operation's status; pending stays accepted", async () => {
    const h = setup({ emulator: { operationPolicy: { outcome: "failed" } } });
    const { journal } = sqlite();
    const client = h.makeClient({ journal });
    const outcome = await client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
    expect(outcome.kind).toBe("accepted");
    const early = await client.recover();
    expect(early.stillPending[0]).toMatchObject({ from: "accepted", to: "accepted" });
    expect(early.stillPending[0].reason).toMatch(/pending|processing/);
    h.clock.advance(10_000);
    const late = await client.recover();
    expect(late.resolved[0]).toMatchObject({ from: "accepted", to: "failed" });
    expect(effectsOf(h, "domain.renew")).toHaveLength(1);
  });

  it("I6: the domain lock is released once recovery settles the command; needs_manual_check keeps it", async () => {
    const h = setup();
    const { journal } = sqlite();
    await crashed(h, journal, orderCrash("lock-a", { delivered: true }));
    await crashed(h, journal, orderCrash("lock-b", { createdAt: h.clock.now() - 25 * 3_600_000 }));
    const client = h.makeClient({ journal });
    await client.recover();
    const again = await client.orders.create({
      body: { external_id: "lock-a-2", action: "register", domain: "lock-a.kz", period: 1 },
    });
    expect(again.kind).toBe("succeeded"); // the lock of lock-a.kz was released (the domain is then taken server-side)
    await expect(
      client.orders.create({ body: { external_id: "lock-b-2", action: "register", domain: "lock-b.kz", period: 1 } }),
    ).rejects.toThrow(/already in flight/);
  });

  it("G4: only this client's API key and environment are examined", async () => {
    const h = setup();
    const journal = createMemoryJournal();
    await crashed(h, journal, renewCrash(h));
    await journal.record({
      id: crypto.randomUUID(),
      environment: "test",
      apiKeyId: "OTHERKEYOTHERKEYOTHERKEY",
      operationId: "domains.sync",
      method: "POST",
      path: `/domains/${h.domainUuid}/sync`,
      query: "",
      body: null,
      fingerprint: fingerprintSync("POST", `/domains/${h.domainUuid}/sync`, "", null),
      idempotencyKey: "other-key",
      externalId: null,
      lockKey: null,
      createdAt: h.clock.now(),
    });
    const summary = await h.makeClient({ journal }).recover();
    expect(summary.examined).toBe(1);
    expect((await journal.findByIdempotencyKey("OTHERKEYOTHERKEYOTHERKEY", "other-key"))?.state).toBe("recorded");
  });

  it("C12: a 429 journalled just before the crash pauses recovery for the window before any request", async () => {
    const h = setup();
    const { journal } = sqlite();
    const c = await crashed(h, journal, renewCrash(h));
    await journal.addAttempt(c.id, { at: h.clock.now(), delayMs: 0, status: 429, errorCode: "rate_limit_exceeded" });
    const crashAt = h.clock.now();
    const events: string[] = [];
    await h
      .makeClient({ journal, pacing: { windowMs: 60_000, initialLimit: 10_000 } })
      .recover({ onEvent: (e) => events.push(e.type) });
    const firstRequest = h.captured[0];
    expect(firstRequest.at).toBeGreaterThanOrEqual(crashAt + 60_000);
    expect(events).toContain("recovery-pause");
  });

  it("I7: recovery steps also reach the client's onEvent, redacted", async () => {
    const h = setup();
    const { journal } = sqlite();
    await crashed(h, journal, renewCrash(h));
    const seen: ClientEvent[] = [];
    const own: string[] = [];
    await h.makeClient({ journal, onEvent: (e) => seen.push(e) }).recover({ onEvent: (e) => own.push(e.type) });
    const recovery = seen.filter((e) => e.type === "recovery").map((e) => (e.type === "recovery" ? e.event.type : ""));
    expect(recovery).toContain("recovery-start");
    expect(recovery).toContain("recovery-result");
    expect(recovery).toEqual(own); // the same steps, in the same order, to both listeners
    expect(JSON.stringify(seen)).not.toContain(h.token.split(".")[1]);
  });

  it("I5: two recoverers on one SQLite journal claim each command once; one renewal per command", async () => {
    const h = setup();
    const { journal, filename } = sqlite();
    const { journal: other } = sqlite(filename);
    for (let i = 0; i < 6; i++) {
      const d = h.emulator.control.createDomain({ token: h.token, name: `race${i}.kz` });
      await crashed(h, journal, {
        ...renewCrash(h),
        path: `/domains/${d.uuid}/renew`,
        lockKey: `domain:${d.uuid}`,
        delivered: i % 2 === 0,
      });
    }
    const [a, b] = await Promise.all([h.makeClient({ journal }).recover(), h.makeClient({ journal: other }).recover()]);
    const handled = [...a.stillPending, ...a.resolved, ...b.stillPending, ...b.resolved].map((t) => t.commandId);
    expect(new Set(handled).size).toBe(6);
    expect(effectsOf(h, "domain.renew")).toHaveLength(6);
    const keys = h.emulator.control.effects().map((e) => e.idempotency_key);
    expect(new Set(keys).size).toBe(6);
  });

  it("G4: recoverOnStart settles the journal before facade writes go out; client.recovery has the summary", async () => {
    const h = setup();
    const { journal } = sqlite();
    const c = await crashed(h, journal, orderCrash("on-start", { delivered: true }));
    const client = h.makeClient({ journal, recoverOnStart: true });
    const write = client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
    const summary = await client.recovery!;
    expect(summary.resolved[0]).toMatchObject({ commandId: c.id, to: "succeeded" });
    expect((await write).kind).toBe("accepted");
    const order = h.captured.findIndex((r) => r.method === "GET" && r.url.includes("/orders"));
    const renew = h.captured.findIndex((r) => r.url.endsWith("/renew"));
    expect(order).toBeLessThan(renew);
  });

  it("A9/F4: a journalled command the client now refuses locally (malformed UUID) → needs_manual_check, nothing sent", async () => {
    const h = setup();
    const { journal } = sqlite();
    const c = await crashed(h, journal, renewCrash(h, { path: "/domains/not-a-uuid/renew", lockKey: null }));
    const summary = await h.makeClient({ journal }).recover();
    expect(summary.manual[0]).toMatchObject({ commandId: c.id, to: "needs_manual_check" });
    expect(summary.manual[0].manualCheck.reason).toMatch(/refused locally/);
    expect(h.captured).toHaveLength(0);
  });

  it("G4: an aborted recover() leaves the commands it did not reach as they were", async () => {
    const h = setup();
    const { journal } = sqlite();
    const c = await crashed(h, journal, renewCrash(h));
    const abort = new AbortController();
    abort.abort();
    const summary = await h.makeClient({ journal }).recover({ signal: abort.signal });
    expect(summary.skipped).toEqual([{ commandId: c.id, reason: "aborted" }]);
    expect((await journal.get(c.id))?.state).toBe("sending");
    expect(h.captured).toHaveLength(0);
  });

  it("G4: commands newer than staleAfterMs are reported in tooRecent with when they become stale, not silently passed over", async () => {
    const h = setup();
    const { journal } = sqlite();
    const before = Date.now(); // updatedAt is the journal's clock
    const c = await crashed(h, journal, renewCrash(h));
    const client = h.makeClient({ journal });
    const early = await client.recover({ staleAfterMs: 5 * 60_000 });
    expect(early).toMatchObject({ examined: 0, resolved: [], manual: [], stillPending: [], skipped: [] });
    expect(early.tooRecent).toEqual([{ commandId: c.id, staleAt: expect.any(Number) }]);
    expect(early.tooRecent[0].staleAt).toBeGreaterThanOrEqual(before + 5 * 60_000);
    expect(early.tooRecent[0].staleAt).toBeLessThanOrEqual(Date.now() + 5 * 60_000);
    expect((await journal.get(c.id))?.state).toBe("sending");
    expect(h.captured).toHaveLength(0);
    // One process on the journal: staleAfterMs 0 (the default) takes it at once.
    const now = await client.recover();
    expect(now.examined).toBe(1);
    expect(now.tooRecent).toEqual([]);
    expect(now.stillPending.map((p) => p.commandId)).toEqual([c.id]);
  });

  it("G1: recover() without a journal is a typed error; recoverOnStart without one fails at start-up", async () => {
    const h = setup();
    expect(() => h.makeClient().recover()).toThrow(/needs the journal option/);
    expect(() => h.makeClient({ recoverOnStart: true })).toThrow(/journal/);
  });
});

describe("recover(): this client's own calls in flight (no fleet option)", () => {
  it.each(["memory", "sqlite"] as const)(
    "G4/I5: recover() on the client that is sending a write right now leaves that command alone (%s journal)",
    async (kind) => {
      const h = setup();
      const journal = kind === "memory" ? createMemoryJournal({ clock: h.clock }) : sqlite().journal;
      // The renew is held at the wire until the test lets it go: the call is in flight meanwhile. The
      // client's clock does not run by itself, so no attempt timeout can end the call early.
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let arrived!: () => void;
      const atWire = new Promise<void>((resolve) => (arrived = resolve));
      const gated = async (request: Request) => {
        if (request.method === "POST" && new URL(request.url).pathname.endsWith("/renew")) {
          arrived();
          await gate;
        }
        return h.fetch(request);
      };
      const clock = new VirtualClock({ autoAdvance: false });
      const client = h.makeClient({ journal, fetch: gated, clock, retry: { maxAttempts: 1 } });
      /** Runs the client's clock 1 ms at a time (at most 2 s, far below its 30 s timeout) until p settles. */
      const pumped = async <T>(p: Promise<T>): Promise<T> => {
        let done = false;
        void p.then(
          () => (done = true),
          () => (done = true),
        );
        for (let i = 0; i < 2000 && !done; i++) {
          clock.advance(1);
          await new Promise((r) => setTimeout(r, 0));
        }
        return p;
      };
      const call = client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } }, { idempotencyKey: "own-1" });
      await pumped(atWire);
      const inFlight = await journal.findByIdempotencyKey(client.credential.publicKeyId, "own-1");
      expect(["recorded", "sending"]).toContain(inFlight?.state); // recorded → sending rides on the attempt write

      const summary = await pumped(client.recover());
      expect(summary.examined).toBe(0); // not picked up: its call is still running
      release();
      const out = await pumped(call); // ends on its own terms, no InvalidTransitionError
      expect(out.kind).toBe("accepted");
      expect((await journal.get(out.commandId!))?.state).toBe("accepted");
      expect(requestsTo(h.captured, "POST", "/renew")).toHaveLength(1);

      const after = await pumped(client.recover()); // the call is over: now recovery may settle it
      expect(after.examined).toBe(1);
      expect(h.emulator.control.effects().filter((e) => e.idempotency_key === "own-1")).toHaveLength(1);
    },
  );
});
