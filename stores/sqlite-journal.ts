/**
 * SQLite Journal (better-sqlite3): one file, WAL, synchronous=FULL so record() is on disk when it
 * returns (G1), busy_timeout so several processes can share the file. Every write runs in a
 * BEGIN IMMEDIATE transaction; the I6 domain lock is a unique partial index, so it also holds
 * between processes. The schema is created and migrated when the journal is opened.
 */
import Database from "better-sqlite3";
import { assertTransition, holdsLock } from "../middleware/command-state";
import {
  DomainLockedError,
  DuplicateCommandError,
  UnknownCommandError,
  type AttemptRecord,
  type CommandPatch,
  type CommandRecord,
  type CommandState,
  type Journal,
  type NewCommand,
} from "../middleware/journal";
import {
  OPTIMISTIC_RETRIES,
  applyPatch,
  cleanAttempt,
  defaultJournalClock,
  screenNewCommand,
  type JournalClock,
} from "./journal-common";
import {
  mutableToColumns,
  rowState,
  rowToMutable,
  rowToRecord,
  type AttemptRow,
  type CommandRow,
} from "./journal-rows";
import { sqliteMigrations, type Migration } from "./migrations/sqlite";

type Db = Database.Database;

export interface SqliteJournalOptions {
  /** Database file; created with its schema on first use. */
  filename: string;
  /** How long a write waits for another process's lock, ms (SQLite busy_timeout). Default 5000. */
  busyTimeoutMs?: number;
  /** Source of updatedAt (default Date.now). */
  clock?: JournalClock;
}

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

function isUniqueViolation(e: unknown): e is Error & { code: string } {
  const code = e instanceof Error ? (e as { code?: string }).code : undefined;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}

/** A Journal with its better-sqlite3 handle exposed (for backups, inspection and tests). */
export interface SqliteJournal extends Journal {
  readonly database: Db;
}

