// Never buy twice under same-key calls, the way an application makes them: a checkout step retried,
// a job re-run after the server's replay TTL, two requests of one user at once, a second worker of
// the fleet — and journal races after a send, which must come back as an Outcome, never a throw.
// In-process emulator (short replay TTL) and one VirtualClock for clients, emulator and journal.
import { describe, expect, it } from "vitest";
import { createMemoryJournal } from "../../stores/memory-journal";
import { InvalidTransitionError, commandFingerprint, type Journal } from "../../journal";
import { requestsTo, setup, type Harness } from "../client/harness";

const TTL = 2_000;
const effects = (h: Harness, kind: string) => h.emulator.control.effects().filter((e) => e.kind === kind);
const order = (name: string) => ({
  external_id: `ext-${name}`,
  action: "register" as const,
  domain: `${name}.kz`,
  period: 1,
});

describe("same key, settled command: a local replay from the journal", () => {
  it("D5/D6: an order re-run with the same key after the replay TTL → the journalled outcome, 1 POST, 1 order.create", async () => {
    const h = setup({ emulator: { replayTtlMs: TTL } });
    const journal = createMemoryJournal({ clock: h.clock });
    const client = h.makeClient({ journal });
    const body = order("rerun-one");
    const first = await client.orders.create({ body }, { idempotencyKey: "rerun-1" });
    expect(first.kind).toBe("succeeded");
    h.clock.advance(TTL + 500); // the server forgot the key: a resend now would create a SECOND order
    const again = await client.orders.create({ body }, { idempotencyKey: "rerun-1" });
    expect(again.kind).toBe("succeeded");
    expect(again.localReplay).toMatchObject({ source: "journal", state: "succeeded", bodyAvailable: true });
    expect(again.attempts).toEqual([]);
    expect(again.commandId).toBe(first.commandId);
    const uuid = (o: typeof first) =>
      o.kind === "succeeded" ? (o.data as { data: { uuid: string } }).data.uuid : null;
    expect(uuid(again)).toBe(uuid(first));
    expect(requestsTo(h.captured, "POST", "/orders")).toHaveLength(1);
    expect(effects(h, "order.create")).toHaveLength(1);
    expect(h.events.some((e) => e.type === "local-replay" && e.source === "journal" && e.kind === "succeeded")).toBe(
      true,
    );
  });

  it("D5/F1: every settled state replays without sending — rejected, accepted, completed, needs_manual_check, a pruned body", async () => {
    const h = setup({ emulator: { replayTtlMs: TTL } });
    const journal = createMemoryJournal({ clock: h.clock });
    const client = h.makeClient({ journal });
    // rejected: a renewal of a domain that is not there (404).
    const missing = "00000000-0000-4000-8000-000000000000";
    const rejected = await client.domains.renew(
      { domainUuid: missing, body: { period: 1 } },
      { idempotencyKey: "r-1" },
    );
    expect(rejected.kind).toBe("rejected");
    // accepted, then completed through operations.wait.
    const renew = () =>
      client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } }, { idempotencyKey: "a-1" });
    const accepted = await renew();
    expect(accepted.kind).toBe("accepted");
    const acceptedAgain = await renew();
    expect(acceptedAgain).toMatchObject({ kind: "accepted", localReplay: { state: "accepted" } });
    expect(acceptedAgain.kind === "accepted" && acceptedAgain.operationUuid).toBe(
      accepted.kind === "accepted" && accepted.operationUuid,
    );
    const done = await client.operations.wait(accepted.kind === "accepted" ? accepted.operationUuid : "", {
      commandId: accepted.commandId,
    });
    expect(done.kind).toBe("completed");
    h.clock.advance(TTL + 500);
    const completedAgain = await renew();
    expect(completedAgain).toMatchObject({ kind: "accepted", localReplay: { state: "completed" } });
    expect(completedAgain.kind === "accepted" && completedAgain.operation.status).toBe("completed");
    const rejectedAgain = await client.domains.renew(
      { domainUuid: missing, body: { period: 1 } },
      { idempotencyKey: "r-1" },
    );
    expect(rejectedAgain).toMatchObject({ kind: "rejected", status: 404, localReplay: { state: "rejected" } });

    // needs_manual_check, and a succeeded command whose response body the journal no longer holds.
    const bytes = (b: unknown) => new TextEncoder().encode(JSON.stringify(b));
    const manualBody = order("manual-one");
    const prunedBody = order("pruned-one");
    const base = { environment: "test" as const, apiKeyId: h.publicKeyId, operationId: "orders.create" as const };
    const seed = async (id: string, key: string, body: unknown) =>
      journal.record({
        ...base,
        id,
        method: "POST",
        path: "/orders",
        query: "",
        body: bytes(body),
        fingerprint: await commandFingerprint("POST", "/orders", "", bytes(body)),
        idempotencyKey: key,
        externalId: null,
        lockKey: null,
        createdAt: h.clock.now(),
      });
    await seed("cmd-manual", "m-1", manualBody);
    for (const to of ["sending", "unknown", "reconciling"] as const) await journal.transition("cmd-manual", to);
    await journal.transition("cmd-manual", "needs_manual_check", {
      reconciliation: "lookup failed twice",
      manualCheck: { reason: "lookup failed twice", requestIds: [] },
    });
    await seed("cmd-pruned", "p-1", prunedBody);
    await journal.transition("cmd-pruned", "sending");
    await journal.transition("cmd-pruned", "succeeded", {
      response: { status: 201, body: null },
      resources: { orderUuid: "11111111-2222-4333-8444-555555555555" },
    });
    const manual = await client.orders.create({ body: manualBody }, { idempotencyKey: "m-1" });
    expect(manual).toMatchObject({ kind: "unknown", reason: "needs_manual_check", attempts: [] });
    const pruned = await client.orders.create({ body: prunedBody }, { idempotencyKey: "p-1" });
    expect(pruned).toMatchObject({
      kind: "succeeded",
      status: 201,
      data: { data: { uuid: "11111111-2222-4333-8444-555555555555" } },
      localReplay: { bodyAvailable: false },
    });
    expect(requestsTo(h.captured, "POST", /\/renew$/)).toHaveLength(2); // the 404 and the 202, once each
    expect(requestsTo(h.captured, "POST", "/orders")).toHaveLength(0);
    expect(effects(h, "domain.renew").length).toBeLessThanOrEqual(1);
  });
});

