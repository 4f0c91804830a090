/**
 * ONE behaviour suite for every Journal store (memory, SQLite, PostgreSQL). Each store's test file
 * calls defineJournalSuite() with a harness that makes a fresh, empty store.
 */
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { COMMAND_STATES, canTransition, holdsLock } from "../../journal";
import type { JournalClock } from "../../stores/journal-common";
import { defineLeaseSuite } from "./lease-suite";
import { defineHistorySuite } from "./history-suite";
import { InvalidArgumentError, ResellerClientError, isInvalidArgumentError } from "../../core";
import { fingerprinted } from "../support/journal";
import {
  DomainLockedError,
  DuplicateCommandError,
  InvalidTransitionError,
  SensitiveDataError,
  UnknownCommandError,
  isJournalClosedError,
  type CommandState,
  type Journal,
  type NewCommand,
} from "../../journal";

interface FreshStore {
  journal: Journal;
  /** Another handle (connection/pool/file handle) on the SAME store. */
  another: () => Promise<Journal>;
  /** Everything the store holds, as text, to prove a secret is absent at rest (durable stores). */
  raw?: () => Promise<string>;
}

export interface JournalHarness {
  /** A fresh, empty store; `clock` (when given) is the journal clock of it and of every `another()`. */
  fresh(options?: { clock?: JournalClock }): Promise<FreshStore>;
  /** false: the store may not delete rows (PostgreSQL's least-privilege role), so withdraw() keeps them. */
  withdraws?: boolean;
}

const TOKEN = `rsl_live_A1b2C3d4E5f6G7h8I9j0K1l2.${"x".repeat(40)}${"-_yZ".repeat(6)}`;
const SECRET = `whsec_${"S".repeat(43)}`;
const enc = (s: string) => new TextEncoder().encode(s);

let clockMs = Date.UTC(2026, 9, 5, 9, 0, 0);
export function newCommand(over: Partial<NewCommand> = {}): NewCommand {
  return fingerprinted({
    id: randomUUID(),
    environment: "test",
    apiKeyId: "A1b2C3d4E5f6G7h8I9j0K1l2",
    operationId: "orders.create",
    method: "POST",
    path: "/orders",
    query: "",
    body: enc('{"external_id":"ord-1","action":"register","domain":"example.kz","period":1}'),
    idempotencyKey: randomUUID(),
    externalId: "ord-1",
    lockKey: null,
    createdAt: clockMs++,
    ...over,
  });
}

/** Drives a command along allowed edges to `state`. */
async function driveTo(j: Journal, id: string, path: CommandState[]) {
  for (const s of path) await j.transition(id, s);
}

