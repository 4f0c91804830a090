/**
 * H2 least privilege in PostgreSQL: the GRANT statements of docs/guides/data-at-rest.md, read from
 * the page and run as written on the server this file starts — then the whole shared journal suite
 * as the application role they create, and the privileges that role must not have.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Journal } from "../../journal";
import { createPgJournal } from "../../stores/pg-journal";
import type { JournalClock } from "../../stores/journal-common";
import { startPostgres, type PostgresServer } from "../support/postgres";
import { defineJournalSuite, newCommand } from "./journal-suite";

const GUIDE = readFileSync(join(__dirname, "../../docs/guides/data-at-rest.md"), "utf8");
const section = GUIDE.slice(GUIDE.indexOf("## PostgreSQL: who gets what"));
const [SUPERUSER_SQL, OWNER_SQL] = [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]);

let server: PostgresServer;
const closers: (() => Promise<void>)[] = [];
let n = 0;

/** A pool on database `reseller` as `user` (the test server trusts loopback: no password needed). */
function poolAs(user: string): pg.Pool {
  const url = server.connectionString
    .replace("postgres://postgres@", `postgres://${user}@`)
    .replace(/\/postgres$/, "/reseller");
  const pool = new pg.Pool({ connectionString: url });
  pool.on("error", () => undefined);
  closers.push(() => pool.end());
  return pool;
}

/** Runs the guide's statements one by one, for `schema` instead of reseller_api. */
async function runAs(pool: pg.Pool, sql: string, schema: string, only?: (stmt: string) => boolean) {
  for (const stmt of sql
    .split(";")
    .map((x) => x.trim())
    .filter(Boolean)) {
    if (only && !only(stmt)) continue;
    await pool.query(stmt.replaceAll("reseller_api", schema));
  }
}

beforeAll(async () => {
  server = await startPostgres();
  const root = new pg.Client({ connectionString: server.connectionString });
  await root.connect();
  await root.query("CREATE DATABASE reseller");
  await root.end();
  expect(SUPERUSER_SQL).toContain("CREATE ROLE reseller_app");
  expect(OWNER_SQL).toContain("GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA reseller_api TO reseller_app");
  await runAs(poolAs("postgres"), SUPERUSER_SQL, "reseller_api");
}, 120_000);
afterAll(async () => {
  for (const c of closers.reverse()) await c().catch(() => undefined);
  await server?.stop();
});

/** A schema set up as the guide says: created for the owner, migrated by the owner, granted, opened by the app. */
async function appJournal(schema: string, clock?: JournalClock): Promise<Journal> {
  const owner = poolAs("reseller_owner");
  const migrated = await createPgJournal({ pool: owner, schema });
  await migrated.close();
  await runAs(owner, OWNER_SQL, schema);
  const j = await createPgJournal({ pool: poolAs("reseller_app"), schema, clock });
  closers.push(() => j.close());
  return j;
}

describe("postgres: the guide's least-privilege role (H2)", () => {
  it("H2: the owner migrates; reseller_app records, settles, prunes — and may not DELETE, TRUNCATE, DROP or CREATE", async () => {
    const journal = await appJournal("reseller_api");
    const cmd = newCommand();
    await journal.record(cmd);
    await journal.addAttempt(cmd.id, { at: Date.now(), delayMs: 0, status: 200 }, { to: "succeeded" });
    await new Promise((r) => setTimeout(r, 5));
    expect((await journal.prune({ settledBefore: Date.now() })).pruned).toBe(1);
    expect((await journal.get(cmd.id))!.bodyPruned).toBe(true);
    const app = poolAs("reseller_app");
    for (const sql of [
      "DELETE FROM reseller_api.commands",
      "TRUNCATE reseller_api.command_attempts",
      "DROP TABLE reseller_api.commands",
      "CREATE TABLE reseller_api.x (a int)",
      "ALTER TABLE reseller_api.commands ADD COLUMN x int",
      "CREATE SCHEMA other",
    ])
      await expect(app.query(sql), sql).rejects.toThrow(/permission denied|must be owner/);
    expect((await app.query("SELECT count(*)::int AS c FROM reseller_api.commands")).rows[0].c).toBe(1);
  });

  it("H2: a journal opened by reseller_app before the owner migrated it fails with permission denied, changing nothing", async () => {
    await runAs(poolAs("postgres"), SUPERUSER_SQL, "not_migrated", (s) => s.includes("reseller_api"));
    await expect(createPgJournal({ pool: poolAs("reseller_app"), schema: "not_migrated" })).rejects.toThrow(
      /permission denied/,
    );
    const tables = await poolAs("postgres").query(
      "SELECT count(*)::int AS c FROM information_schema.tables WHERE table_schema = 'not_migrated'",
    );
    expect(tables.rows[0].c).toBe(0);
  });
});

defineJournalSuite("postgres as reseller_app (least privilege)", {
  withdraws: false,
  async fresh(options) {
    const schema = `lp_${++n}`;
    await runAs(poolAs("postgres"), SUPERUSER_SQL, schema, (s) => s.includes("reseller_api"));
    return {
      journal: await appJournal(schema, options?.clock),
      another: async () => {
        const j = await createPgJournal({ pool: poolAs("reseller_app"), schema, clock: options?.clock });
        closers.push(() => j.close());
        return j;
      },
      async raw() {
        const pool = poolAs("postgres");
        const out: string[] = [];
        for (const t of ["commands", "command_attempts"]) {
          const res = await pool.query(`SELECT t::text AS row FROM "${schema}".${t} t`);
          out.push(...res.rows.map((r) => r.row as string));
        }
        const bodies = await pool.query(
          `SELECT encode(body, 'escape') AS b FROM "${schema}".commands WHERE body IS NOT NULL`,
        );
        out.push(...bodies.rows.map((r) => r.b as string));
        return out.join("\n");
      },
    };
  },
});
