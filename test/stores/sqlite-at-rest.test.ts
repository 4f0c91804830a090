/**
 * The SQLite journal at rest (H2) and at scale: files private under a 022 umask, a warning (or a
 * refusal) for an existing group/world-readable file, migration 3 applied to a journal written by
 * the previous schema (fingerprints backfilled, settled sensitive bodies dropped), and query plans
 * that use the indexes over unsettled commands and history.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { isInvalidOptionsError } from "../../core";
import { sqliteMigrations, UNSETTLED_SQL, SETTLED_SQL } from "../../stores/migrations/sqlite";
import { createSqliteJournal, migrateSqlite } from "../../stores/sqlite-journal";
import { fingerprintSync } from "../../stores/sqlite-backfill";
import { newCommand } from "./journal-suite";

const dir = mkdtempSync(join(tmpdir(), "reseller-at-rest-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const modeOf = (f: string) => statSync(f).mode & 0o777;

describe("sqlite: private by default (H2)", () => {
  it("H2: journal, -wal and -shm are created 0600 under umask 022, in a folder that already exists", async () => {
    const old = process.umask(0o022);
    try {
      const filename = join(dir, "private.sqlite");
      const journal = createSqliteJournal({ filename });
      await journal.record(newCommand());
      for (const f of [filename, `${filename}-wal`, `${filename}-shm`]) {
        expect(existsSync(f)).toBe(true);
        expect(modeOf(f).toString(8)).toBe("600");
      }
      await journal.close();
    } finally {
      process.umask(old);
    }
  });

  it("H2: an existing group/world-readable journal gets a warning naming chmod 600 (or is refused)", async () => {
    const filename = join(dir, "shared.sqlite");
    const first = createSqliteJournal({ filename });
    await first.close();
    chmodSync(filename, 0o644);
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on("warning", onWarning);
    try {
      const j = createSqliteJournal({ filename });
      await j.close();
      await new Promise((r) => setImmediate(r)); // process warnings are emitted on the next tick
    } finally {
      process.off("warning", onWarning);
    }
    const ours = warnings.filter((w) => (w as Error & { code?: string }).code === "RESELLER_JOURNAL_PERMISSIONS");
    expect(ours).toHaveLength(1);
    expect(ours[0].message).toContain(`chmod 600 ${filename}`);
    expect(ours[0].message).toContain("0644");
    const err = (() => {
      try {
        createSqliteJournal({ filename, filePermissions: "refuse" });
      } catch (e) {
        return e;
      }
    })();
    expect(isInvalidOptionsError(err)).toBe(true);
    expect((err as Error).message).toContain("chmod 600");
    chmodSync(filename, 0o600);
    const quiet = createSqliteJournal({ filename, filePermissions: "refuse" });
    await quiet.close();
  });

  it("H2: leftover -wal/-shm files wider than the journal are narrowed on open", async () => {
    const filename = join(dir, "sidecars.sqlite");
    const j = createSqliteJournal({ filename });
    await j.record(newCommand());
    // Simulate files from an older version that created them 0644 while the process still runs.
    chmodSync(`${filename}-wal`, 0o644);
    chmodSync(`${filename}-shm`, 0o644);
    const again = createSqliteJournal({ filename });
    expect(modeOf(`${filename}-wal`).toString(8)).toBe("600");
    expect(modeOf(`${filename}-shm`).toString(8)).toBe("600");
    await again.close();
    await j.close();
  });

  it("G1: a journal file that cannot be opened is an InvalidOptionsError naming filename and the fix; the file is left as it was", () => {
    const notADb = join(dir, "notes.txt");
    const text = "not a journal: a text file a wrong path points at\n".repeat(20);
    writeFileSync(notADb, text, { mode: 0o600 });
    const cases: [filename: string, fix: RegExp][] = [
      [join(dir, "missing-folder", "journal.sqlite"), /does not exist: create it \(mkdir -p .*missing-folder\)/],
      [dir, /it is a folder: pass a file path inside it/],
      [join(notADb, "journal.sqlite"), /a part of its path is a file, not a folder/],
      [notADb, /not a SQLite database/],
    ];
    for (const [filename, fix] of cases) {
      let thrown: unknown;
      try {
        createSqliteJournal({ filename });
      } catch (e) {
        thrown = e;
      }
      expect(isInvalidOptionsError(thrown), String(thrown)).toBe(true);
      expect((thrown as { option: string }).option).toBe("filename");
      expect((thrown as Error).message).toMatch(fix);
    }
    expect(readFileSync(notADb, "utf8")).toBe(text);
    expect(existsSync(join(dir, "missing-folder"))).toBe(false);
  });
});

/** A private journal file at schema `version`, as a user's file is before an upgrade (WAL, still open). */
function schemaFile(name: string, version: number): { filename: string; db: Database.Database } {
  const filename = join(dir, name);
  writeFileSync(filename, "");
  chmodSync(filename, 0o600);
  const db = new Database(filename);
  db.pragma("journal_mode = WAL");
  migrateSqlite(
    db,
    sqliteMigrations.filter((m) => m.version <= version),
  );
  return { filename, db };
}

