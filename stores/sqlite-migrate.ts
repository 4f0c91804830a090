/**
 * The SQLite migration runner (used by stores/sqlite-journal.ts when a journal is opened; exported
 * from there as `migrateSqlite`). Migrations themselves live in migrations/sqlite.ts.
 */
import type Database from "better-sqlite3";
import { sqliteMigrations, type Migration } from "./migrations/sqlite";

type Db = Database.Database;

/**
 * Applies every migration newer than the database's version, each recorded in schema_migrations,
 * all in one IMMEDIATE transaction (so concurrent starters serialise). Returns the versions applied
 * now; running it again is a no-op that returns [].
 */
export function migrateSqlite(db: Db, migrations: readonly Migration[] = sqliteMigrations): number[] {
  const run = db.transaction(() => {
    db.exec(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`,
    );
    const done = new Set(
      (db.prepare("SELECT version FROM schema_migrations").all() as { version: number }[]).map((r) => r.version),
    );
    const applied: number[] = [];
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(m.version)) continue;
      db.exec(m.sql);
      db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(
        m.version,
        m.name,
        Date.now(),
      );
      applied.push(m.version);
    }
    return applied;
  });
  return run.immediate();
}
