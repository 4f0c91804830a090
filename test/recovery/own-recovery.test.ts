// A fleet worker's own continuous recovery and its own calls (and waits) on one journal: recovery
// never takes a command a call or an operations.wait of this process holds — the check and the take
// are one step after the claim — and a wait longer than the lease keeps its command. The journals
// are real: SQLite in a temp dir and the PostgreSQL test/support/postgres.ts starts, with write
// latency, so the claim is in flight while new calls record their commands.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { createMemoryJournal } from "../../stores/memory-journal";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import { createPgJournal } from "../../stores/pg-journal";
import type { Journal } from "../../journal";
import type { RecoverSummary } from "../../recovery";
import type { Outcome } from "../../core";
import { startPostgres, type PostgresServer } from "../support/postgres";
import { removeDir, tempDir } from "../support/process";
// Loaded up front: the client imports it on first use, and the VirtualClock must not run on meanwhile.
import "../../src/operations-wait";
import "../../recovery";
import { requestsTo, setup, type Harness } from "../client/harness";

/**
 * Every write and claim waits `ms` of real time first (a busy pool, a slow disk); a claim also waits
 * (up to 4 × ms) for the next record() to commit — a claim queued for a pool connection while a new
 * call records its command, the interleaving that lets a recovery see a stale list of busy commands.
 */
function withLatency(journal: Journal, ms: number): Journal {
  const slow = new Set(["record", "addAttempt", "transition", "claim", "renewLeases"]);
  let wake: (() => void)[] = [];
  const nextRecord = () =>
    new Promise<void>((resolve) => {
      wake.push(resolve);
      setTimeout(resolve, 4 * ms);
    });
  return new Proxy(journal, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== "function") return value;
      const fn = value as (...args: unknown[]) => Promise<unknown>;
      if (!slow.has(String(prop))) return fn.bind(target);
      return async (...args: unknown[]) => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        if (prop === "claim") await nextRecord();
        const result = await fn.apply(target, args);
        if (prop === "record") [wake] = [[], ...wake.map((w) => w())];
        return result;
      };
    },
  });
}

/** An application: orders, retrying a throw or an `unknown` with the SAME key (as the guides say). */
async function application(h: Harness, client: ReturnType<Harness["makeClient"]>, n: number) {
  const throws: unknown[] = [];
  const outcomes: Outcome[] = [];
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const body = { external_id: `own-${i}`, action: "register" as const, domain: `own-${i}.kz`, period: 1 };
      await new Promise((resolve) => setTimeout(resolve, i * 25)); // orders arrive over time, between rounds
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          const out = await client.orders.create({ body }, { idempotencyKey: `own-key-${i}` });
          outcomes.push(out);
          if (out.kind !== "unknown") return;
        } catch (error) {
          throws.push(error);
        }
      }
    }),
  );
  return { throws, outcomes };
}

let server: PostgresServer;
let dir: string;
beforeAll(async () => {
  [server, dir] = await Promise.all([startPostgres(), tempDir("own-recovery-")]);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  if (dir) await removeDir(dir);
});

const journals: [string, (h: Harness) => Promise<Journal>][] = [
  ["SQLite", async (h) => createSqliteJournal({ filename: join(dir, `j-${h.clock.now()}.sqlite`), clock: h.clock })],
  [
    "PostgreSQL",
    async (h) =>
      createPgJournal({ connectionString: server.connectionString, schema: `own_${Date.now()}`, clock: h.clock }),
  ],
];

describe.each(journals)("own continuous recovery never takes its own calls' commands (%s)", (_name, open) => {
  it("G4/I6: one fleet worker, write latency, 40 orders → no command claimed by its own recovery, no throw, no key sent twice", async () => {
    const h = setup();
    const journal = await open(h);
    const rounds: RecoverSummary[] = [];
    const client = h.makeClient({
      journal: withLatency(journal, 60),
      fleet: { workerId: "solo", continuousRecovery: { intervalMs: 50, onRound: (s) => rounds.push(s) } },
    });
    const { throws, outcomes } = await application(h, client, 40);
    await client.close();
    await journal.close();
    expect(throws).toEqual([]);
    expect(outcomes.filter((o) => o.kind !== "succeeded")).toEqual([]);
    expect(rounds.length).toBeGreaterThan(0); // recovery did run while the calls were in flight
    expect(rounds.reduce((n, r) => n + r.examined, 0)).toBe(0);
    const posts = requestsTo(h.captured, "POST", "/orders").map((c) => c.headers["idempotency-key"]);
    expect(posts).toHaveLength(40);
    expect(new Set(posts).size).toBe(40);
    expect(h.emulator.control.effects().filter((e) => e.kind === "order.create")).toHaveLength(40);
  }, 120_000);
});

describe("operations.wait past the lease", () => {
  it("F1/G6: worker A waits longer than its lease; B's continuous recovery never takes the command; exactly one settles it", async () => {
    const lease = 30_000;
    const h = setup({ emulator: { operationPolicy: { pendingMs: 60_000, processingMs: 40_000 } } });
    const journal = createMemoryJournal({ clock: h.clock });
    const a = h.makeClient({ journal, fleet: { workerId: "worker-a", leaseMs: lease } });
    const rounds: RecoverSummary[] = [];
    const b = h.makeClient({
      journal,
      fleet: {
        workerId: "worker-b",
        leaseMs: lease,
        continuousRecovery: { intervalMs: 5_000, onRound: (s) => rounds.push(s) },
      },
    });
    const accepted = await a.domains.renew(
      { domainUuid: h.domainUuid, body: { period: 1 } },
      { idempotencyKey: "long-wait" },
    );
    expect(accepted.kind).toBe("accepted");
    if (accepted.kind !== "accepted") return;
    await b.recover(); // loads recovery's chunk now: its rounds then run on the virtual clock only
    const startedAt = h.clock.now();
    const result = await a.operations.wait(accepted.operationUuid, {
      commandId: accepted.commandId,
      minIntervalMs: 10_000,
    });
    await b.close();
    expect(result.kind).toBe("completed");
    expect(h.clock.now() - startedAt).toBeGreaterThan(3 * lease); // the wait outlived the lease three times over
    expect(rounds.length).toBeGreaterThan(5);
    expect(rounds.flatMap((r) => [...r.resolved, ...r.stillPending, ...r.manual])).toEqual([]);
    const record = await journal.get(accepted.commandId!);
    expect([record?.state, record?.owner]).toEqual(["completed", "worker-a"]);
    // B never polled the operation: only A's GETs reached the server.
    const polls = requestsTo(h.captured, "GET", `/operations/${accepted.operationUuid}`);
    expect(polls.length).toBeGreaterThan(0);
    await a.close();
  }, 60_000);
});
