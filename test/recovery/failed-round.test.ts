// A recover() round that fails on one command (the journal refused a write) while another lane is
// still working (I6, G4): the round returns only once every lane has stopped, so nothing of it goes
// on after the caller saw it end — no lane takes a command the round handed back, which a call or a
// wait of this process may hold by then. In-process emulator, one VirtualClock, a SQLite journal.
import { describe, expect, it } from "vitest";
import type { SqliteJournal } from "../../stores/sqlite-journal";
import type { Journal } from "../../journal";
import { fingerprintSync } from "../../stores/sqlite-backfill";
import { setup, type Harness } from "../client/harness";
import { tempSqliteJournals } from "../support/journal";

const tempJournal = tempSqliteJournals("reseller-failed-round-");
const sqlite = (): SqliteJournal => tempJournal().journal;

/** An order a killed process journalled and never sent (`recorded`): recovery sends it. */
async function recordedOrder(h: Harness, journal: Journal, n: number) {
  const externalId = `failed-round-${n}`;
  const body = new TextEncoder().encode(
    JSON.stringify({ external_id: externalId, action: "register", domain: `${externalId}.kz`, period: 1 }),
  );
  return journal.record({
    id: crypto.randomUUID(),
    environment: "test",
    apiKeyId: h.publicKeyId,
    operationId: "orders.create",
    method: "POST",
    path: "/orders",
    query: "",
    body,
    fingerprint: fingerprintSync("POST", "/orders", "", body),
    idempotencyKey: `failed-round-key-${n}`,
    externalId,
    lockKey: `domain-name:${externalId}.kz`,
    createdAt: h.clock.now() + n, // recovery takes the oldest first: a, then b, then c
  });
}

/** Lets every promise job and I/O callback queued so far run (a rejection reaches its handler). */
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe("recover(): a round that fails", () => {
  it("I6: a round that fails on one command returns only after its other lanes stopped, and never takes the commands it handed back", async () => {
    const h = setup();
    const inner = sqlite();
    const [a, b, c] = [
      await recordedOrder(h, inner, 1),
      await recordedOrder(h, inner, 2),
      await recordedOrder(h, inner, 3),
    ];
    // The journal refuses the first write to `a`; the first write to `b` is slow, and answers only a
    // few event-loop turns after `a` failed — long enough for a round that did not wait to be over.
    let refused = false;
    let slowDone = false;
    const journal = new Proxy(inner, {
      get(target, name) {
        const value = Reflect.get(target, name) as unknown;
        if (name !== "transition" || typeof value !== "function") return value;
        return async (id: string, ...rest: unknown[]) => {
          if (id === a.id && !refused) {
            refused = true;
            throw new Error("connect ECONNREFUSED 127.0.0.1:5432 (the journal went away)");
          }
          if (id === b.id && !slowDone) {
            while (!refused) await turns(1);
            await turns(20);
            slowDone = true;
          }
          return (value as (...args: unknown[]) => unknown).call(target, id, ...rest);
        };
      },
    });
    const client = h.makeClient({ journal });

    await expect(client.recover({ concurrency: 2 })).rejects.toThrow(/ECONNREFUSED/);
    // Nothing of the round goes on after it ended: the lane on `b` had finished it…
    expect((await inner.get(b.id))?.state).toBe("succeeded");
    // …and `c`, which no lane had reached when `a` failed, was handed back untouched, nothing sent.
    expect((await inner.get(c.id))?.state).toBe("recorded");
    const sentKeys = () => h.captured.map((r) => r.headers["idempotency-key"]);
    expect(sentKeys()).not.toContain(c.idempotencyKey);

    // The next round (the journal answers again) settles what is left, each order once.
    const summary = await client.recover({ concurrency: 2 });
    expect(summary.resolved.map((t) => t.commandId).sort()).toEqual([a.id, c.id].sort());
    const orders = h.emulator.control.effects().filter((e) => e.kind === "order.create");
    expect(orders.map((e) => e.idempotency_key).sort()).toEqual(
      [a.idempotencyKey, b.idempotencyKey, c.idempotencyKey].sort(),
    );
  });
});
