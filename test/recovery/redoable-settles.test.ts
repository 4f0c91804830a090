// recover()'s own moves are redoable writes (a lost one is settled again by the next recover()), so
// a durable store need not wait for the disk on them; what a send depends on stays durable: the
// resend's attempt write goes through the client's normal path. Real SQLite (synchronous=FULL) and
// the in-process emulator; a recording wrapper around the journal shows which writes carried the option.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import type { Journal, WriteOptions } from "../../journal";
import { BASE_URL, setup } from "../client/harness";
import { fingerprintSync } from "../../stores/sqlite-backfill";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Write {
  method: "transition" | "addAttempt";
  id: string;
  to?: string;
  options?: WriteOptions;
}

function recording(journal: Journal, writes: Write[]): Journal {
  return {
    ...journal,
    record: (c, lease) => journal.record(c, lease),
    get: (id) => journal.get(id),
    findByIdempotencyKey: (k, i) => journal.findByIdempotencyKey(k, i),
    listByState: (s) => journal.listByState(s),
    claim: (r) => journal.claim(r),
    renewLeases: (l, ids) => journal.renewLeases(l, ids),
    close: () => journal.close(),
    transition(id, to, patch, lease, options) {
      writes.push({ method: "transition", id, to, options });
      return journal.transition(id, to, patch, lease, options);
    },
    addAttempt(id, attempt, then, lease, ...rest: unknown[]) {
      writes.push({ method: "addAttempt", id, to: then?.to, options: rest[0] as WriteOptions | undefined });
      return journal.addAttempt(id, attempt, then, lease);
    },
  };
}

describe("recover(): redoable settles", () => {
  it("G1/I4/D3: settles are redoable, the resend's attempt write is not; all of it is in the file after close()", async () => {
    const h = setup({ emulator: { operationPolicy: { pendingMs: 100, processingMs: 100 } } });
    const dir = mkdtempSync(join(tmpdir(), "reseller-redoable-"));
    dirs.push(dir);
    const filename = join(dir, "journal.db");
    const raw = createSqliteJournal({ filename, synchronous: "full" });
    const enc = (s: string) => new TextEncoder().encode(s);
    // An order the server created before the crash (found by external_id) and a renew never sent.
    const orderBody = JSON.stringify({ external_id: "rd-1", action: "register", domain: "rd-1.kz", period: 1 });
    const order = await raw.record({
      id: crypto.randomUUID(),
      environment: "test",
      apiKeyId: h.publicKeyId,
      operationId: "orders.create",
      method: "POST",
      path: "/orders",
      query: "",
      body: enc(orderBody),
      fingerprint: fingerprintSync("POST", "/orders", "", enc(orderBody)),
      idempotencyKey: "rd-order",
      externalId: "rd-1",
      lockKey: null,
      createdAt: h.clock.now(),
    });
    await raw.transition(order.id, "sending");
    const sent = await h.emulator.fetch(`${BASE_URL}/orders`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${h.token}`,
        "idempotency-key": "rd-order",
        "content-type": "application/json",
      },
      body: orderBody,
    });
    expect(sent.status).toBeLessThan(300);
    const renew = await raw.record({
      id: crypto.randomUUID(),
      environment: "test",
      apiKeyId: h.publicKeyId,
      operationId: "domains.renew",
      method: "POST",
      path: `/domains/${h.domainUuid}/renew`,
      query: "",
      body: enc('{"period":1}'),
      fingerprint: fingerprintSync("POST", `/domains/${h.domainUuid}/renew`, "", enc('{"period":1}')),
      idempotencyKey: "rd-renew",
      externalId: null,
      lockKey: null,
      createdAt: h.clock.now(),
    });

    const writes: Write[] = [];
    const client = h.makeClient({ journal: recording(raw, writes) });
    const first = await client.recover();
    expect(first.resolved.map((r) => [r.commandId, r.to])).toEqual([[order.id, "succeeded"]]);
    expect(first.stillPending.map((r) => [r.commandId, r.to])).toEqual([[renew.id, "accepted"]]);
    h.clock.advance(10_000);
    const second = await client.recover();
    expect(second.resolved.map((r) => [r.commandId, r.to])).toEqual([[renew.id, "completed"]]);
    await client.close();
    await raw.close();

    // recover()'s claims and settles carry the option …
    const redoable = writes.filter((w) => w.method === "transition" && w.options?.redoable === true);
    expect(redoable.map((w) => [w.id, w.to])).toEqual(
      expect.arrayContaining([
        [order.id, "reconciling"],
        [order.id, "succeeded"],
        [renew.id, "completed"],
      ]),
    );
    // … the write that follows the resend does not (the client's own durable path).
    const attempts = writes.filter((w) => w.method === "addAttempt");
    expect(attempts.map((w) => w.id)).toEqual([renew.id]);
    expect(attempts[0].options).toBeUndefined();
    const settled = createSqliteJournal({ filename });
    expect((await settled.get(order.id))?.state).toBe("succeeded");
    expect((await settled.get(renew.id))?.state).toBe("completed");
    expect(h.emulator.control.effects().filter((e) => e.kind === "domain.renew")).toHaveLength(1);
    await settled.close();
  });
});
