/**
 * The journal's history and retention methods, run against every store from defineJournalSuite():
 * the D4 fingerprint, prune() (H2 retention), sensitive request bodies dropped at settle,
 * countByState(), latestByLockKey(), listCommands() and resolveManualCheck() (F4).
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  commandFingerprint,
  InvalidTransitionError,
  UnknownCommandError,
  DomainLockedError,
  type CommandRecord,
  type CommandState,
  type Journal,
} from "../../journal";
import { isInvalidArgumentError } from "../../core";
import { fingerprintSync } from "../../stores/sqlite-backfill";
import { newCommand, type JournalHarness } from "./journal-suite";

const enc = (s: string) => new TextEncoder().encode(s);
const TOKEN = `rsl_live_A1b2C3d4E5f6G7h8I9j0K1l2.${"x".repeat(40)}${"-_yZ".repeat(6)}`;

/** recorded → sending → succeeded with a response and one attempt carrying a request id. */
async function settle(j: Journal, id: string, requestId: string = randomUUID()): Promise<CommandRecord> {
  await j.addAttempt(
    id,
    { at: 1, delayMs: 0, status: 201, requestId },
    {
      to: "succeeded",
      patch: {
        response: { status: 201, body: { data: { uuid: "o-1", note: "RESPONSE-BODY-TEXT" } } },
        resources: { orderUuid: "11111111-1111-4111-8111-111111111111" },
      },
    },
  );
  return (await j.get(id))!;
}

async function toManualCheck(j: Journal, id: string) {
  await j.transition(id, "sending");
  await j.transition(id, "accepted", { resources: { operationUuid: "66666666-6666-4666-8666-666666666666" } });
  await j.transition(id, "needs_manual_check", {
    manualCheck: {
      reason: "uncertain for 30 days",
      operationUuid: "66666666-6666-4666-8666-666666666666",
      requestIds: ["r-1"],
    },
  });
}

