/**
 * The shared Journal suite on the runtime's own SQLite (node:sqlite under Node 22 / Deno, bun:sqlite
 * under Bun), run by test/runtimes/journal-suites.test.ts with vitest under that runtime. The driver is
 * named explicitly, so a runtime that silently fell back to another module fails here.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isMissingDependencyError } from "../../../core";
import type { Journal } from "../../../journal";
import { sqliteMigrations } from "../../../stores/migrations/sqlite";
import { createSqliteJournal, type SqliteDriver } from "../../../stores/sqlite-journal";
import type { JournalClock } from "../../../stores/journal-common";
import { defineJournalSuite, newCommand } from "../../stores/journal-suite";

const driver = process.env.RESELLER_SQLITE_DRIVER as SqliteDriver;
const dir = mkdtempSync(join(tmpdir(), `reseller-${driver.replace(":", "-")}-`));
const opened: Journal[] = [];
let n = 0;
const open = (filename: string, clock?: JournalClock) => {
  const j = createSqliteJournal({ filename, clock, driver });
  opened.push(j);
  return j;
};
afterAll(async () => {
  for (const j of opened) await j.close();
  rmSync(dir, { recursive: true, force: true });
});

defineJournalSuite(driver, {
  async fresh(options) {
    const filename = join(dir, `journal-${++n}.db`);
    return {
      journal: open(filename, options?.clock),
      another: async () => open(filename, options?.clock),
      async raw() {
        return ["", "-wal"]
          .map((s) => filename + s)
          .filter(existsSync)
          .map((f) => readFileSync(f).toString("latin1"))
          .join("\n");
      },
    };
  },
});

describe(`${driver}: the handle, migrations and durability`, () => {
  // Under Node the checkout's better-sqlite3 (built for the host's Node) resolves first; the
  // runtime matrix proves "auto" → node:sqlite on Node 22 in a project without it.
  const auto = driver === "bun:sqlite" || "Deno" in globalThis;
  it(`G1: ${auto ? '"auto" picks ' : ""}${driver} on this runtime, WAL, and every migration recorded once`, async () => {
    const filename = join(dir, "auto.db");
    const journal = createSqliteJournal({ filename, driver: auto ? "auto" : driver });
    opened.push(journal);
    await journal.record(newCommand());
    expect((journal.database as unknown as { driver?: string }).driver).toBe(driver);
    expect(journal.database.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(journal.database.prepare("SELECT version, name FROM schema_migrations ORDER BY version").all()).toEqual(
      sqliteMigrations.map((m) => ({ version: m.version, name: m.name })),
    );
  });

  it("G1: a reopened file keeps its commands; busy_timeout and foreign keys are set per handle", async () => {
    const filename = join(dir, "reopen.db");
    const first = createSqliteJournal({ filename, driver });
    const cmd = newCommand({ lockKey: "reopen.kz" });
    await first.record(cmd);
    await first.close();
    const second = open(filename);
    expect((await second.get(cmd.id))?.lockKey).toBe("reopen.kz");
    const third = createSqliteJournal({ filename, driver, busyTimeoutMs: 1234 });
    opened.push(third);
    expect(third.database.pragma("busy_timeout", { simple: true })).toBe(1234);
    expect(third.database.pragma("foreign_keys", { simple: true })).toBe(1);
  });

  it("G1: a record() that cannot be written rejects and leaves nothing (the caller aborts the send)", async () => {
    const journal = open(join(dir, "write-fail.db"));
    journal.database.exec(
      "CREATE TRIGGER no_more BEFORE INSERT ON commands BEGIN SELECT RAISE(ABORT, 'disk full (simulated)'); END",
    );
    const cmd = newCommand();
    await expect(journal.record(cmd)).rejects.toThrow(/disk full/);
    expect(await journal.get(cmd.id)).toBeUndefined();
  });

  // Node 22 here resolves the checkout's better-sqlite3, whose addon was built for the host's Node 20:
  // installed, but not loadable — what an app meets after a Node.js upgrade without `npm rebuild`.
  const node22 = driver === "node:sqlite" && !("Deno" in globalThis);
  // Defined only there: the outer run counts a skipped test as a failure (journal-suites.test.ts).
  if (node22) {
    it('G1: a better-sqlite3 built for another Node.js — "auto" falls back to node:sqlite', async () => {
      const journal = createSqliteJournal({ filename: join(dir, "fallback.db") });
      opened.push(journal);
      await journal.record(newCommand());
      expect((journal.database as unknown as { driver?: string }).driver).toBe("node:sqlite");
    });

    it("G1: driver better-sqlite3 with a build for another Node.js is a MissingDependencyError saying npm rebuild; no file is created", () => {
      const filename = join(dir, "unloadable.db");
      let caught: unknown;
      try {
        createSqliteJournal({ filename, driver: "better-sqlite3" });
      } catch (error) {
        caught = error;
      }
      expect(isMissingDependencyError(caught)).toBe(true);
      expect((caught as Error).message).toMatch(
        /installed, but its native build does not load in this Node\.js \(22\.[\d.]+\)/,
      );
      expect((caught as Error).message).toMatch(/npm rebuild better-sqlite3/);
      expect(existsSync(filename)).toBe(false);
    });
  }

  // Bun and Deno cannot load the better-sqlite3 addon; no runtime but Bun has bun:sqlite.
  const lacking = driver === "bun:sqlite" || auto ? "better-sqlite3" : "bun:sqlite";
  it(`a driver this runtime lacks (${lacking}) is a MissingDependencyError that says what to use; no file is created`, () => {
    const filename = join(dir, "lacking.db");
    let caught: unknown;
    try {
      createSqliteJournal({ filename, driver: lacking });
    } catch (error) {
      caught = error;
    }
    expect(isMissingDependencyError(caught)).toBe(true);
    const e = caught as { packageName: string; message: string };
    expect(e.packageName).toBe(lacking);
    expect(e.message).toMatch(/leave driver unset/);
    expect(existsSync(filename)).toBe(false);
  });
});
