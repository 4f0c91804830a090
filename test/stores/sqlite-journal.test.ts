/**
 * The shared Journal suite on a temp SQLite file (each store a fresh file; "another connection" is a
 * second better-sqlite3 handle on that file), plus the SQLite-specific migration and durability rules.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { DomainLockedError, type Journal } from "../../journal";
import { sqliteMigrations } from "../../stores/migrations/sqlite";
import { createSqliteJournal, migrateSqlite } from "../../stores/sqlite-journal";
import type { JournalClock } from "../../stores/journal-common";
import { defineJournalSuite, newCommand } from "./journal-suite";

const dir = mkdtempSync(join(tmpdir(), "reseller-sqlite-"));
const opened: Journal[] = [];
let n = 0;
const open = (filename: string, clock?: JournalClock) => {
  const j = createSqliteJournal({ filename, clock });
  opened.push(j);
  return j;
};
afterAll(async () => {
  for (const j of opened) await j.close();
  rmSync(dir, { recursive: true, force: true });
});

defineJournalSuite("sqlite", {
  async fresh(options) {
    const filename = join(dir, `journal-${++n}.db`);
    return {
      journal: open(filename, options?.clock),
      another: async () => open(filename, options?.clock),
      async raw() {
        // The main file and the WAL: everything that reached the disk.
        return ["", "-wal"]
          .map((s) => filename + s)
          .filter(existsSync)
          .map((f) => readFileSync(f).toString("latin1"))
          .join("\n");
      },
    };
  },
});

describe("sqlite: migrations and durability", () => {
  it("G1: a new file is created and migrated on first use (WAL, synchronous=FULL)", async () => {
    const filename = join(dir, "fresh.db");
    expect(existsSync(filename)).toBe(false);
    const journal = open(filename);
    await journal.record(newCommand());
    const db = new Database(filename, { readonly: true });
    try {
      const versions = db.prepare("SELECT version, name FROM schema_migrations ORDER BY version").all();
      expect(versions).toEqual(sqliteMigrations.map((m) => ({ version: m.version, name: m.name })));
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table','index') ORDER BY name").all();
      expect(tables.map((t) => (t as { name: string }).name)).toEqual(
        expect.arrayContaining(["commands", "command_attempts", "commands_domain_lock", "schema_migrations"]),
      );
    } finally {
      db.close();
    }
  });

  it("G1: re-running migrate is a no-op, and reopening keeps the data", async () => {
    const filename = join(dir, "reopen.db");
    const first = createSqliteJournal({ filename });
    const cmd = newCommand({ lockKey: "reopen.kz" });
    await first.record(cmd);
    await first.close();
    const db = new Database(filename);
    try {
      expect(migrateSqlite(db)).toEqual([]);
    } finally {
      db.close();
    }
    const second = createSqliteJournal({ filename, busyTimeoutMs: 1234 });
    opened.push(second);
    // Per-connection settings of the journal's own handle.
    // NORMAL on the connection: with "full" (the default) the journal fdatasyncs the WAL itself after
    // every commit, before the call returns, so commits in flight together share one fsync.
    expect(second.database.pragma("synchronous", { simple: true })).toBe(1);
    expect(second.database.pragma("busy_timeout", { simple: true })).toBe(1234);
    expect(second.database.pragma("foreign_keys", { simple: true })).toBe(1);
    expect((await second.get(cmd.id))?.lockKey).toBe("reopen.kz");
  });

  it("G1: migrations from an empty database apply in order, each recorded once", () => {
    const db = new Database(":memory:");
    try {
      expect(migrateSqlite(db)).toEqual(sqliteMigrations.map((m) => m.version));
      expect(migrateSqlite(db)).toEqual([]);
      const extra = [...sqliteMigrations, { version: 99, name: "test-only", sql: "CREATE TABLE t99 (x INTEGER)" }];
      expect(migrateSqlite(db, extra)).toEqual([99]);
      expect(migrateSqlite(db, extra)).toEqual([]);
      // A failing migration rolls back entirely: no table, no version row.
      const broken = [...extra, { version: 100, name: "broken", sql: "CREATE TABLE t100 (x INTEGER); SELEC nonsense" }];
      expect(() => migrateSqlite(db, broken)).toThrow();
      expect(db.prepare("SELECT count(*) AS c FROM schema_migrations WHERE version = 100").get()).toEqual({ c: 0 });
      expect(db.prepare("SELECT count(*) AS c FROM sqlite_master WHERE name = 't100'").get()).toEqual({ c: 0 });
    } finally {
      db.close();
    }
  });
});

describe("sqlite: separate processes on one file", () => {
  it("I6 lock across processes: four OS processes race for 25 domains, exactly one wins each", async () => {
    const filename = join(dir, "multi-process.db");
    open(filename); // create and migrate first, like an application's startup
    const child = join(import.meta.dirname, "sqlite-child.ts");
    const startAt = Date.now() + 2500; // all four start their races at the same instant
    const run = (tag: string) =>
      promisify(execFile)(process.execPath, ["--import", "tsx", child, filename, String(startAt), "25", tag], {
        cwd: join(import.meta.dirname, "../.."),
        timeout: 30_000,
      });
    const results = (await Promise.all(["p1", "p2", "p3", "p4"].map(run))).map(
      (r) => JSON.parse(r.stdout.trim().split("\n").at(-1)!) as { won: string[]; locked: string[]; other: string[] },
    );
    expect(results.flatMap((r) => r.other)).toEqual([]); // no SQLITE_BUSY, no surprises
    const won = results.flatMap((r) => r.won).sort();
    expect(won).toEqual(Array.from({ length: 25 }, (_, i) => `domain-${i}.kz`).sort());
    expect(results.flatMap((r) => r.locked)).toHaveLength(75);
    // And this process sees the same thing in the database.
    const journal = open(filename);
    await expect(journal.record(newCommand({ lockKey: "domain-7.kz" }))).rejects.toBeInstanceOf(DomainLockedError);
  });

  it("G1: a record() that cannot be written rejects (the caller aborts the send)", async () => {
    const journal = createSqliteJournal({ filename: join(dir, "write-fail.db") });
    opened.push(journal);
    journal.database.exec(
      "CREATE TRIGGER no_more BEFORE INSERT ON commands BEGIN SELECT RAISE(ABORT, 'disk full (simulated)'); END",
    );
    const cmd = newCommand();
    await expect(journal.record(cmd)).rejects.toThrow(/disk full/);
    expect(await journal.get(cmd.id)).toBeUndefined();
  });

  it("leases migration: a version-1 journal gains owner/lease columns; its old commands stay recoverable (staleAfterMs)", async () => {
    const filename = join(dir, "v1.db");
    const v1 = new Database(filename);
    v1.pragma("journal_mode = WAL");
    migrateSqlite(v1, sqliteMigrations.slice(0, 1));
    const old = newCommand({ createdAt: 1_000 });
    v1.prepare(
      `INSERT INTO commands (id, environment, api_key_id, operation_id, method, path, query, body, idempotency_key,
         external_id, lock_key, lock_held, state, version, created_at, updated_at)
       VALUES (?, 'test', ?, 'orders.create', 'POST', '/orders', '', NULL, ?, NULL, NULL, 0, 'sending', 1, 1000, 1000)`,
    ).run(old.id, old.apiKeyId, old.idempotencyKey);
    v1.close();
    let now = 10_000;
    const journal = createSqliteJournal({ filename, clock: { now: () => now } });
    opened.push(journal);
    const versions = journal.database.prepare("SELECT version FROM schema_migrations ORDER BY version").all();
    expect(versions).toEqual(sqliteMigrations.map((m) => ({ version: m.version })));
    const rec = await journal.get(old.id);
    expect([rec?.state, rec?.owner, rec?.leaseUntil]).toEqual(["sending", null, null]);
    const claim = () =>
      journal.claim({
        owner: "w",
        leaseMs: 1000,
        apiKeyId: old.apiKeyId,
        states: ["sending"],
        limit: 10,
        unownedStaleAfterMs: 60_000,
      });
    expect(await claim()).toEqual([]); // updated 9 s ago: within staleAfterMs, maybe still being sent by an old client
    now = 61_000;
    expect((await claim()).map((r) => [r.id, r.owner])).toEqual([[old.id, "w"]]);
  });
});
