// Continuous recovery and accepted commands (F1, F3, C8): a survivor that finishes a dead worker's
// accepted renewals polls each operation no sooner than its `next_check_at` (or, without one, a
// growing pause) and reaches every one of them, however long the first ones run — it neither spends
// the key's window on the same few operations every round nor leaves the rest unpolled.
// In-process emulator and one VirtualClock (auto-advancing) for the clients, emulator and journal.
import { describe, expect, it } from "vitest";
import { createMemoryJournal } from "../../stores/memory-journal";
import type { OperationPolicy } from "../../emulator/index";
import { requestsTo, setup } from "../client/harness";

const LEASE = 30_000;
const DOMAINS = 6;
/** Virtual time the survivor runs for after the dead worker's leases ran out. */
const RUN_MS = 5 * 60_000;

async function survivorPolls(policy: OperationPolicy) {
  const h = setup({ emulator: { operationPolicy: policy } });
  const journal = createMemoryJournal({ clock: h.clock });
  const uuids = [h.domainUuid];
  for (let i = 1; i < DOMAINS; i++) {
    uuids.push(h.emulator.control.createDomain({ token: h.token, name: `poll-${i}.kz` }).uuid);
  }
  const dead = h.makeClient({ journal, fleet: { workerId: "worker-dead", leaseMs: LEASE } });
  const operations = new Map<string, string>(); // operation uuid → idempotency key
  for (const [i, domainUuid] of uuids.entries()) {
    const out = await dead.domains.renew({ domainUuid, body: { period: 1 } }, { idempotencyKey: `poll-${i}` });
    expect(out.kind).toBe("accepted");
    if (out.kind === "accepted") operations.set(out.operationUuid, `poll-${i}`);
  }
  await dead.close(); // dies without waiting on its operations
  h.clock.advance(LEASE);
  const from = h.captured.length;
  const survivor = h.makeClient({
    journal,
    fleet: { workerId: "worker-live", leaseMs: LEASE, continuousRecovery: { intervalMs: 2_000, batch: 4 } },
  });
  const until = h.clock.now() + RUN_MS;
  while (h.clock.now() < until) await new Promise((r) => setTimeout(r, 1)); // the clock advances while all wait
  await survivor.close();
  const polls = requestsTo(h.captured.slice(from), "GET", /\/operations\/[^/]+$/);
  const perOperation = new Map<string, number[]>();
  for (const p of polls) {
    const uuid = new URL(p.url).pathname.split("/").at(-1)!;
    perOperation.set(uuid, [...(perOperation.get(uuid) ?? []), p.at]);
  }
  return { h, operations, perOperation, polls };
}

describe("continuous recovery: accepted commands", () => {
  it("F1/F3: an operation whose next_check_at lies ahead is not polled again before it; every accepted command is polled", async () => {
    const recheckMs = 4 * 60_000;
    const { operations, perOperation } = await survivorPolls({
      pendingMs: 100,
      processingMs: 100,
      outcome: "uncertain",
      uncertainRecheckMs: recheckMs,
    });
    expect([...perOperation.keys()].sort()).toEqual([...operations.keys()].sort()); // none left unpolled
    for (const [uuid, at] of perOperation) {
      // uncertain with next_check_at = acceptance + recheckMs: one poll before it, one at or after it.
      expect(at.length, `${uuid}: polled at ${at.map((t) => t - at[0]).join(", ")} ms`).toBeLessThanOrEqual(3);
    }
  });

  it("F3/C8: an operation still processing is polled with a growing pause, not every round; all six are reached early", async () => {
    const { operations, perOperation, h } = await survivorPolls({ pendingMs: 100, processingMs: 60 * 60_000 });
    expect([...perOperation.keys()].sort()).toEqual([...operations.keys()].sort());
    const firstPolls = [...perOperation.values()].map((at) => at[0]);
    const start = Math.min(...firstPolls);
    // Every command's first poll comes within a few rounds of the first, not after the others finish.
    expect(Math.max(...firstPolls) - start).toBeLessThanOrEqual(10_000);
    for (const [uuid, at] of perOperation) {
      // A backoff from 2 s doubling to 60 s reaches ≈ 10 polls in 5 minutes; every round (≤ 2 s) would be ≥ 150.
      expect(at.length, `${uuid}: ${at.length} polls`).toBeLessThanOrEqual(15);
      // Each pause at least the one before (rounds come every 1–2 s, so a poll lands up to 2 s after it is due).
      const gaps = at.slice(1).map((t, i) => t - at[i]);
      for (let i = 0; i < gaps.length; i++) {
        expect(gaps[i]).toBeGreaterThanOrEqual(i === 0 ? 2_000 : Math.min(gaps[i - 1], 60_000) - 2_500);
      }
      expect(Math.max(...gaps), gaps.join(", ")).toBeGreaterThanOrEqual(30_000);
    }
    expect(h.emulator.control.effects().filter((e) => e.idempotency_key?.startsWith("poll-"))).toHaveLength(DOMAINS);
  });
});
