/**
 * SQLite Journal (better-sqlite3): one file in WAL mode, busy_timeout so several processes can
 * share it. `synchronous` picks what a committed write survives: "full"
 * (default) fsyncs every commit, so record() is on disk before the first byte is sent even across
 * a power cut (G1); "normal" survives a killed process but not a power cut, at a fraction of the
 * cost. The I6 domain lock is a unique partial index, so it also holds between processes.
 *
 * Cost model (the journal runs on every write command): statements are prepared once per handle,
 * each write is one transaction with the fewest statements — record() is one INSERT, transition()
 * one guarded `UPDATE … RETURNING` plus the attempts read, addAttempt() one UPDATE plus one INSERT —
 * and only the columns a patch changes are serialised and written.
 */
import type Database from "better-sqlite3";
import { allowedTransitions, assertTransition, holdsLock, isTerminal } from "../journal";
import {
  DomainLockedError,
  DuplicateCommandError,
  UnknownCommandError,
  type AttemptRecord,
  type CommandPatch,
  type CommandRecord,
  type CommandState,
  type Journal,
} from "../journal";
import {
  OPTIMISTIC_RETRIES,
  cleanAttempt,
  cleanPatch,
  defaultJournalClock,
  screenNewCommand,
  type CleanPatch,
  type JournalClock,
} from "./journal-common";
import { insertedRow, newRecordFrom, rowState, rowToRecord, type AttemptRow, type CommandRow } from "./journal-rows";
import { migrateSqlite, type SqliteDatabase, type SqliteStatement } from "./sqlite-migrate";
import { loadPeer } from "./optional-peer";

export { migrateSqlite };
export type { SqliteDatabase, SqliteStatement };

type Db = Database.Database;
type Statement = Database.Statement;

/** What a committed write survives: see {@link SqliteJournalOptions.synchronous}. */
export type SqliteSynchronous = "full" | "normal";
export const DEFAULT_SQLITE_SYNCHRONOUS: SqliteSynchronous = "full";

export interface SqliteJournalOptions {
  /** Database file; created with its schema on first use. */
  filename: string;
  /**
   * How long a write waits for another process's lock, ms (SQLite busy_timeout).
   * @default 5000
   */
  busyTimeoutMs?: number;
  /**
   * "full" (default): every commit is fsynced — survives a killed process AND a power cut/kernel
   * panic (~1.5 ms per command on a typical disk). "normal": WAL without fsync per commit — survives
   * a killed process (SIGKILL, OOM, deploy) but a power cut may lose the last commits.
   */
  synchronous?: SqliteSynchronous;
  /** Source of updatedAt (default Date.now). */
  clock?: JournalClock;
}

function isUniqueViolation(e: unknown): e is Error & { code: string } {
  const code = e instanceof Error ? (e as { code?: string }).code : undefined;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}

/** A Journal with its better-sqlite3 handle exposed (for backups, inspection and tests). */
export interface SqliteJournal extends Journal {
  readonly database: SqliteDatabase;
}

/** In-flight commands whose last written row a handle keeps, to skip reading it back. */
const CACHE_MAX = 4096;

const RESOURCE_COLUMNS = {
  orderUuid: "order_uuid",
  domainUuid: "domain_uuid",
  operationUuid: "operation_uuid",
} as const;

/** Which states may move to `to` (the inverse of allowedTransitions), as an SQL list. */
function fromStatesSql(to: CommandState): string | null {
  const from = (Object.keys(allowedTransitions) as CommandState[]).filter((s) => allowedTransitions[s].includes(to));
  return from.length === 0 ? null : from.map((s) => `'${s}'`).join(", ");
}

/**
 * A command journal in one SQLite file (G1: a command is on disk before its first byte is sent),
 * safe to share between processes on one machine. Creates its schema on first use. Needs the
 * optional peer `better-sqlite3` (`npm install better-sqlite3`); throws MissingDependencyError without it.
 */