describe("sqlite: migration 3 on a journal written by the previous schema", () => {
  it("D4/H2/issue-27: old rows get their fingerprint, settled sensitive bodies are dropped, unsettled ones kept", async () => {
    const { filename, db } = schemaFile("old.sqlite", 2);
    const insert = db.prepare(
      `INSERT INTO commands (id, environment, api_key_id, operation_id, method, path, query, body, idempotency_key,
         external_id, lock_key, lock_held, state, created_at, updated_at)
       VALUES (?, 'test', 'K', ?, 'POST', ?, ?, ?, ?, NULL, NULL, 0, ?, 1, 2)`,
    );
    const rows = [
      ["a", "domains.renew", "/domains/d1/renew", "", Buffer.from('{"period":1}'), "k-a", "succeeded"],
      ["b", "orders.create", "/orders", "?x=%7e", Buffer.from('{"auth_code":"OLD-AUTH-SECRET"}'), "k-b", "succeeded"],
      ["c", "orders.create", "/orders", "", Buffer.from('{"auth_code":"INFLIGHT-AUTH"}'), "k-c", "sending"],
      ["d", "domains.sync", "/domains/d1/sync", "", null, "k-d", "unknown"],
    ] as const;
    for (const r of rows) insert.run(...r);
    db.close();

    const journal = createSqliteJournal({ filename });
    for (const [id, , path, query, body] of rows) {
      const rec = (await journal.get(id))!;
      expect(rec.fingerprint).toBe(fingerprintSync("POST", path, query, body === null ? null : new Uint8Array(body)));
    }
    expect((await journal.get("a"))!.body).not.toBeNull(); // an ordinary settled body stays until prune
    expect((await journal.get("b"))!).toMatchObject({ body: null, bodyPruned: true });
    expect((await journal.get("c"))!.bodyPruned).toBe(false); // in flight: a resend may need it
    const settled = await journal.transition("c", "succeeded");
    expect(settled.body).toBeNull(); // …dropped at its settle
    expect((await journal.listByState(["unknown"])).map((r) => r.id)).toEqual(["d"]);
    await journal.close();
    const check = new Database(filename, { readonly: true });
    const names = (
      check.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").all() as { name: string }[]
    ).map((r) => r.name);
    check.close();
    expect(names).toEqual(expect.arrayContaining(["commands_unsettled", "commands_lock_latest", "commands_prunable"]));
    expect(names).not.toContain("commands_state_created"); // the index over every settled row is gone
  });
});