export function defineHistorySuite(label: string, harness: JournalHarness): void {
  describe(`${label}: Journal history and retention`, () => {
    it("D4: the record keeps the fingerprint; commandFingerprint() is SHA-256 of method, path+query and exact bytes", async () => {
      const { journal, another } = await harness.fresh();
      const body = enc('{"period":1}');
      const print = await commandFingerprint("POST", "/domains/d1/renew", "?a=%7e", body);
      expect(print).toMatch(/^[0-9a-f]{64}$/);
      expect(print).toBe(fingerprintSync("POST", "/domains/d1/renew", "?a=%7e", body));
      // HTTP-normalised: %7e is the unreserved "~"; lower-case hex is upper-cased.
      expect(await commandFingerprint("POST", "/domains/d1/renew", "?a=~", body)).toBe(print);
      for (const other of [
        commandFingerprint("PUT", "/domains/d1/renew", "?a=~", body),
        commandFingerprint("POST", "/domains/d2/renew", "?a=~", body),
        commandFingerprint("POST", "/domains/d1/renew", "?a=b", body),
        commandFingerprint("POST", "/domains/d1/renew", "?a=~", enc('{"period": 1}')), // whitespace counts
        commandFingerprint("POST", "/domains/d1/renew", "?a=~", enc('{"period":1.0}')),
      ])
        expect(await other).not.toBe(print);
      const cmd = newCommand({ path: "/domains/d1/renew", query: "?a=%7e", body, fingerprint: print });
      expect((await journal.record(cmd)).fingerprint).toBe(print);
      const other = await another();
      expect((await other.get(cmd.id))?.fingerprint).toBe(print);
      expect((await other.findByIdempotencyKey(cmd.apiKeyId, cmd.idempotencyKey))?.fingerprint).toBe(print);
      if (other !== journal) await other.close();
    });

    it("H2 prune: drops request and response bodies of commands settled before the cut-off, keeps what never-buy-twice needs", async () => {
      const { journal, raw } = await harness.fresh();
      const old = newCommand({
        body: enc('{"external_id":"PRUNE-ME-REQUEST","action":"register","domain":"p.kz","period":1}'),
      });
      const fresh = newCommand({ body: enc('{"external_id":"KEEP-ME-REQUEST"}') });
      const inFlight = newCommand({ body: enc('{"external_id":"IN-FLIGHT-REQUEST"}'), lockKey: "domain-name:f.kz" });
      const manual = newCommand({ body: enc('{"external_id":"MANUAL-REQUEST"}'), lockKey: "domain-name:m.kz" });
      for (const c of [old, fresh, inFlight, manual]) await journal.record(c);
      const before = await settle(journal, old.id, "req-old-1");
      await journal.transition(inFlight.id, "sending");
      await toManualCheck(journal, manual.id);
      const cutoff = before.updatedAt + 1;
      // `fresh` must settle after the cut-off: let the store's clock pass it first (by behaviour, not a delay).
      while (Date.now() < cutoff) await new Promise((r) => setTimeout(r, 1));
      await settle(journal, fresh.id);

      const { pruned } = await journal.prune({ settledBefore: cutoff });
      expect(pruned).toBeGreaterThanOrEqual(1);
      const after = (await journal.get(old.id))!;
      expect(after.body).toBeNull();
      expect(after.bodyPruned).toBe(true);
      expect(after.response).toEqual({ status: 201, body: null });
      // What never-buy-twice needs stays: key, fingerprint, state, UUIDs, request ids, times.
      expect(after).toMatchObject({
        id: old.id,
        idempotencyKey: old.idempotencyKey,
        fingerprint: old.fingerprint,
        state: "succeeded",
        externalId: old.externalId,
        createdAt: old.createdAt,
        updatedAt: before.updatedAt,
        resources: { orderUuid: "11111111-1111-4111-8111-111111111111" },
      });
      expect(after.attempts.map((a) => a.requestId)).toEqual(["req-old-1"]);
      expect((await journal.findByIdempotencyKey(old.apiKeyId, old.idempotencyKey))?.fingerprint).toBe(old.fingerprint);
      // Never unsettled, never needs_manual_check (F4), whatever the cut-off.
      expect(await journal.prune({ settledBefore: Number.MAX_SAFE_INTEGER })).toEqual({ pruned: pruned === 2 ? 0 : 1 });
      for (const id of [inFlight.id, manual.id]) {
        const r = (await journal.get(id))!;
        expect(r.bodyPruned).toBe(false);
        expect(r.body).not.toBeNull();
      }
      expect((await journal.get(fresh.id))!.bodyPruned).toBe(true); // pruned by the second call
      expect(await journal.prune({ settledBefore: Number.MAX_SAFE_INTEGER })).toEqual({ pruned: 0 });
      if (raw) {
        const dump = await raw();
        expect(dump).toContain("IN-FLIGHT-REQUEST"); // a resend may need it
        expect(dump).toContain("MANUAL-REQUEST");
        expect(dump).not.toContain("PRUNE-ME-REQUEST");
        expect(dump).not.toContain("KEEP-ME-REQUEST");
        expect(dump).not.toContain("RESPONSE-BODY-TEXT");
      }
    });

    it("H2 prune: `limit` bounds one call (oldest settle first); bad options say the fix", async () => {
      const { journal } = await harness.fresh();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const c = newCommand();
        await journal.record(c);
        await settle(journal, c.id);
        ids.push(c.id);
      }
      expect(await journal.prune({ settledBefore: Number.MAX_SAFE_INTEGER, limit: 2 })).toEqual({ pruned: 2 });
      expect((await Promise.all(ids.map((id) => journal.get(id)))).filter((r) => r!.bodyPruned)).toHaveLength(2);
      expect(await journal.prune({ settledBefore: Number.MAX_SAFE_INTEGER, limit: 2 })).toEqual({ pruned: 1 });
      for (const bad of [{}, { settledBefore: Number.NaN }, { settledBefore: 1, limit: 0 }]) {
        const err = await journal.prune(bad as { settledBefore: number }).catch((e: unknown) => e);
        expect(isInvalidArgumentError(err)).toBe(true);
        expect((err as Error).message).toMatch(/settledBefore|limit/);
      }
    });

    it("H2: a request body with a secret in a URL (a user name, a password — also one the URL parser splits —, ?token=, ?api_key=) is dropped at settle; a URL with none is kept", async () => {
      const { journal, raw } = await harness.fresh();
      const urls = [
        "https://PwUserOnly7@hooks.example.kz/r",
        "https://hookuser:HookPassw0rd@hooks.example.kz/r",
        "https://hooks.example.kz/r?token=PwQuery4",
        "https://hooks.example.kz/r?x=1&api_key=PwQuery6",
        // An unencoded `/` or `#` in the password: read as port + path (parses), or as a bad port (does not).
        "https://hookuser:12/PwSplit8@hooks.example.kz/r",
        "https://hookuser:Pw#Split9@hooks.example.kz/r",
      ];
      for (const [i, url] of urls.entries()) {
        const c = newCommand({
          body: enc(JSON.stringify({ url, events: ["domain.renewed"] })),
          operationId: "webhooks.create",
        });
        await journal.record(c);
        const settled = await settle(journal, c.id);
        expect([i, settled.body]).toEqual([i, null]);
      }
      const plain = newCommand({
        body: enc(JSON.stringify({ url: "https://hooks.example.kz/r?page=2", events: ["domain.renewed"] })),
        operationId: "webhooks.create",
      });
      await journal.record(plain);
      expect((await settle(journal, plain.id)).body).not.toBeNull();
      if (raw) {
        const dump = await raw();
        for (const secret of ["PwUserOnly7", "HookPassw0rd", "PwQuery4", "PwQuery6", "PwSplit8", "Split9"])
          expect(dump).not.toContain(secret);
      }
    });

    it("H2: a request body with a secret field is kept while a resend may need it and dropped at settle", async () => {
      const { journal, raw } = await harness.fresh();
      const body = enc('{"domain":"t.kz","auth_code":"EPP-AUTH-Zq9#x","period":1}');
      const c = newCommand({ body, operationId: "orders.create", lockKey: "domain-name:t.kz" });
      await journal.record(c);
      await journal.transition(c.id, "sending");
      await journal.transition(c.id, "unknown");
      await journal.transition(c.id, "reconciling");
      expect(Array.from((await journal.get(c.id))!.body!)).toEqual(Array.from(body)); // the resend's exact bytes (D3)
      if (raw) expect(await raw()).toContain("EPP-AUTH-Zq9#x");
      const settled = await journal.transition(c.id, "succeeded", {
        response: { status: 201, body: { data: { echo: "ECHOED-PERSONAL-TEXT" } } },
        resources: { orderUuid: "22222222-2222-4222-8222-222222222222" },
      });
      expect(settled.body).toBeNull();
      expect(settled.response).toEqual({ status: 201, body: null }); // its response goes too
      expect(settled.resources.orderUuid).toBe("22222222-2222-4222-8222-222222222222");
      expect(settled.bodyPruned).toBe(true);
      const got = (await journal.get(c.id))!;
      expect(got.body).toBeNull();
      expect(got.fingerprint).toBe(c.fingerprint);
      expect(got.response).toEqual({ status: 201, body: null });
      if (raw) {
        const dump = await raw();
        expect(dump).not.toContain("EPP-AUTH-Zq9#x");
        expect(dump).not.toContain("ECHOED-PERSONAL-TEXT");
      }
      // An ordinary body is kept after its settle (until prune).
      const plain = newCommand({ body: enc('{"period":2}') });
      await journal.record(plain);
      expect((await settle(journal, plain.id)).body).not.toBeNull();
    });

    it("countByState: one count per state, or only the states asked for", async () => {
      const { journal } = await harness.fresh();
      expect(await journal.countByState()).toEqual({});
      const a = newCommand();
      const b = newCommand();
      const c = newCommand();
      for (const x of [a, b, c]) await journal.record(x);
      await settle(journal, a.id);
      await journal.transition(b.id, "sending");
      expect(await journal.countByState()).toEqual({ succeeded: 1, sending: 1, recorded: 1 });
      expect(await journal.countByState({ states: ["recorded", "sending", "unknown"] })).toEqual({
        sending: 1,
        recorded: 1,
      });
    });

    it("latestByLockKey: the newest command of this API key for the domain, optionally since a time", async () => {
      const { journal } = await harness.fresh();
      const lockKey = `domain:${randomUUID()}`;
      expect(await journal.latestByLockKey("A1b2C3d4E5f6G7h8I9j0K1l2", lockKey)).toBeUndefined();
      const first = newCommand({ lockKey, createdAt: 1_000 });
      await journal.record(first);
      await settle(journal, first.id);
      const second = newCommand({ lockKey, createdAt: 2_000 });
      await journal.record(second);
      await journal.record(newCommand({ lockKey: `domain:${randomUUID()}`, createdAt: 3_000 }));
      const otherKey = newCommand({ lockKey, apiKeyId: "Z".repeat(24), createdAt: 4_000 });
      await expect(journal.record(otherKey)).rejects.toBeInstanceOf(DomainLockedError); // I6 spans keys
      const latest = await journal.latestByLockKey(first.apiKeyId, lockKey);
      expect(latest?.id).toBe(second.id);
      expect(latest?.state).toBe("recorded");
      expect(await journal.latestByLockKey(first.apiKeyId, lockKey, { since: 2_001 })).toBeUndefined();
      expect((await journal.latestByLockKey(first.apiKeyId, lockKey, { since: 2_000 }))?.id).toBe(second.id);
      expect(await journal.latestByLockKey("Z".repeat(24), lockKey)).toBeUndefined();
      const settledLatest = await journal.latestByLockKey(first.apiKeyId, lockKey, { since: 0 });
      expect(settledLatest?.attempts).toEqual([]);
    });

    it("listCommands: newest first, paged with `before`, filtered by API key and states", async () => {
      const { journal } = await harness.fresh();
      const mine: string[] = [];
      for (let i = 0; i < 5; i++) {
        const c = newCommand({ createdAt: 10_000 + Math.floor(i / 2) }); // pairs share createdAt: id breaks the tie
        await journal.record(c);
        mine.push(c.id);
        if (i === 1) await settle(journal, c.id);
      }
      await journal.record(newCommand({ apiKeyId: "Z".repeat(24), createdAt: 99_999 }));
      const expected = mine
        .map((id, i) => ({ id, createdAt: 10_000 + Math.floor(i / 2) }))
        .sort((x, y) => y.createdAt - x.createdAt || (x.id < y.id ? 1 : -1))
        .map((x) => x.id);
      const seen: string[] = [];
      let before: { createdAt: number; id: string } | undefined;
      for (;;) {
        const page = await journal.listCommands({ apiKeyId: "A1b2C3d4E5f6G7h8I9j0K1l2", limit: 2, before });
        if (page.length === 0) break;
        seen.push(...page.map((r) => r.id));
        const last = page[page.length - 1];
        before = { createdAt: last.createdAt, id: last.id };
      }
      expect(seen).toEqual(expected);
      expect((await journal.listCommands({ limit: 1 }))[0].apiKeyId).toBe("Z".repeat(24));
      const settledOnly = await journal.listCommands({
        apiKeyId: "A1b2C3d4E5f6G7h8I9j0K1l2",
        states: ["succeeded"],
        limit: 10,
      });
      expect(settledOnly.map((r) => r.id)).toEqual([mine[1]]);
      expect(settledOnly[0].attempts).toHaveLength(1);
      for (const limit of [0, 1001, 1.5]) {
        expect(isInvalidArgumentError(await journal.listCommands({ limit }).catch((e: unknown) => e))).toBe(true);
      }
    });

    it("listCommands over every key: keys interleaved in time, ties on createdAt, pages of 3 with `before` and a states filter — one newest-first order", async () => {
      const { journal } = await harness.fresh();
      const keys = ["A".repeat(24), "M".repeat(24), "Z".repeat(24)];
      const all: { id: string; createdAt: number; settled: boolean }[] = [];
      for (let i = 0; i < 14; i++) {
        // Each key gets commands across the whole span; every third pair shares a createdAt across keys.
        const c = newCommand({ apiKeyId: keys[(i * 7) % 3], createdAt: 50_000 + Math.floor(i / 2) * 10 - (i % 3) });
        await journal.record(c);
        const settled = i % 4 === 0;
        if (settled) await settle(journal, c.id);
        all.push({ id: c.id, createdAt: c.createdAt, settled });
      }
      const order = (rows: typeof all) =>
        [...rows].sort((x, y) => y.createdAt - x.createdAt || (x.id < y.id ? 1 : -1)).map((x) => x.id);
      const walk = async (states?: CommandState[]) => {
        const seen: string[] = [];
        let before: { createdAt: number; id: string } | undefined;
        for (;;) {
          const page = await journal.listCommands({ limit: 3, before, states });
          if (page.length === 0) return seen;
          expect(page.length).toBeLessThanOrEqual(3);
          seen.push(...page.map((r) => r.id));
          const last = page[page.length - 1];
          before = { createdAt: last.createdAt, id: last.id };
        }
      };
      expect(await walk()).toEqual(order(all));
      expect(await walk(["succeeded"])).toEqual(order(all.filter((c) => c.settled)));
      expect(new Set((await journal.listCommands({ limit: 14 })).map((r) => r.apiKeyId))).toEqual(new Set(keys));
    });

    it("F4 resolveManualCheck: closes a needs_manual_check command as completed/failed, journalled, lock released", async () => {
      const { journal, another } = await harness.fresh();
      const c = newCommand({ lockKey: "domain-name:manual.kz" });
      await journal.record(c);
      await toManualCheck(journal, c.id);
      const rec = await journal.resolveManualCheck(c.id, {
        as: "completed",
        note: `registrar shows the domain ours; pasted ${TOKEN} by mistake`,
        reference: "TICKET-42",
        at: 5_000,
      });
      expect(rec.state).toBe("completed");
      expect(rec.manualCheck).toMatchObject({
        reason: "uncertain for 30 days",
        requestIds: ["r-1"],
        resolution: { as: "completed", reference: "TICKET-42", at: 5_000 },
      });
      expect(rec.manualCheck!.resolution!.note).not.toContain(TOKEN.split(".")[1]);
      expect(rec.reconciliation).toContain("TICKET-42");
      const other = await another();
      expect(await other.get(c.id)).toMatchObject({
        state: "completed",
        manualCheck: { resolution: { as: "completed" } },
      });
      if (other !== journal) await other.close();
      // The lock is free again (I6), and a closed command cannot be resolved twice.
      await journal.record(newCommand({ lockKey: "domain-name:manual.kz" }));
      await expect(journal.resolveManualCheck(c.id, { as: "failed", note: "again", at: 6_000 })).rejects.toBeInstanceOf(
        InvalidTransitionError,
      );
      const open = newCommand();
      await journal.record(open);
      await journal.transition(open.id, "sending");
      await journal.transition(open.id, "accepted");
      // accepted → completed is an allowed move, but only a needs_manual_check command is resolved by hand.
      await expect(journal.resolveManualCheck(open.id, { as: "completed", note: "x", at: 1 })).rejects.toBeInstanceOf(
        InvalidTransitionError,
      );
      expect((await journal.get(open.id))!.state).toBe("accepted");
      await expect(journal.resolveManualCheck(randomUUID(), { as: "failed", note: "x", at: 1 })).rejects.toBeInstanceOf(
        UnknownCommandError,
      );
      const bad = await journal
        .resolveManualCheck(open.id, { as: "done" as "failed", note: "", at: 1 })
        .catch((e: unknown) => e);
      expect(isInvalidArgumentError(bad)).toBe(true);
    });
  });
}