export function createSqliteJournal(options: SqliteJournalOptions): SqliteJournal {
  const clock = options.clock ?? defaultJournalClock;
  const synchronous = options.synchronous ?? DEFAULT_SQLITE_SYNCHRONOUS;
  if (synchronous !== "full" && synchronous !== "normal") {
    throw new TypeError(`SqliteJournalOptions.synchronous must be "full" or "normal", got ${String(synchronous)}.`);
  }
  const Driver = loadPeer("better-sqlite3", "reseller-api/stores/sqlite") as typeof Database;
  const db: Db = new Driver(options.filename, { timeout: options.busyTimeoutMs ?? 5000 });
  try {
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${synchronous.toUpperCase()}`); // G1: see the option's doc
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
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'recorded', 0, ?, ?)`,
    ),
    row: db.prepare<[string], CommandRow>("SELECT * FROM commands WHERE id = ?"),
    stateOf: db.prepare<[string], { id: string; state: string }>("SELECT id, state FROM commands WHERE id = ?"),
    attempts: db.prepare<[string], AttemptRow>("SELECT * FROM command_attempts WHERE command_id = ? ORDER BY seq"),
    addAttempt: db.prepare(
      `INSERT INTO command_attempts (command_id, seq, at, delay_ms, status, error_code, request_id, transport_error, replayed)
       VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM command_attempts WHERE command_id = ?), ?, ?, ?, ?, ?, ?, ?)`,
    ),
    // An attempt counts as a change (version + 1), so a cached copy can tell it is still current.
    touch: db.prepare<[number, string], { version: number }>(
      "UPDATE commands SET updated_at = ?, version = version + 1 WHERE id = ? RETURNING version",
    ),
  };

  /**
   * One guarded UPDATE per (target state, patched columns), prepared on first use. The WHERE clause
   * holds the state machine (G3/I5): the row moves only from a state that may go to `to`, checked
   * by the same statement that writes, so two processes racing for a move get one winner; `version`
   * still counts every move for outside readers. Only the patched columns are written.
   */
  const updates = new Map<string, Statement | null>();
  const updateFor = (to: CommandState, p: CleanPatch): Statement | null => {
    const shape = `${to}|${p.resources.map(([k]) => k).join(",")}|${p.response !== undefined ? "r" : ""}${p.reconciliation !== undefined ? "c" : ""}${p.manualCheck !== undefined ? "m" : ""}`;
    let stmt = updates.get(shape);
    if (stmt !== undefined) return stmt;
    const from = fromStatesSql(to);
    if (from === null) {
      stmt = null;
    } else {
      const set = ["state = ?", "version = version + 1", "updated_at = ?"];
      if (!holdsLock(to)) set.push("lock_held = 0"); // I6: released in the same UPDATE as the terminal state
      for (const [k] of p.resources) set.push(`${RESOURCE_COLUMNS[k]} = ?`);
      if (p.response !== undefined) set.push("response_status = ?", "response_body = ?");
      if (p.reconciliation !== undefined) set.push("reconciliation = ?");
      if (p.manualCheck !== undefined) set.push("manual_check = ?");
      stmt = db.prepare(`UPDATE commands SET ${set.join(", ")} WHERE id = ? AND state IN (${from}) RETURNING version`);
    }
    updates.set(shape, stmt);
    return stmt;
  };

  const load = (id: string): CommandRecord | undefined => {
    const row = q.row.get(id);
    return row && rowToRecord(row, q.attempts.all(id), true);
  };
  const readTx = db.transaction(load); // one snapshot for the row and its attempts

  /**
   * What this handle last wrote or read for a command still in flight, as the row SQLite holds
   * (JSON as text) and its attempts. A write's `RETURNING version` tells whether the copy is still
   * exact (version = cached + 1: nobody else wrote in between) — then the returned record is built
   * from it and nothing is read back; otherwise the row and attempts are read in the same
   * transaction. Terminal commands leave the cache; it holds at most CACHE_MAX entries.
   */
  const cache = new Map<string, { row: CommandRow & { version: number; lock_held: number }; attempts: AttemptRow[] }>();
  const remember = (row: CommandRow & { version: number; lock_held: number }, attempts: AttemptRow[]) => {
    cache.delete(row.id);
    if (isTerminal(rowState(row))) return;
    cache.set(row.id, { row, attempts });
    if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!);
  };

  // The UPDATE takes the write lock first, so a read-back in the same transaction sees what it wrote.
  const transitionTx = db.transaction((id: string, to: CommandState, p: CleanPatch): CommandRecord | undefined => {
    const stmt = updateFor(to, p);
    if (stmt === null) return undefined;
    const now = clock.now();
    const args: unknown[] = [to, now];
    for (const [, v] of p.resources) args.push(v);
    const responseStatus = p.response == null ? null : p.response.status;
    const responseBody = p.response == null ? null : JSON.stringify(p.response.body ?? null);
    const manualCheck = p.manualCheck == null ? null : JSON.stringify(p.manualCheck);
    if (p.response !== undefined) args.push(responseStatus, responseBody);
    if (p.reconciliation !== undefined) args.push(p.reconciliation);
    if (p.manualCheck !== undefined) args.push(manualCheck);
    args.push(id);
    const res = stmt.get(...args) as { version: number } | undefined;
    if (!res) return undefined;
    const known = { response: p.response, manualCheck: p.manualCheck }; // already parsed: don't parse it back
    const hit = cache.get(id);
    if (!hit || hit.row.version + 1 !== res.version) {
      const row = q.row.get(id) as CommandRow & { version: number; lock_held: number };
      const attempts = q.attempts.all(id);
      remember(row, attempts);
      return rowToRecord(row, attempts, true, known);
    }
    const row = { ...hit.row, state: to, version: res.version, updated_at: now };
    if (!holdsLock(to)) row.lock_held = 0;
    for (const [k, v] of p.resources) row[RESOURCE_COLUMNS[k]] = v;
    if (p.response !== undefined) Object.assign(row, { response_status: responseStatus, response_body: responseBody });
    if (p.reconciliation !== undefined) row.reconciliation = p.reconciliation;
    if (p.manualCheck !== undefined) row.manual_check = manualCheck;
    remember(row, hit.attempts);
    return rowToRecord(row, hit.attempts, true, known);
  });

  const attemptTx = db.transaction((id: string, a: AttemptRecord) => {
    const now = clock.now();
    const res = q.touch.get(now, id);
    if (!res) throw new UnknownCommandError(id);
    const values = {
      command_id: id,
      at: a.at,
      delay_ms: a.delayMs,
      status: a.status ?? null,
      error_code: a.errorCode ?? null,
      request_id: a.requestId ?? null,
      transport_error: a.transportError ?? null,
      replayed: a.replayed === undefined ? null : a.replayed ? 1 : 0,
    } satisfies AttemptRow;
    q.addAttempt.run(
      id,
      id,
      values.at,
      values.delay_ms,
      values.status,
      values.error_code,
      values.request_id,
      values.transport_error,
      values.replayed,
    );
    const hit = cache.get(id);
    if (hit && hit.row.version + 1 === res.version) {
      hit.row = { ...hit.row, version: res.version, updated_at: now };
      hit.attempts = [...hit.attempts, values];
    } else {
      cache.delete(id); // someone else wrote in between: the next transition reads it back
    }
  });

  /** listByState: rows and all their attempts in two queries (not one attempts query per row). */
  const lists = new Map<number, { rows: Statement; attempts: Statement }>();
  const listFor = (n: number) => {
    let s = lists.get(n);
    if (!s) {
      const marks = Array.from({ length: n }, () => "?").join(", ");
      s = {
        rows: db.prepare(`SELECT * FROM commands WHERE state IN (${marks}) ORDER BY created_at, rowid`),
        attempts: db.prepare(
          `SELECT a.* FROM command_attempts a JOIN commands c ON c.id = a.command_id
           WHERE c.state IN (${marks}) ORDER BY a.command_id, a.seq`,
        ),
      };
      lists.set(n, s);
    }
    return s;
  };
  const listTx = db.transaction((states: readonly CommandState[]) => {
    const s = listFor(states.length);
    const rows = s.rows.all(...states) as CommandRow[];
    const byCommand = new Map<string, AttemptRow[]>();
    for (const a of s.attempts.all(...states) as AttemptRow[]) {
      const list = byCommand.get(a.command_id);
      if (list) list.push(a);
      else byCommand.set(a.command_id, [a]);
    }
    return rows.map((r) => {
      const attempts = byCommand.get(r.id) ?? [];
      remember(r as CommandRow & { version: number; lock_held: number }, attempts); // recover() transitions these next
      return rowToRecord(r, attempts, true);
    });
  });

  return {
    database: db,
    async record(command) {
      screenNewCommand(command);
      const c = command;
      try {
        // One INSERT (its own transaction): the unique indexes decide duplicates and the I6 lock.
        q.insert.run(
          c.id,
          c.environment,
          c.apiKeyId,
          c.operationId,
          c.method,
          c.path,
          c.query,
          c.body === null ? null : Buffer.from(c.body.buffer, c.body.byteOffset, c.body.byteLength),
          c.idempotencyKey,
          c.externalId,
          c.lockKey,
          c.lockKey === null ? 0 : 1,
          c.createdAt,
          c.createdAt,
        );
      } catch (e) {
        if (!isUniqueViolation(e)) throw e;
        // Which rule refused it: the domain lock first (I6), then the key (D7), then the id.
        const holder = c.lockKey === null ? undefined : q.lockHolder.get(c.environment, c.lockKey);
        if (holder) throw new DomainLockedError(c.lockKey!, holder.id);
        if (c.lockKey !== null && e.message.includes("lock_key")) throw new DomainLockedError(c.lockKey, "?");
        throw new DuplicateCommandError(
          c.apiKeyId,
          c.idempotencyKey,
          q.byKey.get(c.apiKeyId, c.idempotencyKey)?.id ?? c.id,
        );
      }
      const rec = newRecordFrom(c);
      remember(insertedRow(c), []);
      return rec;
    },
    async addAttempt(id, attempt) {
      try {
        attemptTx(id, cleanAttempt(attempt));
      } catch (e) {
        cache.delete(id);
        throw e;
      }
    },
    async transition(id, to, patch?: CommandPatch) {
      const p = cleanPatch(patch);
      for (let i = 0; i < OPTIMISTIC_RETRIES; i++) {
        let rec: CommandRecord | undefined;
        try {
          rec = transitionTx(id, to, p);
        } catch (e) {
          cache.delete(id); // rolled back: the cached copy may be ahead of the database
          throw e;
        }
        if (rec) return rec;
        cache.delete(id);
        // Not applied: say why. If the state now allows the move, another writer got in between — retry.
        const cur = q.stateOf.get(id);
        if (!cur) throw new UnknownCommandError(id);
        assertTransition(rowState(cur), to);
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
      return listTx(states);
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