describe("sqlite: migration 4 on a journal written by schema 3", () => {
  it("G1: the all-keys index goes; attempts, listing over every key and new writes still answer", async () => {
    const { filename, db } = schemaFile("v3.sqlite", 3);
    // Schema 3 rows as a user's file holds them before the upgrade.
    const insert = db.prepare(
      `INSERT INTO commands (id, environment, api_key_id, operation_id, method, path, query, body, fingerprint,
         idempotency_key, lock_key, lock_held, state, created_at, updated_at)
       VALUES (?, 'test', ?, 'domains.renew', 'POST', ?, '', NULL, ?, ?, NULL, 0, 'unknown', ?, ?)`,
    );
    const attempt = db.prepare(
      "INSERT INTO command_attempts (command_id, seq, at, delay_ms, status) VALUES (?, ?, ?, ?, ?)",
    );
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = `v3-${i}`;
      const path = `/domains/d${i}/renew`;
      insert.run(
        id,
        i === 2 ? "Z".repeat(24) : "A".repeat(24),
        path,
        fingerprintSync("POST", path, "", null),
        `k-${i}`,
        1_000 + i,
        1_000 + i,
      );
      for (const seq of [2, 1]) attempt.run(id, seq, 1_999 + seq, seq - 1, 499 + seq); // out of order on disk
      ids.push(id);
    }
    db.close();

    const journal = createSqliteJournal({ filename });
    for (const id of ids) {
      expect((await journal.get(id))!.attempts.map((a) => [a.at, a.delayMs, a.status])).toEqual([
        [2_000, 0, 500],
        [2_001, 1, 501],
      ]);
    }
    const c = newCommand({ createdAt: 5_000 });
    await journal.record(c);
    await journal.addAttempt(c.id, { at: 6_000, delayMs: 0, status: 200 }, { to: "succeeded" });
    expect((await journal.listCommands({ limit: 10 })).map((r) => r.id)).toEqual([c.id, ...ids.reverse()]);
    await journal.close();
    const check = new Database(filename, { readonly: true });
    try {
      const ddl = (name: string) =>
        (check.prepare("SELECT sql FROM sqlite_master WHERE name = ?").get(name) as { sql: string } | undefined)?.sql;
      expect(ddl("commands_newest")).toBeUndefined();
      expect(check.prepare("SELECT COUNT(*) AS n FROM command_attempts").get()).toEqual({ n: 7 });
      expect(check.pragma("foreign_key_check")).toEqual([]);
    } finally {
      check.close();
    }
  });
});

describe("sqlite: query plans (issue 27: costs follow the unsettled count and the page, not the history)", () => {
  it("EXPLAIN QUERY PLAN: claim/list/count over unsettled states, latestByLockKey, listCommands and prune use their indexes", async () => {
    const filename = join(dir, "plans.sqlite");
    const journal = createSqliteJournal({ filename });
    await journal.record(newCommand());
    await journal.close();
    const db = new Database(filename, { readonly: true });
    const plan = (sql: string, ...params: unknown[]) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join(" | ");
    try {
      const unsettled = "'recorded', 'sending', 'unknown'";
      // What listByState()/claim() prepare (stores/sqlite-statements.ts): the hint must be accepted.
      expect(
        plan(
          `SELECT * FROM commands INDEXED BY commands_unsettled WHERE state IN (${UNSETTLED_SQL}) AND state IN (${unsettled}) ORDER BY created_at, rowid`,
        ),
      ).toContain("commands_unsettled");
      expect(plan(`SELECT state, COUNT(*) FROM commands WHERE state IN (${UNSETTLED_SQL}) GROUP BY state`)).toContain(
        "commands_unsettled",
      );
      expect(
        plan(
          `SELECT id FROM commands WHERE state IN (${UNSETTLED_SQL}) AND (? IS NULL OR api_key_id = ?) AND state IN (${unsettled})
           AND (owner = ? OR owner IS NULL) ORDER BY created_at, rowid LIMIT 10`,
          "K",
          "K",
          "w",
        ),
      ).toContain("commands_unsettled");
      expect(
        plan(
          "SELECT * FROM commands WHERE api_key_id = ? AND lock_key = ? AND created_at >= ? ORDER BY created_at DESC, rowid DESC LIMIT 1",
          "K",
          "domain:x",
          0,
        ),
      ).toContain("commands_lock_latest");
      expect(
        plan(
          "SELECT * FROM commands WHERE api_key_id = ? AND (created_at < ? OR (created_at = ? AND id < ?)) ORDER BY created_at DESC, id DESC LIMIT 25",
          "K",
          1,
          1,
          "z",
        ),
      ).toContain("commands_key_newest");
      // listCommands() over every key: one seek per key, then that key's page (above).
      expect(plan("SELECT MIN(api_key_id) AS k FROM commands")).toMatch(/SEARCH .*USING COVERING INDEX/);
      expect(
        plan("SELECT api_key_id AS k FROM commands WHERE api_key_id > ? ORDER BY api_key_id LIMIT 1", "K"),
      ).toMatch(/SEARCH .*USING COVERING INDEX .*\(api_key_id>\?\)/);
      expect(
        plan(
          `SELECT id FROM commands WHERE state IN (${SETTLED_SQL}) AND (body_pruned = 0 OR response_body IS NOT NULL)
           AND updated_at < ? ORDER BY updated_at LIMIT ?`,
          1,
          10,
        ),
      ).toContain("commands_prunable");
    } finally {
      db.close();
    }
  });
});
