/**
 * SQLite Journal (better-sqlite3): one file in WAL mode, busy_timeout so several processes can
 * share it. `synchronous` picks what a committed write survives: "full"
 * (default) has every commit's WAL frames fsynced before the call returns, so record() is on disk
 * before the first byte is sent even across a power cut (G1); "normal" survives a killed process but
 * not a power cut, at a fraction of the cost. The I6 domain lock is a unique partial index, so it also holds between processes.
 *
 * Cost model (the journal runs on every write command): statements are prepared once per handle,
 * each write is one transaction with the fewest statements — record() is one INSERT, transition()
 * one guarded `UPDATE … RETURNING` plus the attempts read, addAttempt() one UPDATE (which also moves
 * the state when asked) plus one INSERT — and only the columns a patch changes are written. Under
 * "full", writes made while an fsync is in flight share the next one (sqlite-group-commit.ts).
 */
import type Database from "better-sqlite3";
import {
  COMMAND_STATES,
  TERMINAL_STATES,
  assertAttemptMove,
  assertTransition,
  canMoveWithAttempt,
  canTransition,
  holdsLock,
  isTerminal,
} from "../journal";
import {
  DomainLockedError,
  DuplicateCommandError,
  LeaseLostError,
  UnknownCommandError,
  type AttemptMove,
  type AttemptRecord,
  type CommandPatch,
  type CommandRecord,
  type CommandState,
  type Journal,
  type Lease,
  type NewCommand,
  type WriteOptions,
} from "../journal";
import {
  OPTIMISTIC_RETRIES,
  cleanAttempt,
  cleanPatch,
  defaultJournalClock,
  screenLease,
  screenNewCommand,
  type CleanPatch,
  type JournalClock,
} from "./journal-common";
import { createCommitter } from "./sqlite-group-commit";
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
   * "full" (default): every commit is fsynced before its call returns — survives a killed process
   * AND a power cut/kernel panic; a command costs two fsyncs, shared with the other commands in
   * flight. "normal": WAL without fsync per commit — survives a killed process (SIGKILL, OOM,
   * deploy) but a power cut may lose the last commits.
   */
  synchronous?: SqliteSynchronous;
  /** Source of updatedAt and of lease times (default Date.now). */
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

/**
 * Which states may move to `to`, as an SQL list: directly (transition) or through `sending` with an
 * attempt (addAttempt's AttemptMove).
 */
function fromStatesSql(to: CommandState, viaSending: boolean): string | null {
  const from = COMMAND_STATES.filter((s) => (viaSending ? canMoveWithAttempt(s, to) : canTransition(s, to)));
  return from.length === 0 ? null : from.map((s) => `'${s}'`).join(", ");
}

const TERMINAL_SQL = TERMINAL_STATES.map((s) => `'${s}'`).join(", ");