describe("same key, command in flight", () => {
  it("D5/I6: two calls with one key at once in one process → the second joins the first: 1 POST, no throw", async () => {
    const h = setup();
    const journal = createMemoryJournal({ clock: h.clock });
    const client = h.makeClient({ journal });
    const body = order("twice-at-once");
    const [a, b] = await Promise.all([
      client.orders.create({ body }, { idempotencyKey: "dup-1" }),
      client.orders.create({ body }, { idempotencyKey: "dup-1" }),
    ]);
    expect([a.kind, b.kind]).toEqual(["succeeded", "succeeded"]);
    // Joined while the first was in flight, or — when the idle key's burst allowance let the first finish
    // before the second reached the journal — replayed from it: either way the same command, never a send.
    expect(["joined", "journal"]).toContain(b.localReplay?.source);
    expect(b.commandId).toBe(a.commandId);
    expect(requestsTo(h.captured, "POST", "/orders")).toHaveLength(1);
  });

  it("D5/I6: another live worker holds the command → conflict in_flight_elsewhere, nothing sent; accepted → its operation", async () => {
    const h = setup();
    const journal = createMemoryJournal({ clock: h.clock });
    const a = h.makeClient({ journal, retry: { maxAttempts: 1 }, fleet: { workerId: "worker-a" } });
    const b = h.makeClient({ journal, fleet: { workerId: "worker-b" } });
    h.emulator.control.addFault({ method: "POST", path: "/domains/{domainUuid}/renew", kind: "reset_after", times: 1 });
    const args = { domainUuid: h.domainUuid, body: { period: 1 } };
    const unknown = await a.domains.renew(args, { idempotencyKey: "held-1" });
    expect(unknown.kind).toBe("unknown"); // worker-a's lease is live: it reconciles it
    const second = await b.domains.renew(args, { idempotencyKey: "held-1" });
    expect(second).toMatchObject({ kind: "conflict", reason: "in_flight_elsewhere", heldBy: "worker-a", attempts: [] });
    expect(requestsTo(h.captured, "POST", /\/renew$/)).toHaveLength(1);

    const other = h.emulator.control.createDomain({ token: h.token, name: "second.kz" }); // I6: one lock per domain
    const args2 = { domainUuid: other.uuid, body: { period: 1 } };
    const accepted = await a.domains.renew(args2, { idempotencyKey: "held-2" });
    expect(accepted.kind).toBe("accepted");
    const fromB = await b.domains.renew(args2, { idempotencyKey: "held-2" });
    expect(fromB).toMatchObject({ kind: "accepted", localReplay: { source: "journal", state: "accepted" } });
    expect(fromB.kind === "accepted" && fromB.operationUuid).toBe(
      accepted.kind === "accepted" && accepted.operationUuid,
    );
    expect(requestsTo(h.captured, "POST", /\/renew$/)).toHaveLength(2);
    await Promise.all([a.close(), b.close()]);
  });
});

describe("no throw after the server may have executed the call", () => {
  it("E4/I5: the journal refuses the write after a 201 (another mover moved first) → the server's outcome with journalRace, never a throw", async () => {
    const h = setup();
    const memory = createMemoryJournal({ clock: h.clock });
    let refused = 0;
    const racing: Journal = {
      ...memory,
      addAttempt: async (id, attempt, then, lease) => {
        if (then?.to === "succeeded" && refused++ === 0) {
          // What a recovery claim in between does to the state machine: the move is no longer allowed.
          throw new InvalidTransitionError("reconciling", "sending");
        }
        return memory.addAttempt(id, attempt, then, lease);
      },
    };
    const client = h.makeClient({ journal: racing });
    const out = await client.orders.create({ body: order("raced") }, { idempotencyKey: "race-1" });
    expect(out.kind).toBe("succeeded");
    expect(out.journalRace).toMatchObject({ error: "invalid_transition" });
    expect(h.events.some((e) => e.type === "journal-race" && e.error === "invalid_transition")).toBe(true);
    expect(requestsTo(h.captured, "POST", "/orders")).toHaveLength(1);
  });
});
