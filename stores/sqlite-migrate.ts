/**
 * The SQLite migration runner, run when a journal is opened and exported as `migrateSqlite`.
 */
import { sqliteMigrations, type Migration } from "./migrations/sqlite";

/**
 * The part of a better-sqlite3 `Database` handle the SQLite journal exposes and `migrateSqlite` takes.
 * Structural, so the published types compile without `@types/better-sqlite3`; a real handle fits it.
 */
export interface SqliteDatabase {
  readonly open: boolean;
  readonly name: string;
  prepare(source: string): SqliteStatement;
  exec(source: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<R>(fn: () => R): { (): R; immediate(): R; deferred(): R; exclusive(): R };
  close(): unknown;
}

/** A prepared statement of {@link SqliteDatabase}. */
export interface SqliteStatement {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

type Db = SqliteDatabase;

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