export function createSqliteJournal(options: SqliteJournalOptions): SqliteJournal {
  const clock = options.clock ?? defaultJournalClock;
  const db: Db = new Database(options.filename, { timeout: options.busyTimeoutMs ?? 5000 });
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL"); // G1: the command insert is on disk before the first byte is sent
    db.pragma("foreign_keys = ON");
    migrateSqlite(db);
  } catch (e) {
    db.close();
    throw e;
  }

  const q = {
    lockHolder: db.prepare<[string, string], { id: string }>(
      "SELECT id FROM commands WHERE environment = ? AND lock_key = ? AND lock_held = 1",
    ),
    byKey: db.prepare<[string, string], { id: string }>(
      "SELECT id FROM commands WHERE api_key_id = ? AND idempotency_key = ?",
    ),
    insert: db.prepare(
      `INSERT INTO commands (id, environment, api_key_id, operation_id, method, path, query, body,
         idempotency_key, external_id, lock_key, lock_held, state, version, created_at, updated_at)
       VALUES (@id, @environment, @api_key_id, @operation_id, @method, @path, @query, @body,
         @idempotency_key, @external_id, @lock_key, @lock_held, 'recorded', 0, @created_at, @created_at)`,
    ),
    row: db.prepare<[string], CommandRow & { version: number }>("SELECT * FROM commands WHERE id = ?"),
    attempts: db.prepare<[string], AttemptRow>("SELECT * FROM command_attempts WHERE command_id = ? ORDER BY seq"),
    addAttempt: db.prepare(
      `INSERT INTO command_attempts (command_id, seq, at, delay_ms, status, error_code, request_id, transport_error, replayed)
       VALUES (@command_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM command_attempts WHERE command_id = @command_id),
         @at, @delay_ms, @status, @error_code, @request_id, @transport_error, @replayed)`,
    ),
    touch: db.prepare("UPDATE commands SET updated_at = ? WHERE id = ?"),
    update: db.prepare(
      `UPDATE commands SET state = @state, version = version + 1, updated_at = @updated_at,
         lock_held = CASE WHEN @release = 1 THEN 0 ELSE lock_held END,
         order_uuid = @order_uuid, domain_uuid = @domain_uuid, operation_uuid = @operation_uuid,
         response_status = @response_status, response_body = @response_body,
         reconciliation = @reconciliation, manual_check = @manual_check
       WHERE id = @id AND version = @expected`,
    ),
  };

  const load = (id: string): CommandRecord | undefined => {
    const row = q.row.get(id);
    return row && rowToRecord(row, q.attempts.all(id), true);
  };
  const readTx = db.transaction(load); // one snapshot for the row and its attempts

  const recordTx = db.transaction((c: NewCommand) => {
    if (c.lockKey !== null) {
      const holder = q.lockHolder.get(c.environment, c.lockKey);
      if (holder) throw new DomainLockedError(c.lockKey, holder.id);
    }
    const dup = q.byKey.get(c.apiKeyId, c.idempotencyKey);
    if (dup || q.row.get(c.id)) throw new DuplicateCommandError(c.apiKeyId, c.idempotencyKey, dup?.id ?? c.id);
    q.insert.run({
      id: c.id,
      environment: c.environment,
      api_key_id: c.apiKeyId,
      operation_id: c.operationId,
      method: c.method,
      path: c.path,
      query: c.query,
      body: c.body === null ? null : Buffer.from(c.body.buffer, c.body.byteOffset, c.body.byteLength),
      idempotency_key: c.idempotencyKey,
      external_id: c.externalId,
      lock_key: c.lockKey,
      lock_held: c.lockKey === null ? 0 : 1,
      created_at: c.createdAt,
    });
    return load(c.id)!;
  });

  const transitionTx = db.transaction((id: string, to: CommandState, patch: CommandPatch | undefined) => {
    const row = q.row.get(id);
    if (!row) throw new UnknownCommandError(id);
    assertTransition(rowState(row), to);
    const next = applyPatch(rowToMutable(row, true), patch);
    // Optimistic check: the update only applies to the version we validated against.
    const res = q.update.run({
      ...mutableToColumns(next),
      id,
      state: to,
      updated_at: clock.now(),
      release: holdsLock(to) ? 0 : 1,
      expected: row.version,
    });
    return res.changes === 1 ? load(id)! : undefined;
  });

  const attemptTx = db.transaction((id: string, a: AttemptRecord) => {
    if (!q.row.get(id)) throw new UnknownCommandError(id);
    q.addAttempt.run({
      command_id: id,
      at: a.at,
      delay_ms: a.delayMs,
      status: a.status ?? null,
      error_code: a.errorCode ?? null,
      request_id: a.requestId ?? null,
      transport_error: a.transportError ?? null,
      replayed: a.replayed === undefined ? null : a.replayed ? 1 : 0,
    });
    q.touch.run(clock.now(), id);
  });

  return {
    database: db,
    async record(command) {
      screenNewCommand(command);
      try {
        return recordTx.immediate(command);
      } catch (e) {
        if (!isUniqueViolation(e)) throw e;
        // Backstop: the pre-checks run under the write lock, so only a foreign writer lands here.
        if (command.lockKey !== null && /lock_key/.test(e.message)) {
          throw new DomainLockedError(
            command.lockKey,
            q.lockHolder.get(command.environment, command.lockKey)?.id ?? "?",
          );
        }
        throw new DuplicateCommandError(
          command.apiKeyId,
          command.idempotencyKey,
          q.byKey.get(command.apiKeyId, command.idempotencyKey)?.id,
        );
      }
    },
    async addAttempt(id, attempt) {
      attemptTx.immediate(id, cleanAttempt(attempt));
    },
    async transition(id, to, patch) {
      for (let i = 0; i < OPTIMISTIC_RETRIES; i++) {
        const rec = transitionTx.immediate(id, to, patch);
        if (rec) return rec;
      }
      throw new Error(`Command ${id} kept changing under transition(); giving up after ${OPTIMISTIC_RETRIES} tries.`);
    },
    async get(id) {
      return readTx(id);
    },
    async findByIdempotencyKey(apiKeyId, idempotencyKey) {
      const hit = q.byKey.get(apiKeyId, idempotencyKey);
      return hit ? readTx(hit.id) : undefined;
    },
    async listByState(states) {
      if (states.length === 0) return [];
      const list = db.transaction(() => {
        const rows = db
          .prepare<string[], CommandRow>(
            `SELECT * FROM commands WHERE state IN (${states.map(() => "?").join(", ")}) ORDER BY created_at, rowid`,
          )
          .all(...states);
        return rows.map((r) => rowToRecord(r, q.attempts.all(r.id), true));
      });
      return list();
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
