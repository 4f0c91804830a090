/**
 * The shared Journal suite on a real PostgreSQL server started by this file (each store a fresh
 * schema; "another connection" is a second pg.Pool), plus the PG migration rules.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Journal } from "../../journal";
import { pgMigrations } from "../../stores/migrations/pg";
import { SETTLED_SQL } from "../../stores/migrations/sqlite";
import { fingerprintSync } from "../../stores/sqlite-backfill";
import { createPgJournal, migratePg } from "../../stores/pg-journal";
import { startPostgres, type PostgresServer } from "../support/postgres";
import type { JournalClock } from "../../stores/journal-common";
import { defineJournalSuite, newCommand } from "./journal-suite";

let server: PostgresServer;
const closers: (() => Promise<void>)[] = [];
let n = 0;

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  for (const c of closers.reverse()) await c().catch(() => undefined);
  await server?.stop();
});

async function openJournal(schema: string, clock?: JournalClock): Promise<Journal> {
  const j = await createPgJournal({ connectionString: server.connectionString, schema, clock });
  closers.push(() => j.close());
  return j;
}
function newPool(connectionString = server.connectionString): pg.Pool {
  const pool = new pg.Pool({ connectionString });
  // The server stops right after pool.end(); a late admin-shutdown notice is not a test failure.
  pool.on("error", () => undefined);
  pool.on("connect", (client) => client.on("error", () => undefined));
  closers.push(() => pool.end());
  return pool;
}

defineJournalSuite("postgres", {
  async fresh(options) {
    const schema = `journal_${++n}`;
    return {
      journal: await openJournal(schema, options?.clock),
      another: () => openJournal(schema, options?.clock),
      async raw() {
        const pool = newPool();
        const out: string[] = [];
        for (const t of ["commands", "command_attempts"]) {
          const res = await pool.query(`SELECT t::text AS row FROM "${schema}".${t} t`);
          out.push(...res.rows.map((r) => r.row as string));
        }
        // The body as text too (t::text shows bytea as hex, which a scan for plain text would miss).
        const bodies = await pool.query(
          `SELECT encode(body, 'escape') AS b FROM "${schema}".commands WHERE body IS NOT NULL`,
        );
        out.push(...bodies.rows.map((r) => r.b as string));
        return out.join("\n");
      },
    };
  },
});

describe("postgres: migrations", () => {
  it("G1: from an empty database the journal creates its schema; re-running migrate is a no-op", async () => {
    const admin = newPool();
    await admin.query("CREATE DATABASE empty_journal");
    const url = server.connectionString.replace(/\/postgres$/, "/empty_journal");
    const pool = newPool(url);
    const journal = await createPgJournal({ pool, schema: "reseller_api" });
    const cmd = newCommand();
    await journal.record(cmd);
    const versions = await pool.query("SELECT version, name FROM reseller_api.schema_migrations ORDER BY version");
    expect(versions.rows).toEqual(pgMigrations.map((m) => ({ version: m.version, name: m.name })));
    expect(await migratePg(pool, "reseller_api")).toEqual([]);
    await journal.close(); // a caller's pool stays open
    expect((await pool.query("SELECT count(*)::int AS c FROM reseller_api.commands")).rows[0].c).toBe(1);
    const idx = await pool.query(
      "SELECT indexdef FROM pg_indexes WHERE schemaname = 'reseller_api' AND indexname = 'commands_domain_lock'",
    );
    expect(idx.rows[0].indexdef).toMatch(/UNIQUE INDEX .* \(environment, lock_key\) WHERE lock_held/);
  });

  it("G1: concurrent starters on one empty schema migrate exactly once (advisory lock)", async () => {
    const pools = Array.from({ length: 5 }, () => newPool());
    const applied = await Promise.all(pools.map((p) => migratePg(p, "concurrent_start")));
    expect(applied.filter((a) => a.length > 0)).toEqual([pgMigrations.map((m) => m.version)]);
    const journals = await Promise.all(pools.map((pool) => createPgJournal({ pool, schema: "concurrent_start" })));
    const results = await Promise.allSettled(journals.map((j) => j.record(newCommand({ lockKey: "start.kz" }))));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
  });

  it("G1: a failing migration rolls back entirely", async () => {
    const pool = newPool();
    await migratePg(pool, "rollback_case");
    const broken = [
      ...pgMigrations,
      { version: 100, name: "broken", sql: "CREATE TABLE {{schema}}.t100 (x int); SELEC 1" },
    ];
    await expect(migratePg(pool, "rollback_case", broken)).rejects.toThrow();
    const v = await pool.query("SELECT max(version)::int AS v FROM rollback_case.schema_migrations");
    expect(v.rows[0].v).toBe(pgMigrations.at(-1)!.version);
    expect((await pool.query("SELECT to_regclass('rollback_case.t100') AS t")).rows[0].t).toBeNull();
  });

  it("G1: a record() that cannot be written rejects (the caller aborts the send)", async () => {
    const pool = newPool();
    const journal = await createPgJournal({ pool, schema: "write_fail" });
    await pool.query("ALTER TABLE write_fail.commands ADD CONSTRAINT no_more CHECK (false) NOT VALID");
    await expect(journal.record(newCommand())).rejects.toThrow(/no_more/);
  });

  it("leases: without an injected clock, lease times come from the database server's clock (one clock for the fleet)", async () => {
    const pool = newPool();
    const journal = await createPgJournal({ pool, schema: "server_clock", clock: { now: () => 0 } }); // updatedAt only
    closers.push(() => journal.close());
    const serverClock = await createPgJournal({ pool, schema: "server_clock" });
    const before = Number(
      (await pool.query("SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS t")).rows[0].t,
    );
    const rec = await serverClock.record(newCommand(), { owner: "w", leaseMs: 60_000 });
    const after = Number(
      (await pool.query("SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS t")).rows[0].t,
    );
    expect(rec.leaseUntil).toBeGreaterThanOrEqual(before + 60_000);
    expect(rec.leaseUntil).toBeLessThanOrEqual(after + 60_000);
    // The injected clock (0) is what the other handle uses: its lease is long expired on it.
    const injected = await journal.record(newCommand(), { owner: "w", leaseMs: 60_000 });
    expect(injected.leaseUntil).toBe(60_000);
  });
});

describe("postgres: migration 3 and query plans (issue 27, H2)", () => {
  it("D4/H2: a journal written by the previous schema gets fingerprints; settled sensitive bodies are dropped", async () => {
    const pool = newPool();
    await migratePg(
      pool,
      "old_schema",
      pgMigrations.filter((m) => m.version <= 2),
    );
    await pool.query(
      `INSERT INTO old_schema.commands (id, environment, api_key_id, operation_id, method, path, query, body,
         idempotency_key, state, created_at, updated_at)
       VALUES ('a', 'test', 'K', 'domains.renew', 'POST', '/domains/d1/renew', '', $1, 'k-a', 'succeeded', 1, 2),
              ('b', 'test', 'K', 'orders.create', 'POST', '/orders', '?x=%7e', $2, 'k-b', 'succeeded', 1, 2),
              ('c', 'test', 'K', 'orders.create', 'POST', '/orders', '', $3, 'k-c', 'sending', 1, 2)`,
      [
        Buffer.from('{"period":1}'),
        Buffer.from('{"auth_code":"OLD-PG-AUTH"}'),
        Buffer.from('{"auth_code":"PG-INFLIGHT"}'),
      ],
    );
    const journal = await createPgJournal({ pool, schema: "old_schema" });
    expect((await journal.get("a"))!.fingerprint).toBe(
      fingerprintSync("POST", "/domains/d1/renew", "", new TextEncoder().encode('{"period":1}')),
    );
    expect((await journal.get("b"))!.fingerprint).toBe(
      fingerprintSync("POST", "/orders", "?x=~", new TextEncoder().encode('{"auth_code":"OLD-PG-AUTH"}')),
    );
    expect(await journal.get("b")).toMatchObject({ body: null, bodyPruned: true });
    expect((await journal.get("c"))!.bodyPruned).toBe(false);
    expect((await journal.transition("c", "succeeded")).body).toBeNull();
    const idx = await pool.query<{ indexname: string }>(
      "SELECT indexname FROM pg_indexes WHERE schemaname = 'old_schema'",
    );
    const names = idx.rows.map((r) => r.indexname);
    expect(names).toEqual(expect.arrayContaining(["commands_unsettled", "commands_lock_latest", "commands_prunable"]));
    expect(names).not.toContain("commands_state_created");
  });

  it("EXPLAIN: claim/list over unsettled states, latestByLockKey, listCommands and prune use their indexes", async () => {
    const pool = newPool();
    await createPgJournal({ pool, schema: "plans" });
    // Enough settled history that a sequential scan is not the cheap choice, as in a year-old journal.
    await pool.query(
      `INSERT INTO plans.commands (id, environment, api_key_id, operation_id, method, path, query, body, fingerprint,
         idempotency_key, lock_key, state, created_at, updated_at, response_status, response_body, body_pruned)
       SELECT 'h' || g, 'test', 'K', 'domains.renew', 'POST', '/domains/x/renew', '', NULL, repeat('0', 64),
         'hk' || g, 'domain:' || g, 'succeeded', g, g, 200, NULL, true FROM generate_series(1, 20000) g`,
    );
    await pool.query("ANALYZE plans.commands");
    const plan = async (sql: string, params: unknown[]) =>
      (await pool.query<{ "QUERY PLAN": string }>(`EXPLAIN ${sql}`, params)).rows
        .map((r) => r["QUERY PLAN"])
        .join("\n");
    expect(
      await plan("SELECT * FROM plans.commands WHERE state = ANY($1) ORDER BY created_at, seq", [
        ["recorded", "unknown"],
      ]),
    ).toContain("commands_unsettled");
    expect(
      await plan(
        "SELECT * FROM plans.commands WHERE api_key_id = $1 AND lock_key = $2 AND created_at >= $3 ORDER BY created_at DESC, seq DESC LIMIT 1",
        ["K", "domain:7", 0],
      ),
    ).toContain("commands_lock_latest");
    expect(
      await plan("SELECT * FROM plans.commands WHERE api_key_id = $1 ORDER BY created_at DESC, id DESC LIMIT 25", [
        "K",
      ]),
    ).toMatch(/commands_(key_)?newest/); // one key holds every row here: either index walks the page only
    expect(
      await plan(
        `SELECT id FROM plans.commands WHERE state IN (${SETTLED_SQL}) AND (NOT body_pruned OR response_body IS NOT NULL)
         AND updated_at < $1 ORDER BY updated_at LIMIT $2`,
        [5, 10],
      ),
    ).toContain("commands_prunable");
  });
});
