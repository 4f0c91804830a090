// Fleet mode (client option `fleet`): workers sharing one journal own the commands they send under a
// lease. recover() never takes a live worker's command, takes a dead one's once its lease ran out,
// a restarted worker with the same id takes its own back at once, continuous recovery does it
// without anyone calling recover(), and a worker that lost its lease notices before sending again.
// In-process emulator and one VirtualClock for clients, emulator and the journal's clock.
import { describe, expect, it } from "vitest";
import { createMemoryJournal } from "../../stores/memory-journal";
import type { Journal } from "../../journal";
import { InvalidOptionsError, type ClientEvent } from "../../core";
import type { RecoverSummary } from "../../recovery";
import { requestsTo, setup } from "../client/harness";

const LEASE = 30_000;
const renew = "/renew";

describe("fleet: leases across workers", () => {
  it("a live worker's command is never recovered; once its lease expires a survivor settles it, executed once", async () => {
    const h = setup();
    const journal = createMemoryJournal({ clock: h.clock });
    const a = h.makeClient({ journal, retry: { maxAttempts: 1 }, fleet: { workerId: "worker-a", leaseMs: LEASE } });
    h.emulator.control.addFault({ method: "POST", path: "/domains/{domainUuid}/renew", kind: "reset_after" });
    const out = await a.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } }, { idempotencyKey: "fleet-1" });
    expect(out.kind).toBe("unknown");
    const rec = await journal.get(out.commandId!);
    expect([rec?.state, rec?.owner, rec?.leaseUntil]).toEqual(["unknown", "worker-a", h.clock.now() + LEASE]);

    const b = h.makeClient({ journal, fleet: { workerId: "worker-b", leaseMs: LEASE } });
    const early = await b.recover();
    expect(early.examined).toBe(0); // worker-a may still be working on it
    expect(requestsTo(h.captured, "POST", renew)).toHaveLength(1);

    h.clock.advance(LEASE); // worker-a is gone: no write, no heartbeat for a whole lease
    const late = await b.recover();
    expect(late.examined).toBe(1);
    expect((await journal.get(out.commandId!))?.owner).toBe("worker-b");
    expect([...late.stillPending, ...late.resolved].map((r) => r.commandId)).toEqual([out.commandId]);
    const sends = requestsTo(h.captured, "POST", renew);
    expect(sends).toHaveLength(2); // the original and ONE resend, same key and bytes (D3)
    expect(new Set(sends.map((s) => s.headers["idempotency-key"]))).toEqual(new Set(["fleet-1"]));
    expect(h.emulator.control.effects().filter((e) => e.idempotency_key === "fleet-1")).toHaveLength(1); // executed once
    await Promise.all([a.close(), b.close()]);
  });

  it("a restarted worker with the same workerId takes its commands back at once; a new id waits for the lease", async () => {
    const h = setup();
    const journal = createMemoryJournal({ clock: h.clock });
    const first = h.makeClient({
      journal,
      retry: { maxAttempts: 1 },
      fleet: { workerId: "billing-1", leaseMs: LEASE },
    });
    h.emulator.control.addFault({ method: "POST", path: "/domains/{domainUuid}/renew", kind: "reset_after" });
    const out = await first.domains.renew(
      { domainUuid: h.domainUuid, body: { period: 1 } },
      { idempotencyKey: "fleet-2" },
    );
    expect(out.kind).toBe("unknown");
    await first.close(); // the process "dies"
    const stranger = h.makeClient({ journal, fleet: { workerId: "billing-2", leaseMs: LEASE } });
    expect((await stranger.recover()).examined).toBe(0);
    const restarted = h.makeClient({ journal, fleet: { workerId: "billing-1", leaseMs: LEASE } });
    const summary = await restarted.recover();
    expect(summary.examined).toBe(1);
    expect(summary.skipped).toEqual([]);
    await Promise.all([stranger.close(), restarted.close()]);
  });

  it("continuous recovery: a dead worker's command is settled by a survivor within one lease + one interval, nobody calls recover()", async () => {
    const h = setup();
    const journal = createMemoryJournal({ clock: h.clock });
    const dead = h.makeClient({
      journal,
      retry: { maxAttempts: 1 },
      fleet: { workerId: "worker-dead", leaseMs: LEASE },
    });
    h.emulator.control.addFault({ method: "POST", path: "/domains/{domainUuid}/renew", kind: "reset_after" });
    const out = await dead.domains.renew(
      { domainUuid: h.domainUuid, body: { period: 1 } },
      { idempotencyKey: "fleet-3" },
    );
    expect(out.kind).toBe("unknown");
    await dead.close();
    const diedAt = h.clock.now();
    const rounds: RecoverSummary[] = [];
    const survivor = h.makeClient({
      journal,
      fleet: {
        workerId: "worker-live",
        leaseMs: LEASE,
        continuousRecovery: { intervalMs: 2_000, onRound: (s) => rounds.push(s) },
      },
    });
    let settledAt: number | undefined;
    for (let i = 0; i < 500 && settledAt === undefined; i++) {
      await new Promise((r) => setTimeout(r, 2)); // the VirtualClock advances while everyone waits
      const rec = await journal.get(out.commandId!);
      if (rec?.owner === "worker-live" && rec.state !== "unknown") settledAt = h.clock.now();
    }
    await survivor.close();
    expect(settledAt, JSON.stringify(rounds)).toBeDefined();
    expect(settledAt! - diedAt).toBeLessThanOrEqual(LEASE + 2_000 + 1_000); // + the resend's own pacing
    expect(rounds.some((r) => r.examined === 1)).toBe(true);
    expect(requestsTo(h.captured, "POST", renew)).toHaveLength(2);
  });

  it("E4/I5: lost lease after a send — the worker notices before sending again and returns a typed Outcome (unknown, journal_race), never a throw", async () => {
    const h = setup();
    const memory = createMemoryJournal({ clock: h.clock });
    let claimedBySurvivor = false;
    let survivorRecovery: Promise<RecoverSummary> | undefined;
    const survivor = h.makeClient({ journal: memory, fleet: { workerId: "worker-b", leaseMs: LEASE } });
    // worker-a's view of the journal: heartbeats fail (a partition) until worker-b has taken over.
    const partitioned: Journal = {
      ...memory,
      // Once the lease has run out, the partition heals only after worker-b's recovery has taken the
      // command: the order of events is fixed, whatever the machine's load.
      renewLeases: async (lease, ids) => {
        if (!claimedBySurvivor) {
          if (h.clock.now() < startedAt + LEASE) throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
          survivorRecovery ??= survivor.recover().finally(() => (claimedBySurvivor = true));
          await survivorRecovery;
        }
        return memory.renewLeases(lease, ids);
      },
    };
    const events: ClientEvent[] = [];
    const a = h.makeClient({
      journal: partitioned,
      onEvent: (e) => events.push(e),
      retry: { maxAttempts: 3, baseMs: 45_000, capMs: 45_000 }, // the retry comes after the lease ran out
      fleet: { workerId: "worker-a", leaseMs: LEASE, heartbeatMs: 10_000 },
    });
    h.emulator.control.addFault({
      method: "POST",
      path: "/domains/{domainUuid}/renew",
      kind: "error_503_before",
      times: 1,
    });
    const startedAt = h.clock.now();
    const call = a.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } }, { idempotencyKey: "fleet-4" });
    const out = await call; // the 503 may have executed it: no throw from here on
    await survivorRecovery;
    expect(out.kind).toBe("unknown");
    expect(out.kind === "unknown" && out.reason).toBe("journal_race");
    expect(out.journalRace).toMatchObject({ error: "lease_lost", currentOwner: "worker-b" });
    expect(events.some((e) => e.type === "journal-race" && e.error === "lease_lost")).toBe(true);
    expect(events.filter((e) => e.type === "lease-renew-failed").length).toBeGreaterThan(0);
    expect(events.some((e) => e.type === "lease-lost" && e.currentOwner === "worker-b")).toBe(true);
    // worker-a sent once (the 503); worker-b's resend is the only other one: nothing sent twice by two owners.
    const sends = requestsTo(h.captured, "POST", renew);
    expect(sends).toHaveLength(2);
    const rec = (await memory.findByIdempotencyKey(h.publicKeyId, "fleet-4"))!;
    expect(rec.owner).toBe("worker-b");
    expect(rec.attempts.map((x) => x.status)).toEqual([503, 202]);
    expect(h.emulator.control.effects().filter((e) => e.idempotency_key === "fleet-4")).toHaveLength(1);
    await Promise.all([a.close(), survivor.close()]);
  });

  it("a worker's own continuous recovery never resends a command one of its calls is still sending (no self-inflicted 409)", async () => {
    const h = setup();
    const journal = createMemoryJournal({ clock: h.clock });
    const rounds: RecoverSummary[] = [];
    const a = h.makeClient({
      journal,
      timeoutMs: 5_000,
      retry: { maxAttempts: 1 },
      fleet: {
        workerId: "worker-a",
        leaseMs: LEASE,
        continuousRecovery: { intervalMs: 100, onRound: (r) => rounds.push(r) },
      },
    });
    h.emulator.control.addFault({ method: "POST", path: "/domains/{domainUuid}/renew", kind: "timeout_before" });
    const out = await a.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } }, { idempotencyKey: "fleet-5" });
    await a.close();
    expect(out.kind).toBe("unknown");
    expect(rounds.length).toBeGreaterThan(10); // rounds ran all through the 5 s hang…
    expect(rounds.every((r) => r.examined === 0)).toBe(true); // …and none took the command in flight
    expect(requestsTo(h.captured, "POST", renew)).toHaveLength(1);
  });

  it("fleet options are checked up front with a fix in the message", () => {
    const h = setup();
    expect(() => h.makeClient({ fleet: { workerId: "w" } })).toThrow(InvalidOptionsError);
    const journal = createMemoryJournal();
    expect(() => h.makeClient({ journal, fleet: { workerId: "" } })).toThrow(/workerId/);
    expect(() => h.makeClient({ journal, fleet: { leaseMs: 10_000, heartbeatMs: 10_000 } })).toThrow(
      /shorter than fleet.leaseMs/,
    );
    expect(() => h.makeClient({ journal, fleet: { continuousRecovery: { batch: 0 } } })).toThrow(/batch/);
    const c = h.makeClient({ journal, fleet: {} });
    expect(c.workerId).toMatch(/^worker-[0-9a-f-]{36}$/);
  });
});
