/**
 * The shared Journal suite on a real PostgreSQL server started by this file (each store a fresh
 * schema; "another connection" is a second pg.Pool), plus the PG migration rules.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Journal } from "../../journal";
import { pgMigrations } from "../../stores/migrations/pg";
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
