/**
 * The SQLite journal on a runtime's built-in SQLite: `node:sqlite` (Node.js ≥ 22.5, Deno) and
 * `bun:sqlite` (Bun), adapted to the part of the better-sqlite3 handle the journal's statements,
 * migrations and group commit use — so the SQL, the migrations and the G1/G3 logic stay one copy.
 * Both modules already have `prepare`/`run`/`get`/`all` and bind `@name` parameters from an object;
 * what they lack is better-sqlite3's `transaction()` (nesting as savepoints) and `pragma()`.
 */
import type { SqliteDatabase, SqliteStatement } from "./sqlite-migrate";

/** What node:sqlite's `StatementSync` and bun:sqlite's `Statement` both have. */
interface BuiltinStatement {
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** What node:sqlite's `DatabaseSync` and bun:sqlite's `Database` both have. */
export interface BuiltinDatabase {
  prepare(source: string): BuiltinStatement;
  exec(source: string): unknown;
  close(): unknown;
}

/** A built-in handle in better-sqlite3's shape (plus `memory`, which the group commit reads). */
export interface AdaptedDatabase extends SqliteDatabase {
  readonly memory: boolean;
  /** Which module the handle came from. */
  readonly driver: "node:sqlite" | "bun:sqlite";
}

type Mode = "DEFERRED" | "IMMEDIATE" | "EXCLUSIVE";

/**
 * D4: node:sqlite binds an empty view over a zero-byte buffer as NULL; a view over one byte binds as
 * the empty BLOB. No body (null) and an empty body must stay different.
 */
const EMPTY_BLOB = new Uint8Array(new ArrayBuffer(1), 0, 0);
const bindable = (params: unknown[]) =>
  params.map((p) => (p instanceof Uint8Array && p.byteLength === 0 ? EMPTY_BLOB : p));

/** SQLite's extended result codes the journal tells apart, by the names better-sqlite3 gives them. */
const CODES: Record<number, string> = {
  5: "SQLITE_BUSY",
  13: "SQLITE_FULL",
  19: "SQLITE_CONSTRAINT",
  275: "SQLITE_CONSTRAINT_CHECK",
  787: "SQLITE_CONSTRAINT_FOREIGNKEY",
  1299: "SQLITE_CONSTRAINT_NOTNULL",
  1555: "SQLITE_CONSTRAINT_PRIMARYKEY",
  2067: "SQLITE_CONSTRAINT_UNIQUE",
};

/**
 * Gives a driver error better-sqlite3's `code` (node:sqlite says ERR_SQLITE_ERROR with the number in
 * `errcode`; Deno's node:sqlite only says it in the message), so D7/I6 conflicts are recognised alike.
 */
function withSqliteCode(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const e = error as Error & { code?: unknown; errcode?: unknown; errno?: unknown };
  if (typeof e.code === "string" && e.code.startsWith("SQLITE_")) return e;
  const n = typeof e.errcode === "number" ? e.errcode : typeof e.errno === "number" ? e.errno : undefined;
  const code =
    (n !== undefined ? CODES[n] : undefined) ??
    (e.message.startsWith("UNIQUE constraint failed") ? "SQLITE_CONSTRAINT_UNIQUE" : undefined) ??
    (e.message.startsWith("database is locked") ? "SQLITE_BUSY" : undefined);
  if (code !== undefined) {
    try {
      Object.defineProperty(e, "code", { value: code, configurable: true, writable: true });
    } catch {
      // a frozen error keeps its own code
    }
  }
  return e;
}

function call<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw withSqliteCode(error);
  }
}

export function adaptBuiltinDatabase(
  raw: BuiltinDatabase,
  filename: string,
  driver: AdaptedDatabase["driver"],
): AdaptedDatabase {
  let open = true;
  let depth = 0; // transactions in progress: depth > 0 nests as a savepoint, as better-sqlite3 does
  let savepoints = 0;

  const wrap = (stmt: BuiltinStatement): SqliteStatement => ({
    run: (...p) => {
      const r = call(() => stmt.run(...bindable(p)));
      return { changes: Number(r.changes), lastInsertRowid: r.lastInsertRowid };
    },
    // bun:sqlite answers null for "no row"; the journal (like better-sqlite3) expects undefined.
    get: (...p) => call(() => stmt.get(...bindable(p))) ?? undefined,
    all: (...p) => call(() => stmt.all(...bindable(p))),
  });

  /** Some errors (SQLITE_FULL, IOERR) end the transaction themselves; the first error is the one to report. */
  const rollback = (sql: string) => {
    try {
      raw.exec(sql);
    } catch {
      // already rolled back by SQLite
    }
  };

  function transaction<R>(fn: (...args: never[]) => R) {
    const run =
      (mode: Mode) =>
      (...args: unknown[]): R => {
        const nested = depth > 0;
        const name = `reseller_sp_${++savepoints}`;
        raw.exec(nested ? `SAVEPOINT ${name}` : `BEGIN ${mode}`);
        depth++;
        let result: R;
        try {
          result = fn(...(args as never[]));
        } catch (error) {
          depth--;
          rollback(nested ? `ROLLBACK TO ${name}; RELEASE ${name}` : "ROLLBACK");
          throw error;
        }
        depth--;
        try {
          raw.exec(nested ? `RELEASE ${name}` : "COMMIT");
        } catch (error) {
          if (!nested) rollback("ROLLBACK"); // e.g. SQLITE_BUSY on COMMIT: nothing of it stays
          throw error;
        }
        return result;
      };
    return Object.assign(run("DEFERRED"), {
      deferred: run("DEFERRED"),
      immediate: run("IMMEDIATE"),
      exclusive: run("EXCLUSIVE"),
    });
  }

  return {
    driver,
    name: filename,
    memory: filename === ":memory:" || filename === "",
    get open() {
      return open;
    },
    prepare: (source) => wrap(call(() => raw.prepare(source))),
    exec: (source) => call(() => raw.exec(source)),
    pragma(source, options) {
      const rows = raw.prepare(`PRAGMA ${source}`).all() as Record<string, unknown>[];
      if (!options?.simple) return rows;
      const first = rows[0];
      return first === undefined ? undefined : Object.values(first)[0];
    },
    transaction: transaction,
    close() {
      if (!open) return;
      open = false;
      raw.close();
    },
  };
}