type CachedRow = CommandRow & { version: number; lock_held: number };

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
    // G1: "full" commits without an fsync of its own, then fsyncs the WAL before the call returns
    // (sqlite-group-commit.ts), so writes in flight together share one fsync.
    db.pragma("synchronous = NORMAL");
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
         idempotency_key, external_id, lock_key, lock_held, state, version, created_at, updated_at, owner, lease_until)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'recorded', 0, ?, ?, ?, ?)`,
    ),
    row: db.prepare<[string], CommandRow>("SELECT * FROM commands WHERE id = ?"),
    stateOf: db.prepare<[string], { id: string; state: string; owner: string | null }>(
      "SELECT id, state, owner FROM commands WHERE id = ?",
    ),
    attempts: db.prepare<[string], AttemptRow>("SELECT * FROM command_attempts WHERE command_id = ? ORDER BY seq"),
    addAttempt: db.prepare(
      `INSERT INTO command_attempts (command_id, seq, at, delay_ms, status, error_code, request_id, transport_error, replayed)
       VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM command_attempts WHERE command_id = ?), ?, ?, ?, ?, ?, ?, ?)`,
    ),
    addAttemptAt: db.prepare(
      `INSERT INTO command_attempts (command_id, seq, at, delay_ms, status, error_code, request_id, transport_error, replayed)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    // An attempt counts as a change (version + 1), so a cached copy can tell it is still current.
    touch: db.prepare<[number, string], { version: number }>(
      "UPDATE commands SET updated_at = ?, version = version + 1 WHERE id = ? RETURNING version",
    ),
    touchLeased: db.prepare<[number, string, number, string, string], { version: number; lease_until: number | null }>(
      `UPDATE commands SET updated_at = ?, version = version + 1, owner = ?,
         lease_until = CASE WHEN state IN (${TERMINAL_SQL}) THEN NULL ELSE ? END
       WHERE id = ? AND (owner IS NULL OR owner = ?) RETURNING version, lease_until`,
    ),
    renew: db.prepare<[number, string, string], { id: string }>(
      `UPDATE commands SET lease_until = CASE WHEN lease_until IS NULL THEN NULL ELSE ? END
       WHERE owner = ? AND id IN (SELECT value FROM json_each(?)) RETURNING id`,
    ),
  };

  /**
   * One guarded UPDATE per (target state, direct or via sending, leased, patched columns), prepared
   * on first use. The WHERE clause holds the state machine (G3/I5) and, for a leased write, the
   * fence: the row moves only from a state that may go to `to` and only while the writer owns it,
   * checked by the same statement that writes, so racing writers get one winner. Only the patched
   * columns are written; a terminal state clears the lease.
   */
  const updates = new Map<string, Statement | null>();
  const updateFor = (to: CommandState, p: CleanPatch, viaSending: boolean, leased: boolean): Statement | null => {
    const shape = `${to}|${viaSending ? "a" : "t"}${leased ? "L" : ""}|${p.resources.map(([k]) => k).join(",")}|${p.response !== undefined ? "r" : ""}${p.reconciliation !== undefined ? "c" : ""}${p.manualCheck !== undefined ? "m" : ""}`;
    let stmt = updates.get(shape);
    if (stmt !== undefined) return stmt;
    const from = fromStatesSql(to, viaSending);
    if (from === null) {
      stmt = null;
    } else {
      const set = ["state = ?", "version = version + 1", "updated_at = ?"];
      if (!holdsLock(to)) set.push("lock_held = 0"); // I6: released in the same UPDATE as the terminal state
      if (isTerminal(to)) set.push("lease_until = NULL");
      else if (leased) set.push("lease_until = ?");
      if (leased) set.push("owner = ?");
      for (const [k] of p.resources) set.push(`${RESOURCE_COLUMNS[k]} = ?`);
      if (p.response !== undefined) set.push("response_status = ?", "response_body = ?");
      if (p.reconciliation !== undefined) set.push("reconciliation = ?");
      if (p.manualCheck !== undefined) set.push("manual_check = ?");
      const fence = leased ? " AND (owner IS NULL OR owner = ?)" : "";
      stmt = db.prepare(
        `UPDATE commands SET ${set.join(", ")} WHERE id = ? AND state IN (${from})${fence} RETURNING version`,
      );
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
  const cache = new Map<string, { row: CachedRow; attempts: AttemptRow[] }>();
  const remember = (row: CachedRow, attempts: AttemptRow[]) => {
    cache.delete(row.id);
    if (isTerminal(rowState(row))) return;
    cache.set(row.id, { row, attempts });
    if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!);
  };
  // An in-memory database has nothing to fsync (and no -wal file).
  const commit = createCommitter(db, synchronous === "full" && !db.memory, `${db.name}-wal`, () => cache.clear());

  /** Why a guarded write matched no row: unknown id, lost lease, forbidden move — or a race (undefined: retry). */
  const refusal = (id: string, to: CommandState, viaSending: boolean, lease: Lease | undefined): void => {
    const cur = q.stateOf.get(id);
    if (!cur) throw new UnknownCommandError(id);
    if (lease && cur.owner !== null && cur.owner !== lease.owner) throw new LeaseLostError(id, lease.owner, cur.owner);
    if (viaSending) assertAttemptMove(rowState(cur), to);
    else assertTransition(rowState(cur), to);
  };

  /**
   * The guarded UPDATE of transition() and of addAttempt()'s move. Returns the new row (from the
   * cache when it is exact, else read back) or undefined when it matched nothing.
   */
  const applyMove = (
    id: string,
    to: CommandState,
    p: CleanPatch,
    viaSending: boolean,
    lease: Lease | undefined,
  ): { row: CachedRow; attempts: AttemptRow[]; exact: boolean } | undefined => {
    const stmt = updateFor(to, p, viaSending, lease !== undefined);
    if (stmt === null) return undefined;
    const now = clock.now();
    const leaseUntil = lease && !isTerminal(to) ? now + lease.leaseMs : null;
    const args: unknown[] = [to, now];
    if (leaseUntil !== null) args.push(leaseUntil);
    if (lease) args.push(lease.owner);
    for (const [, v] of p.resources) args.push(v);
    const responseStatus = p.response == null ? null : p.response.status;
    const responseBody = p.response == null ? null : JSON.stringify(p.response.body ?? null);
    const manualCheck = p.manualCheck == null ? null : JSON.stringify(p.manualCheck);
    if (p.response !== undefined) args.push(responseStatus, responseBody);
    if (p.reconciliation !== undefined) args.push(p.reconciliation);
    if (p.manualCheck !== undefined) args.push(manualCheck);
    args.push(id);
    if (lease) args.push(lease.owner);
    const res = stmt.get(...args) as { version: number } | undefined;
    if (!res) return undefined;
    const hit = cache.get(id);
    if (!hit || hit.row.version + 1 !== res.version)
      return { row: q.row.get(id) as CachedRow, attempts: q.attempts.all(id), exact: false };
    const row: CachedRow = { ...hit.row, state: to, version: res.version, updated_at: now };
    if (!holdsLock(to)) row.lock_held = 0;
    if (isTerminal(to)) row.lease_until = null;
    else if (leaseUntil !== null) row.lease_until = leaseUntil;
    if (lease) row.owner = lease.owner;
    for (const [k, v] of p.resources) row[RESOURCE_COLUMNS[k]] = v;
    if (p.response !== undefined) Object.assign(row, { response_status: responseStatus, response_body: responseBody });
    if (p.reconciliation !== undefined) row.reconciliation = p.reconciliation;
    if (p.manualCheck !== undefined) row.manual_check = manualCheck;
    return { row, attempts: hit.attempts, exact: true };
  };

  const attemptRow = (id: string, a: AttemptRecord): AttemptRow => ({
    command_id: id,
    at: a.at,
    delay_ms: a.delayMs,
    status: a.status ?? null,
    error_code: a.errorCode ?? null,
    request_id: a.requestId ?? null,
    transport_error: a.transportError ?? null,
    replayed: a.replayed === undefined ? null : a.replayed ? 1 : 0,
  });
  /** `seq` known (the cached copy is exact: its attempts are all there are) saves the MAX(seq) look-up. */
  const insertAttempt = (v: AttemptRow, seq?: number) =>
    seq === undefined
      ? q.addAttempt.run(
          v.command_id,
          v.command_id,
          v.at,
          v.delay_ms,
          v.status,
          v.error_code,
          v.request_id,
          v.transport_error,
          v.replayed,
        )
      : q.addAttemptAt.run(
          v.command_id,
          seq,
          v.at,
          v.delay_ms,
          v.status,
          v.error_code,
          v.request_id,
          v.transport_error,
          v.replayed,
        );

  /** addAttempt's body (one transaction): the move or a touch, then the attempt row. */
  const attemptWrite = (id: string, a: AttemptRecord, then: AttemptMove | undefined, lease: Lease | undefined) => {
    const values = attemptRow(id, a);
    if (then) {
      const p = cleanPatch(then.patch);
      for (let i = 0; i < OPTIMISTIC_RETRIES; i++) {
        const moved = applyMove(id, then.to, p, true, lease);
        if (moved) {
          insertAttempt(values, moved.exact ? moved.attempts.length + 1 : undefined);
          if (moved.exact) remember(moved.row, [...moved.attempts, values]);
          else cache.delete(id);
          return;
        }
        cache.delete(id);
        refusal(id, then.to, true, lease);
      }
      throw new Error(`Command ${id} kept changing under addAttempt(); giving up after ${OPTIMISTIC_RETRIES} tries.`);
    }
    const now = clock.now();
    let res: { version: number; lease_until?: number | null } | undefined;
    if (lease) {
      res = q.touchLeased.get(now, lease.owner, now + lease.leaseMs, id, lease.owner);
      if (!res) {
        const cur = q.stateOf.get(id);
        if (!cur) throw new UnknownCommandError(id);
        throw new LeaseLostError(id, lease.owner, cur.owner);
      }
    } else {
      res = q.touch.get(now, id);
      if (!res) throw new UnknownCommandError(id);
    }
    insertAttempt(values);
    const hit = cache.get(id);
    if (hit && hit.row.version + 1 === res.version) {
      hit.row = { ...hit.row, version: res.version, updated_at: now };
      if (lease) Object.assign(hit.row, { owner: lease.owner, lease_until: res.lease_until ?? null });
      hit.attempts = [...hit.attempts, values];
    } else {
      cache.delete(id); // someone else wrote in between: the next transition reads it back
    }
  };

  const transitionWrite = (id: string, to: CommandState, p: CleanPatch, lease: Lease | undefined): CommandRecord => {
    const known = { response: p.response, manualCheck: p.manualCheck }; // already parsed: don't parse it back
    for (let i = 0; i < OPTIMISTIC_RETRIES; i++) {
      const moved = applyMove(id, to, p, false, lease);
      if (moved) {
        remember(moved.row, moved.attempts);
        return rowToRecord(moved.row, moved.attempts, true, known);
      }
      cache.delete(id);
      // Not applied: say why. If the state now allows the move, another writer got in between — retry.
      refusal(id, to, false, lease);
    }
    throw new Error(`Command ${id} kept changing under transition(); giving up after ${OPTIMISTIC_RETRIES} tries.`);
  };

  const recordWrite = (c: NewCommand, lease: Lease | undefined): CommandRecord => {
    const leaseUntil = lease ? clock.now() + lease.leaseMs : null;
    try {
      // One INSERT: the unique indexes decide duplicates and the I6 lock.
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
        lease?.owner ?? null,
        leaseUntil,
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
    remember(insertedRow(c, lease?.owner ?? null, leaseUntil), []);
    return newRecordFrom(c, lease?.owner ?? null, leaseUntil);
  };

  /** Rows with all their attempts in two queries (not one attempts query per row); cached for the moves that follow. */
  const withAttempts = (rows: CommandRow[], attempts: AttemptRow[]): CommandRecord[] => {
    const byCommand = new Map<string, AttemptRow[]>();
    for (const a of attempts) {
      const list = byCommand.get(a.command_id);
      if (list) list.push(a);
      else byCommand.set(a.command_id, [a]);
    }
    return rows.map((r) => {
      const list = byCommand.get(r.id) ?? [];
      remember(r as CachedRow, list); // recover() transitions these next
      return rowToRecord(r, list, true);
    });
  };

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
    return withAttempts(s.rows.all(...states) as CommandRow[], s.attempts.all(...states) as AttemptRow[]);
  });

  /**
   * claim(): ONE UPDATE takes the batch (SQLite holds the write lock for the statement, so a row is
   * taken by exactly one claimer), then the rows' attempts are read in the same transaction.
   */
  const claimStmt = db.prepare<[Record<string, unknown>], CommandRow>(
    `UPDATE commands SET owner = @owner, lease_until = @leaseUntil, version = version + 1
     WHERE id IN (
       SELECT id FROM commands
       WHERE (@apiKeyId IS NULL OR api_key_id = @apiKeyId) AND (@environment IS NULL OR environment = @environment)
         AND (@ids IS NULL OR id IN (SELECT value FROM json_each(@ids))) AND state IN (SELECT value FROM json_each(@states))
         AND id NOT IN (SELECT value FROM json_each(@exclude))
         AND (owner = @owner OR (owner IS NOT NULL AND (lease_until IS NULL OR lease_until <= @now))
              OR (owner IS NULL AND updated_at <= @staleBefore))
       ORDER BY created_at, rowid LIMIT @limit)
     RETURNING *`,
  );
  const claimAttempts = db.prepare<[string], AttemptRow>(
    "SELECT * FROM command_attempts WHERE command_id IN (SELECT value FROM json_each(?)) ORDER BY command_id, seq",
  );

  return {
    database: db,
    async record(command, lease) {
      screenNewCommand(command);
      if (lease) screenLease(lease);
      return commit(() => recordWrite(command, lease), { single: true }); // one INSERT (the failure path only reads)
    },
    async addAttempt(id, attempt, then, lease) {
      const a = cleanAttempt(attempt);
      return commit(() => {
        try {
          attemptWrite(id, a, then, lease);
        } catch (e) {
          cache.delete(id); // rolled back: the cached copy may be ahead of the database
          throw e;
        }
      });
    },
    async transition(id, to, patch?: CommandPatch, lease?: Lease, options?: WriteOptions) {
      const p = cleanPatch(patch);
      return commit(
        () => {
          try {
            return transitionWrite(id, to, p, lease);
          } catch (e) {
            cache.delete(id);
            throw e;
          }
        },
        { redoable: options?.redoable === true },
      );
    },
    async renewLeases(lease, ids) {
      screenLease(lease);
      if (ids.length === 0) return [];
      const list = [...ids];
      const until = clock.now() + lease.leaseMs;
      // Redoable: a renewal lost in a power cut died with every worker on this machine, and a lease
      // that ends sooner only lets another worker take the command over sooner.
      const renewed = await commit(
        () => {
          const rows = q.renew.all(until, lease.owner, JSON.stringify(list));
          for (const r of rows) {
            const hit = cache.get(r.id); // a renewal is no version change: keep the cached copy exact
            if (hit && hit.row.lease_until !== null) hit.row.lease_until = until;
          }
          return rows;
        },
        { single: true, redoable: true },
      );
      const kept = new Set(renewed.map((r) => r.id));
      return list.filter((id) => !kept.has(id));
    },
    async claim(request) {
      screenLease(request);
      const now = clock.now();
      return commit(() => {
        const rows = claimStmt.all({
          owner: request.owner,
          leaseUntil: now + request.leaseMs,
          apiKeyId: request.apiKeyId ?? null,
          environment: request.environment ?? null,
          ids: request.ids === undefined ? null : JSON.stringify(request.ids),
          exclude: JSON.stringify(request.excludeIds ?? []),
          states: JSON.stringify(request.states),
          now,
          staleBefore: now - (request.unownedStaleAfterMs ?? 0),
          limit: request.limit,
        });
        rows.sort((a, b) => Number(a.created_at) - Number(b.created_at));
        const attempts = claimAttempts.all(JSON.stringify(rows.map((r) => r.id)));
        return withAttempts(rows, attempts);
      });
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
      if (!db.open) return;
      await commit.drain();
      commit.close();
      db.close();
    },
  };
}
