/**
 * Leases and the one-commit attempt write, for every Journal store (memory, SQLite, PostgreSQL):
 * part of the shared suite (journal-suite.ts calls defineLeaseSuite). Every test runs on an
 * injected journal clock, so expiry is a number we move, never a sleep.
 */
import { describe, expect, it } from "vitest";
import {
  InvalidTransitionError,
  LeaseLostError,
  type ClaimRequest,
  type CommandState,
  type Journal,
} from "../../journal";
import type { JournalHarness } from "./journal-suite";
import { newCommand } from "./journal-suite";

const LEASE = 30_000;
const A = { owner: "worker-a", leaseMs: LEASE };
const B = { owner: "worker-b", leaseMs: LEASE };
const RECOVERABLE: CommandState[] = ["recorded", "sending", "unknown", "conflict", "reconciling", "accepted"];

function manualClock(start = Date.UTC(2026, 10, 1, 12, 0, 0)) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

const claimOf = (journal: Journal, who: { owner: string; leaseMs: number }, over: Partial<ClaimRequest> = {}) =>
  journal.claim({
    ...who,
    apiKeyId: newCommand().apiKeyId,
    environment: "test",
    states: RECOVERABLE,
    limit: 100,
    ...over,
  });

export function defineLeaseSuite(label: string, harness: JournalHarness): void {
  describe(`${label}: leases`, () => {
    it("lease on record: the command belongs to its worker until now + leaseMs (journal clock)", async () => {
      const clock = manualClock();
      const { journal, another } = await harness.fresh({ clock });
      const cmd = newCommand();
      const rec = await journal.record(cmd, A);
      expect(rec.owner).toBe("worker-a");
      expect(rec.leaseUntil).toBe(clock.now() + LEASE);
      const other = await another();
      const seen = await other.get(cmd.id);
      expect([seen?.owner, seen?.leaseUntil]).toEqual(["worker-a", clock.now() + LEASE]);
      const plain = await journal.record(newCommand());
      expect([plain.owner, plain.leaseUntil]).toEqual([null, null]);
      if (other !== journal) await other.close();
    });

    it("lease renewal: one renewLeases call extends every lease the worker holds; ids it does not own come back", async () => {
      const clock = manualClock();
      const { journal } = await harness.fresh({ clock });
      const mine = [newCommand(), newCommand(), newCommand()];
      for (const c of mine) await journal.record(c, A);
      const theirs = newCommand();
      await journal.record(theirs, B);
      clock.advance(20_000);
      const lost = await journal.renewLeases(A, [...mine.map((c) => c.id), theirs.id, "no-such-command"]);
      expect(lost.sort()).toEqual([theirs.id, "no-such-command"].sort());
      for (const c of mine) expect((await journal.get(c.id))?.leaseUntil).toBe(clock.now() + LEASE);
      expect((await journal.get(theirs.id))?.leaseUntil).toBe(clock.now() - 20_000 + LEASE); // untouched
      expect(await journal.renewLeases(A, [])).toEqual([]);
    });

    it("lease expiry: claim() never takes a live worker's command, takes it once the lease has expired", async () => {
      const clock = manualClock();
      const { journal } = await harness.fresh({ clock });
      const cmd = newCommand();
      await journal.record(cmd, A);
      await journal.transition(cmd.id, "sending", undefined, A);
      clock.advance(LEASE - 1);
      expect(await claimOf(journal, B)).toEqual([]); // still live
      await journal.renewLeases(A, [cmd.id]); // the heartbeat keeps it
      clock.advance(LEASE - 1);
      expect(await claimOf(journal, B)).toEqual([]);
      clock.advance(1); // no heartbeat for one whole lease: the worker is presumed dead
      const taken = await claimOf(journal, B);
      expect(taken.map((r) => [r.id, r.owner, r.leaseUntil, r.state])).toEqual([
        [cmd.id, "worker-b", clock.now() + LEASE, "sending"],
      ]);
      expect(await claimOf(journal, A)).toEqual([]); // and now it is B's live lease
    });

    it("takeover: a worker takes its own commands back at once, unowned ones after unownedStaleAfterMs", async () => {
      const clock = manualClock();
      const { journal } = await harness.fresh({ clock });
      const own = newCommand();
      await journal.record(own, A);
      const legacy = newCommand({ createdAt: clock.now() }); // written without a lease (before leases, or directly)
      await journal.record(legacy);
      expect((await claimOf(journal, A, { unownedStaleAfterMs: 60_000 })).map((r) => r.id)).toEqual([own.id]);
      clock.advance(60_000);
      const second = await claimOf(journal, A, { unownedStaleAfterMs: 60_000 });
      expect(second.map((r) => r.id).sort()).toEqual([own.id, legacy.id].sort());
      expect(second.every((r) => r.owner === "worker-a")).toBe(true);
      // Other keys, environments and states are never taken; limit bounds the batch, oldest first.
      const terminal = newCommand();
      await journal.record(terminal, B);
      await journal.addAttempt(terminal.id, { at: clock.now(), delayMs: 0, status: 200 }, { to: "succeeded" }, B);
      clock.advance(LEASE);
      expect(await claimOf(journal, A, { apiKeyId: "Z".repeat(24) })).toEqual([]);
      expect(await claimOf(journal, A, { environment: "live" })).toEqual([]);
      expect((await claimOf(journal, A, { limit: 1 })).map((r) => r.id)).toEqual([own.id]);
      expect((await claimOf(journal, A)).map((r) => r.id)).not.toContain(terminal.id);
    });

    it("takeover by id: a resumed command is claimed only if its lease expired, it is ours, or it has no owner", async () => {
      const clock = manualClock();
      const { journal } = await harness.fresh({ clock });
      const live = newCommand();
      const legacy = newCommand({ createdAt: clock.now() });
      await journal.record(live, A);
      await journal.record(legacy);
      const byId = (id: string, who = B) => journal.claim({ ...who, ids: [id], states: RECOVERABLE, limit: 1 });
      expect(await byId(live.id)).toEqual([]);
      expect((await byId(live.id, A)).map((r) => r.owner)).toEqual(["worker-a"]);
      expect((await byId(legacy.id)).map((r) => [r.id, r.owner])).toEqual([[legacy.id, "worker-b"]]);
      clock.advance(LEASE);
      expect((await byId(live.id)).map((r) => r.owner)).toEqual(["worker-b"]);
      expect(await byId("no-such-command")).toEqual([]);
      // excludeIds: what the worker's own calls are sending right now is never claimed, even if ours.
      const busy = newCommand();
      await journal.record(busy, A);
      const claimed = await claimOf(journal, A, { excludeIds: [busy.id] });
      expect(claimed.map((r) => r.id)).not.toContain(busy.id);
      expect((await claimOf(journal, A)).map((r) => r.id)).toContain(busy.id);
    });

    it("takeover is atomic: two handles claiming the same 30 expired commands at once — exactly one winner each", async () => {
      const clock = manualClock();
      const { journal, another } = await harness.fresh({ clock });
      const other = await another();
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) {
        const c = newCommand();
        ids.push(c.id);
        await journal.record(c, { owner: "worker-dead", leaseMs: LEASE });
      }
      clock.advance(LEASE);
      const workers = ["w1", "w2", "w3", "w4", "w5"].map((owner) => ({ owner, leaseMs: LEASE }));
      const claims = await Promise.all(workers.map((w, i) => claimOf(i % 2 ? other : journal, w, { limit: 10 })));
      const taken = claims.flat().map((r) => r.id);
      expect(new Set(taken).size).toBe(taken.length); // nobody got a command another worker got
      expect(taken.sort()).toEqual([...ids].sort()); // and every expired command went to someone
      for (const [i, batch] of claims.entries()) {
        for (const r of batch) expect((await other.get(r.id))?.owner).toBe(workers[i].owner);
      }
      if (other !== journal) await other.close();
    });

    it("lost lease: after a takeover the old owner's writes throw LeaseLostError and change nothing", async () => {
      const clock = manualClock();
      const { journal, another } = await harness.fresh({ clock });
      const other = await another();
      const cmd = newCommand();
      await journal.record(cmd, A);
      await journal.addAttempt(
        cmd.id,
        { at: clock.now(), delayMs: 0, transportError: "timeout" },
        { to: "sending" },
        A,
      );
      clock.advance(LEASE + 5_000); // a long GC pause, a partition to the database…
      await claimOf(other, B);
      const before = await other.get(cmd.id);
      await expect(journal.transition(cmd.id, "unknown", { reconciliation: "A was here" }, A)).rejects.toBeInstanceOf(
        LeaseLostError,
      );
      await expect(
        journal.addAttempt(cmd.id, { at: clock.now(), delayMs: 0, status: 200 }, { to: "succeeded" }, A),
      ).rejects.toBeInstanceOf(LeaseLostError);
      await expect(
        journal.addAttempt(cmd.id, { at: clock.now(), delayMs: 0, status: 500 }, undefined, A),
      ).rejects.toMatchObject({
        code: "lease_lost",
        owner: "worker-a",
        currentOwner: "worker-b",
      });
      expect(await journal.renewLeases(A, [cmd.id])).toEqual([cmd.id]);
      const after = await other.get(cmd.id);
      expect(after).toEqual(before); // not a byte moved
      // The new owner goes on; its writes renew its lease, the terminal one clears it.
      await other.transition(cmd.id, "unknown", undefined, B);
      clock.advance(10_000);
      const rec = await other.transition(cmd.id, "reconciling", undefined, B);
      expect([rec.owner, rec.leaseUntil]).toEqual(["worker-b", clock.now() + LEASE]);
      const done = await other.transition(cmd.id, "succeeded", undefined, B);
      expect([done.owner, done.leaseUntil]).toEqual(["worker-b", null]);
      if (other !== journal) await other.close();
    });

    it("one-commit attempt: addAttempt with a move folds sending and the outcome into the attempt's write", async () => {
      const clock = manualClock();
      const { journal, another } = await harness.fresh({ clock });
      const cmd = newCommand({ lockKey: "fold.kz" });
      await journal.record(cmd, A);
      await journal.addAttempt(
        cmd.id,
        { at: clock.now(), delayMs: 2.6, status: 201, requestId: "req-1" }, // a backoff's fraction is kept as whole ms
        {
          to: "succeeded",
          patch: { response: { status: 201, body: { data: { uuid: "o-1" } } }, resources: { orderUuid: "o-1" } },
        },
        A,
      );
      const other = await another();
      const rec = await other.get(cmd.id);
      expect(rec?.state).toBe("succeeded");
      expect(rec?.attempts).toEqual([{ at: clock.now(), delayMs: 3, status: 201, requestId: "req-1" }]);
      expect(rec?.resources).toEqual({ orderUuid: "o-1" });
      expect(rec?.leaseUntil).toBeNull();
      await other.record(newCommand({ lockKey: "fold.kz" })); // I6: the terminal write released the lock
      // Retry path: each attempt keeps the command in sending; a refused move keeps no attempt.
      const retry = newCommand();
      await journal.record(retry);
      await journal.addAttempt(retry.id, { at: 1, delayMs: 0, status: 503 }, { to: "sending" });
      await journal.addAttempt(retry.id, { at: 2, delayMs: 0, status: 202 }, { to: "accepted" });
      await expect(journal.addAttempt(retry.id, { at: 3, delayMs: 0 }, { to: "completed" })).rejects.toBeInstanceOf(
        InvalidTransitionError,
      );
      const r2 = await other.get(retry.id);
      expect([r2?.state, r2?.attempts.map((a) => a.at)]).toEqual(["accepted", [1, 2]]);
      if (other !== journal) await other.close();
    });
  });
}