export function defineJournalSuite(label: string, harness: JournalHarness): void {
  defineLeaseSuite(label, harness);
  defineHistorySuite(label, harness);
  describe(`${label}: Journal`, () => {
    it("G1/D3 record before send: body bytes round-trip exactly", async () => {
      const { journal, another } = await harness.fresh();
      // Not valid UTF-8, odd whitespace, 1.0 vs 1, key order: bytes, not semantics (D4).
      const bytes = new Uint8Array([
        0x7b, 0x20, 0x22, 0x61, 0x22, 0x3a, 0x31, 0x2e, 0x30, 0x0a, 0xff, 0x00, 0xfe, 0x7d,
      ]);
      const cmd = newCommand({ body: bytes, query: "?b=2&a=1%20x", path: "/domains/5555/renew" });
      const rec = await journal.record(cmd);
      bytes[0] = 0; // the store keeps its own copy
      expect(rec.state).toBe("recorded");
      const other = await another(); // durable on return: a second handle sees it immediately
      for (const j of [journal, other]) {
        const got = await j.get(cmd.id);
        expect(got?.body).toBeInstanceOf(Uint8Array);
        expect(Array.from(got!.body!)).toEqual([
          0x7b, 0x20, 0x22, 0x61, 0x22, 0x3a, 0x31, 0x2e, 0x30, 0x0a, 0xff, 0x00, 0xfe, 0x7d,
        ]);
        expect(got?.query).toBe("?b=2&a=1%20x");
        expect(got?.path).toBe("/domains/5555/renew");
      }
      if (other !== journal) await other.close();
    });

    it("D4: no body stays null and an empty body stays empty (never '{}')", async () => {
      const { journal } = await harness.fresh();
      const none = await journal.record(
        newCommand({ body: null, operationId: "domains.sync", path: "/domains/x/sync" }),
      );
      const empty = await journal.record(newCommand({ body: new Uint8Array(0) }));
      expect((await journal.get(none.id))!.body).toBeNull();
      const e = (await journal.get(empty.id))!.body;
      expect(e).toBeInstanceOf(Uint8Array);
      expect(e!.length).toBe(0);
    });

    it("D3/H2: the record keeps environment, key id, operation, method, path, query, key, external_id", async () => {
      const { journal } = await harness.fresh();
      const cmd = newCommand({ environment: "live", externalId: "ord-77", query: "?x=1" });
      await journal.record(cmd);
      const got = await journal.get(cmd.id);
      expect(got).toMatchObject({
        id: cmd.id,
        environment: "live",
        apiKeyId: cmd.apiKeyId,
        operationId: "orders.create",
        method: "POST",
        path: "/orders",
        query: "?x=1",
        idempotencyKey: cmd.idempotencyKey,
        externalId: "ord-77",
        lockKey: null,
        createdAt: cmd.createdAt,
        updatedAt: cmd.createdAt,
        state: "recorded",
        attempts: [],
        resources: {},
        response: null,
        reconciliation: null,
        manualCheck: null,
      });
      expect(await journal.get(randomUUID())).toBeUndefined();
    });

    it("D7: an Idempotency-Key is unique per API key and never silently reused", async () => {
      const { journal } = await harness.fresh();
      const first = await journal.record(newCommand({ idempotencyKey: "cmd-42" }));
      const err = await journal.record(newCommand({ idempotencyKey: "cmd-42" })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DuplicateCommandError);
      expect((err as DuplicateCommandError).existingId).toBe(first.id);
      const otherKey = await journal.record(newCommand({ idempotencyKey: "cmd-42", apiKeyId: "Z".repeat(24) }));
      expect((await journal.findByIdempotencyKey(first.apiKeyId, "cmd-42"))?.id).toBe(first.id);
      expect((await journal.findByIdempotencyKey("Z".repeat(24), "cmd-42"))?.id).toBe(otherKey.id);
      expect(await journal.findByIdempotencyKey(first.apiKeyId, "cmd-43")).toBeUndefined();
      const dupId = await journal.record(newCommand({ id: first.id })).catch((e: unknown) => e);
      expect(dupId).toBeInstanceOf(DuplicateCommandError);
    });

    it("H2 no token/secret stored: a command carrying a token is refused before anything is written", async () => {
      const { journal, raw } = await harness.fresh();
      const cmd = newCommand({ body: enc(`{"subject":"help","message":"my token is ${TOKEN}"}`) });
      await expect(journal.record(cmd)).rejects.toBeInstanceOf(SensitiveDataError);
      await expect(journal.record(newCommand({ query: `?t=${TOKEN}` }))).rejects.toBeInstanceOf(SensitiveDataError);
      expect(await journal.get(cmd.id)).toBeUndefined();
      expect(await journal.findByIdempotencyKey(cmd.apiKeyId, cmd.idempotencyKey)).toBeUndefined();
      if (raw) expect(await raw()).not.toContain(TOKEN.split(".")[1]);
    });

    it("H2 no token/secret stored: signing_secret, auth_code and token-shaped strings are redacted defensively", async () => {
      const { journal, raw } = await harness.fresh();
      const cmd = newCommand({ operationId: "webhooks.create", path: "/webhooks", lockKey: null });
      await journal.record(cmd);
      await journal.transition(cmd.id, "sending");
      const rec = await journal.transition(cmd.id, "succeeded", {
        response: {
          status: 201,
          body: {
            data: {
              uuid: "u1",
              signing_secret: SECRET,
              nested: [{ auth_code: "AUTH-123-secret" }, { note: `leaked ${TOKEN} here` }],
              already: { signing_secret: "[REDACTED]" },
              none: { auth_code: null },
            },
          },
        },
        reconciliation: `checked with ${TOKEN}`,
      });
      const expected = {
        data: {
          uuid: "u1",
          signing_secret: "[REDACTED]",
          nested: [{ auth_code: "[REDACTED]" }, { note: "leaked [REDACTED] here" }],
          already: { signing_secret: "[REDACTED]" },
          none: { auth_code: null },
        },
      };
      expect(rec.response).toEqual({ status: 201, body: expected });
      expect((await journal.get(cmd.id))!.response).toEqual({ status: 201, body: expected });
      expect((await journal.get(cmd.id))!.reconciliation).toBe("checked with [REDACTED]");
      if (raw) {
        const dump = await raw();
        expect(dump).toContain(cmd.id); // the dump is real…
        expect(dump).not.toContain(SECRET); // …and holds no secret
        expect(dump).not.toContain("AUTH-123-secret");
        expect(dump).not.toContain(TOKEN.split(".")[1]);
      }
    });

    it("I5 transitions: the happy path of an async renewal, with attempts appended in order (I7)", async () => {
      const { journal } = await harness.fresh();
      const cmd = newCommand({ operationId: "domains.renew", path: "/domains/d1/renew", body: enc('{"period":1}') });
      await journal.record(cmd);
      await journal.transition(cmd.id, "sending");
      await journal.addAttempt(cmd.id, {
        at: 1000,
        delayMs: 0,
        status: 429,
        errorCode: "rate_limit_exceeded",
        requestId: "r1",
      });
      await journal.transition(cmd.id, "sending"); // a retry stays in sending
      await journal.addAttempt(cmd.id, { at: 44_000, delayMs: 43_000, status: 202, requestId: "r2", replayed: false });
      await journal.transition(cmd.id, "accepted", { resources: { operationUuid: "op-1", domainUuid: "d1" } });
      await journal.transition(cmd.id, "accepted", {
        response: { status: 200, body: { data: { status: "processing" } } },
      });
      const done = await journal.transition(cmd.id, "completed", {
        response: { status: 200, body: { data: { status: "completed" } } },
      });
      expect(done.state).toBe("completed");
      expect(done.resources).toEqual({ operationUuid: "op-1", domainUuid: "d1" });
      const got = (await journal.get(cmd.id))!;
      expect(got.attempts).toEqual([
        { at: 1000, delayMs: 0, status: 429, errorCode: "rate_limit_exceeded", requestId: "r1" },
        { at: 44_000, delayMs: 43_000, status: 202, requestId: "r2", replayed: false },
      ]);
      expect(got.state).toBe("completed");
    });

    it("I5 transitions: unknown outcome → reconciling → resend with the same bytes → succeeded", async () => {
      const { journal } = await harness.fresh();
      const cmd = newCommand();
      await journal.record(cmd);
      await journal.transition(cmd.id, "sending");
      await journal.addAttempt(cmd.id, { at: 5, delayMs: 0, transportError: "timeout", requestId: "r1" });
      await journal.transition(cmd.id, "unknown");
      await journal.transition(cmd.id, "reconciling", { reconciliation: "no order with external_id ord-1 yet" });
      await journal.transition(cmd.id, "sending");
      await journal.addAttempt(cmd.id, { at: 9, delayMs: 4, status: 201, replayed: true });
      const rec = await journal.transition(cmd.id, "succeeded", {
        response: { status: 201, body: { data: { uuid: "o1" } } },
        resources: { orderUuid: "o1" },
      });
      expect(rec.body).toEqual(cmd.body);
      expect(rec.idempotencyKey).toBe(cmd.idempotencyKey);
      expect(rec.attempts.map((a) => a.transportError ?? a.status)).toEqual(["timeout", 201]);
      expect(rec.reconciliation).toBe("no order with external_id ord-1 yet");
    });

    it("redoable moves (recover()'s settles): same state machine, fence and patch, visible to another handle at once", async () => {
      const { journal, another } = await harness.fresh();
      const lease = { owner: "worker-a", leaseMs: 60_000 };
      const cmd = newCommand({ lockKey: "redo.kz" });
      await journal.record(cmd, lease);
      const redo = { redoable: true };
      await journal.transition(cmd.id, "sending", undefined, lease, redo);
      await journal.transition(cmd.id, "unknown", undefined, lease, redo);
      await expect(journal.transition(cmd.id, "succeeded", undefined, lease, redo)).rejects.toBeInstanceOf(
        InvalidTransitionError,
      );
      await expect(
        journal.transition(cmd.id, "reconciling", undefined, { owner: "worker-b", leaseMs: 60_000 }, redo),
      ).rejects.toMatchObject({ code: "lease_lost" });
      await journal.transition(cmd.id, "reconciling", undefined, lease, redo);
      const done = await journal.transition(
        cmd.id,
        "succeeded",
        { response: { status: 200, body: { data: { uuid: "o-1" } } }, resources: { orderUuid: "o-1" } },
        lease,
        redo,
      );
      expect(done).toMatchObject({ state: "succeeded", leaseUntil: null });
      const other = await another();
      expect(await other.get(cmd.id)).toMatchObject({
        state: "succeeded",
        resources: { orderUuid: "o-1" },
        response: { status: 200, body: { data: { uuid: "o-1" } } },
      });
      await other.record(newCommand({ lockKey: "redo.kz" })); // I6: the lock went with the redoable move
      if (other !== journal) await other.close();
    });

    it("I5 transitions: forbidden moves throw InvalidTransitionError and change nothing", async () => {
      const { journal } = await harness.fresh();
      const cmd = newCommand();
      await journal.record(cmd);
      const err = await journal.transition(cmd.id, "succeeded").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidTransitionError);
      expect(err).toMatchObject({ from: "recorded", to: "succeeded" });
      await driveTo(journal, cmd.id, ["sending", "unknown"]);
      // E4: a timeout is never "failed" directly.
      await expect(journal.transition(cmd.id, "failed")).rejects.toBeInstanceOf(InvalidTransitionError);
      await driveTo(journal, cmd.id, ["reconciling", "rejected"]);
      for (const to of ["sending", "reconciling", "succeeded", "unknown"] as const) {
        await expect(journal.transition(cmd.id, to)).rejects.toBeInstanceOf(InvalidTransitionError);
      }
      expect((await journal.get(cmd.id))!.state).toBe("rejected");
      await expect(journal.transition(randomUUID(), "sending")).rejects.toBeInstanceOf(UnknownCommandError);
      await expect(journal.addAttempt(randomUUID(), { at: 1, delayMs: 0 })).rejects.toBeInstanceOf(UnknownCommandError);
    });

    it("G3 atomic transition+response: state and patch land together, a refused move applies no patch", async () => {
      const { journal, another } = await harness.fresh();
      const cmd = newCommand();
      await journal.record(cmd);
      await journal.transition(cmd.id, "sending");
      const bad = await journal
        .transition(cmd.id, "completed", { response: { status: 200, body: { x: 1 } }, resources: { orderUuid: "o9" } })
        .catch((e: unknown) => e);
      expect(bad).toBeInstanceOf(InvalidTransitionError);
      let got = (await journal.get(cmd.id))!;
      expect(got.state).toBe("sending");
      expect(got.response).toBeNull();
      expect(got.resources).toEqual({});
      await journal.transition(cmd.id, "accepted", {
        response: { status: 201, body: { data: { uuid: "o9", status: "pending" } } },
        resources: { orderUuid: "o9" },
      });
      const other = await another();
      got = (await other.get(cmd.id))!;
      expect(got.state).toBe("accepted");
      expect(got.response).toEqual({ status: 201, body: { data: { uuid: "o9", status: "pending" } } });
      // Resources merge: a later learnt UUID does not drop an earlier one.
      await journal.transition(cmd.id, "needs_manual_check", {
        resources: { domainUuid: "d9" },
        manualCheck: { reason: "registry result unknown", orderUuid: "o9", domainUuid: "d9", requestIds: ["r1", "r2"] },
      });
      got = (await other.get(cmd.id))!;
      expect(got.resources).toEqual({ orderUuid: "o9", domainUuid: "d9" });
      expect(got.manualCheck).toEqual({
        reason: "registry result unknown",
        orderUuid: "o9",
        domainUuid: "d9",
        requestIds: ["r1", "r2"],
      });
      expect(got.response).toEqual({ status: 201, body: { data: { uuid: "o9", status: "pending" } } });
      if (other !== journal) await other.close();
    });

    it("I6: a second command for a locked domain is refused until the first is terminal", async () => {
      const { journal } = await harness.fresh();
      const a = newCommand({ lockKey: "example.kz" });
      await journal.record(a);
      const b = newCommand({ lockKey: "example.kz" });
      const err = await journal.record(b).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DomainLockedError);
      expect(err).toMatchObject({ lockKey: "example.kz", heldBy: a.id });
      expect(await journal.get(b.id)).toBeUndefined(); // nothing half-written
      // Other environment, other domain and unlocked commands are independent.
      await journal.record(newCommand({ lockKey: "example.kz", environment: "live" }));
      await journal.record(newCommand({ lockKey: "other.kz" }));
      await journal.record(newCommand({ lockKey: null }));
      await journal.record(newCommand({ lockKey: null }));
      // F4: an unverified outcome keeps the lock — never buy again until checked.
      await driveTo(journal, a.id, ["sending", "unknown", "reconciling", "needs_manual_check"]);
      await expect(journal.record(newCommand({ lockKey: "example.kz" }))).rejects.toBeInstanceOf(DomainLockedError);
      await journal.transition(a.id, "failed", { reconciliation: "support confirmed: not registered" });
      const c = await journal.record(newCommand({ lockKey: "example.kz" }));
      expect(c.lockKey).toBe("example.kz");
    });

    it("G1/I6: withdraw() removes a command cancelled before its first send — only while recorded with no attempt, only its lease owner's; its key and domain lock are free again", async () => {
      const { journal } = await harness.fresh();
      const a = newCommand({ lockKey: "withdrawn.kz" });
      await journal.record(a, { owner: "w1", leaseMs: 30_000 });
      expect(await journal.withdraw(a.id, { owner: "w2", leaseMs: 30_000 })).toBe(false); // another worker's
      if (harness.withdraws === false) {
        // No DELETE grant: it stays recorded (recover() sends it), and says so by returning false.
        expect(await journal.withdraw(a.id, { owner: "w1", leaseMs: 30_000 })).toBe(false);
        expect((await journal.get(a.id))?.state).toBe("recorded");
        return;
      }
      expect(await journal.withdraw(a.id, { owner: "w1", leaseMs: 30_000 })).toBe(true);
      expect(await journal.get(a.id)).toBeUndefined();
      expect(await journal.findByIdempotencyKey(a.apiKeyId, a.idempotencyKey)).toBeUndefined();
      expect(await journal.listByState(["recorded"])).toEqual([]);
      expect(await journal.withdraw(a.id)).toBe(false); // gone: nothing more to remove
      // The same key and the same domain can be recorded again.
      const again = await journal.record({
        ...newCommand({ lockKey: "withdrawn.kz" }),
        idempotencyKey: a.idempotencyKey,
      });
      // An attempt was made (it may have been sent), or the command moved on: it stays.
      await journal.addAttempt(again.id, { at: 1, delayMs: 0, transportError: "reset" });
      expect(await journal.withdraw(again.id)).toBe(false);
      const b = newCommand();
      await journal.record(b);
      await journal.transition(b.id, "sending");
      expect(await journal.withdraw(b.id)).toBe(false);
      expect((await journal.get(again.id))?.state).toBe("recorded");
      expect((await journal.get(b.id))?.state).toBe("sending");
      await expect(journal.record(newCommand({ lockKey: "withdrawn.kz" }))).rejects.toBeInstanceOf(DomainLockedError);
    });

    it("I6 lock across two connections: the database, not the process, enforces it (also concurrently)", async () => {
      const { journal, another } = await harness.fresh();
      const other = await another();
      const a = newCommand({ lockKey: "race.kz" });
      await journal.record(a);
      await expect(other.record(newCommand({ lockKey: "race.kz" }))).rejects.toBeInstanceOf(DomainLockedError);
      await driveTo(other, a.id, ["sending", "succeeded"]); // released through the other handle
      // Concurrent race: many starters on both handles, exactly one wins.
      const handles = [journal, other];
      const results = await Promise.allSettled(
        Array.from({ length: 12 }, (_, i) => handles[i % 2].record(newCommand({ lockKey: "race2.kz" }))),
      );
      const won = results.filter((r) => r.status === "fulfilled");
      expect(won).toHaveLength(1);
      for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(DomainLockedError);
      const holders = await journal.listByState(["recorded"]);
      expect(holders.filter((h) => h.lockKey === "race2.kz")).toHaveLength(1);
      if (other !== journal) await other.close();
    });

    it("I5: concurrent transitions from two connections — exactly one claims reconciliation", async () => {
      const { journal, another } = await harness.fresh();
      const other = await another();
      const cmd = newCommand();
      await journal.record(cmd);
      await driveTo(journal, cmd.id, ["sending", "unknown"]);
      const results = await Promise.allSettled([
        journal.transition(cmd.id, "reconciling", { reconciliation: "A" }),
        other.transition(cmd.id, "reconciling", { reconciliation: "B" }),
        journal.transition(cmd.id, "reconciling", { reconciliation: "C" }),
      ]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(InvalidTransitionError);
      const winner = (
        results.find((r) => r.status === "fulfilled") as PromiseFulfilledResult<{ reconciliation: string }>
      ).value;
      expect((await other.get(cmd.id))!.reconciliation).toBe(winner.reconciliation);
      if (other !== journal) await other.close();
    });

    it("I5: listByState returns the matching commands, oldest first", async () => {
      const { journal } = await harness.fresh();
      const t = 1_900_000_000_000;
      const c3 = newCommand({ createdAt: t + 3 });
      const c1 = newCommand({ createdAt: t + 1 });
      const c2a = newCommand({ createdAt: t + 2 });
      const c2b = newCommand({ createdAt: t + 2 });
      for (const c of [c3, c1, c2a, c2b]) await journal.record(c);
      await driveTo(journal, c2a.id, ["sending", "unknown"]);
      await driveTo(journal, c3.id, ["sending", "accepted"]);
      expect((await journal.listByState(["recorded"])).map((r) => r.id)).toEqual([c1.id, c2b.id]);
      expect((await journal.listByState(["unknown", "accepted", "recorded"])).map((r) => r.id)).toEqual([
        c1.id,
        c2a.id,
        c2b.id,
        c3.id,
      ]);
      expect(await journal.listByState(["completed"])).toEqual([]);
      expect(await journal.listByState([])).toEqual([]);
    });

    it("H2/I5: a clock with fractions of a ms (a VirtualClock, performance.now()) — record, claim, renew, attempts and moves all work", async () => {
      let t = 1_900_000_000_000.25;
      const clock = { now: () => (t += 0.5) };
      const { journal } = await harness.fresh({ clock });
      const lease = { owner: "w1", leaseMs: 1000.5 };
      const cmd = await journal.record(newCommand({ createdAt: clock.now() }), lease);
      expect(await journal.renewLeases(lease, [cmd.id])).toEqual([]);
      await journal.addAttempt(
        cmd.id,
        { at: clock.now(), delayMs: 12.75, status: 202, requestId: "r1", replayed: false },
        { to: "accepted" },
        lease,
      );
      t += 5_000; // the lease ran out: another worker takes the command
      const [taken] = await journal.claim({ owner: "w2", leaseMs: 30_000.5, states: ["accepted"], limit: 1 });
      expect(taken?.id).toBe(cmd.id);
      await journal.transition(cmd.id, "completed", undefined, { owner: "w2", leaseMs: 30_000.5 });
      const done = await journal.get(cmd.id);
      expect(done?.state).toBe("completed");
      expect(done?.attempts).toHaveLength(1);
      expect(await journal.listByState(["recorded"], { limit: 5, after: { createdAt: t, id: cmd.id } })).toEqual([]);
    });

    it("H2/I5: listByState pages — { limit, after } walks every matching command once, oldest first, ties by insertion", async () => {
      const { journal } = await harness.fresh();
      const t = 1_900_000_000_000;
      const made = [];
      // Ties on createdAt (the keyset's second column decides), a settled one and an interleaved state.
      for (let i = 0; i < 7; i++) made.push(await journal.record(newCommand({ createdAt: t + Math.floor(i / 3) })));
      await driveTo(journal, made[2].id, ["sending", "unknown"]);
      await driveTo(journal, made[4].id, ["sending", "succeeded"]);
      const want = made.filter((_, i) => i !== 4).map((c) => c.id);
      const seen: string[] = [];
      const sizes: number[] = [];
      let after: { createdAt: number; id: string } | undefined;
      for (let round = 0; round < 10; round++) {
        const page = await journal.listByState(["recorded", "unknown"], { limit: 2, after });
        sizes.push(page.length);
        if (page.length === 0) break;
        seen.push(...page.map((r) => r.id));
        const last = page[page.length - 1];
        after = { createdAt: last.createdAt, id: last.id };
      }
      expect(seen).toEqual(want);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(2);
      const bad = await journal.listByState(["recorded"], { limit: 0 }).catch((e: unknown) => e);
      expect((bad as Error).message).toMatch(/positive integer limit/);
    });

    it("I5: random walks over the state machine — the store accepts exactly the allowed moves (model test)", async () => {
      const { journal } = await harness.fresh();
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.constantFrom(...COMMAND_STATES), { minLength: 1, maxLength: 14 }),
          async (walk) => {
            const cmd = newCommand({ lockKey: `walk-${randomUUID()}` });
            await journal.record(cmd);
            let model: CommandState = "recorded";
            for (const to of walk) {
              const ok = await journal.transition(cmd.id, to).then(
                () => true,
                (e: unknown) => {
                  expect(e).toBeInstanceOf(InvalidTransitionError);
                  return false;
                },
              );
              expect(ok, `${model} → ${to}`).toBe(canTransition(model, to));
              if (ok) model = to;
            }
            expect((await journal.get(cmd.id))!.state).toBe(model);
            // I6: the lock is held exactly while the model's state holds it.
            const again = await journal.record(newCommand({ lockKey: cmd.lockKey })).then(
              () => "recorded",
              (e: unknown) => (e instanceof DomainLockedError ? "locked" : String(e)),
            );
            expect(again).toBe(holdsLock(model) ? "locked" : "recorded");
          },
        ),
        { numRuns: 25 },
      );
    });

    it("D2/D3: malformed commands are refused with InvalidArgumentError (the package's error family) before anything is written", async () => {
      const { journal } = await harness.fresh();
      const bad: Partial<NewCommand>[] = [
        { idempotencyKey: "" },
        { createdAt: Number.NaN },
        { body: "{}" as unknown as Uint8Array },
        { environment: "prod" as "live" },
        { apiKeyId: "" },
        { fingerprint: "not-a-sha256" },
      ];
      for (const over of bad) {
        const cmd = newCommand(over);
        const err = await journal.record(cmd).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(InvalidArgumentError);
        expect(err).toBeInstanceOf(ResellerClientError);
        expect((err as InvalidArgumentError).code).toBe("invalid_argument");
        expect(await journal.get(cmd.id)).toBeUndefined();
      }
      const nothing = await journal.record(null as unknown as NewCommand).catch((e: unknown) => e);
      expect(isInvalidArgumentError(nothing)).toBe(true);
    });

    it("D6: nothing unlocks a stuck command by itself — it stays listed until reconciled", async () => {
      const { journal } = await harness.fresh();
      const cmd = newCommand({ lockKey: "stuck.kz", createdAt: 1 }); // ancient
      await journal.record(cmd);
      await driveTo(journal, cmd.id, ["sending", "conflict"]);
      expect((await journal.listByState(["conflict"])).map((r) => r.id)).toEqual([cmd.id]);
      await expect(journal.record(newCommand({ lockKey: "stuck.kz" }))).rejects.toBeInstanceOf(DomainLockedError);
    });

    it("G1: after close() every method rejects with JournalClosedError (not the driver's error); another handle still works", async () => {
      const { journal, another } = await harness.fresh();
      const cmd = newCommand();
      await journal.record(cmd);
      const other = await another();
      await journal.close();
      const lease = { owner: "w1", leaseMs: 1000 };
      const calls: Record<Exclude<keyof Journal, "close">, () => Promise<unknown>> = {
        record: () => journal.record(newCommand()),
        addAttempt: () => journal.addAttempt(cmd.id, { at: 1, status: 200, requestId: "r", delayMs: 0 }),
        transition: () => journal.transition(cmd.id, "sending"),
        renewLeases: () => journal.renewLeases(lease, [cmd.id]),
        claim: () => journal.claim({ ...lease, states: ["recorded"], limit: 1 }),
        get: () => journal.get(cmd.id),
        findByIdempotencyKey: () => journal.findByIdempotencyKey(cmd.apiKeyId, cmd.idempotencyKey),
        listByState: () => journal.listByState(["recorded"]),
        prune: () => journal.prune({ settledBefore: 1 }),
        countByState: () => journal.countByState(),
        latestByLockKey: () => journal.latestByLockKey(cmd.apiKeyId, "example.kz"),
        listCommands: () => journal.listCommands({ limit: 1 }),
        resolveManualCheck: () => journal.resolveManualCheck(cmd.id, { as: "completed", note: "checked", at: 1 }),
        withdraw: () => journal.withdraw(cmd.id),
      };
      for (const [name, call] of Object.entries(calls)) {
        const error = await call().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(isJournalClosedError(error), `${name}: ${String(error)}`).toBe(true);
      }
      await journal.close(); // again: nothing to do, no error
      if (other !== journal) {
        // A durable store: closing one handle leaves the store to the others.
        expect((await other.get(cmd.id))?.state).toBe("recorded");
        await other.close();
      }
    });
  });
}
