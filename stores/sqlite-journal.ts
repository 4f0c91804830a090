/**
 * SQLite Journal (better-sqlite3): one file in WAL mode, busy_timeout so several processes can
 * share it. `synchronous` picks what a committed write survives: "full" (default) has every
 * commit's WAL frames fsynced before the call returns, so record() is on disk before the first byte
 * is sent even across a power cut (G1); "normal" survives a killed process but not a power cut, at
 * a fraction of the cost. The I6 domain lock is a unique partial index, so it also holds between
 * processes.
 *
 * Cost model (the journal runs on every write command): statements are prepared once per handle
 * (sqlite-statements.ts), each write has the fewest statements (sqlite-writes.ts) — record() is one
 * INSERT, transition() one guarded `UPDATE … RETURNING`, addAttempt() one UPDATE (which also moves
 * the state when asked) plus one INSERT — and only the columns a patch changes are written. Under
 * "full", writes made while an fsync is in flight are committed together and share the next one;
 * redoable writes (recover()'s settles) do not wait for the disk (sqlite-group-commit.ts).
 */
import type Database from "better-sqlite3";
import type { CommandPatch, CommandRecord, CommandState, Journal, Lease, StatePage, WriteOptions } from "../journal";
import { InvalidTransitionError, UnknownCommandError } from "../journal";
import {
  cleanAttempt,
  cleanPatch,
  defaultJournalClock,
  guardClosed,
  resolutionPatch,
  screenLease,
  screenListFilter,
  screenStatePage,
  screenNewCommand,
  screenPrune,
  screenResolution,
  type JournalClock,
} from "./journal-common";
import { backfillSqlite } from "./sqlite-backfill";
import { openFailure, preparePrivateFile, privateSidecars, reclaim, screenSqliteOptions } from "./sqlite-files";
import { createSqliteReads } from "./sqlite-reads";
import { createCommitter } from "./sqlite-group-commit";
import { rowState, rowToRecord, type AttemptRow, type CommandRow } from "./journal-rows";
import { migrateSqlite, type SqliteDatabase, type SqliteStatement } from "./sqlite-migrate";
import { prepareSqliteStatements } from "./sqlite-statements";
import { createSqliteWrites } from "./sqlite-writes";
import { sqliteOpener, type SqliteDriver } from "./sqlite-driver";
import { checkOptionNames, type OptionNames } from "./store-options";

export { migrateSqlite };
export type { SqliteDatabase, SqliteStatement, SqliteDriver };

type Db = Database.Database;

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
  busyTimeoutMs?: number | undefined;
  /**
   * "full" (default): every commit is fsynced before its call returns — survives a killed process
   * AND a power cut/kernel panic; a command costs two fsyncs, shared with the other commands in
   * flight. "normal": WAL without fsync per commit — survives a killed process (SIGKILL, OOM,
   * deploy) but a power cut may lose the last commits.
   */
  synchronous?: SqliteSynchronous | undefined;
  /** Source of updatedAt and of lease times (default Date.now). */
  clock?: JournalClock | undefined;
  /**
   * H2: the journal holds request bodies and outcomes. Files it creates (main, -wal, -shm) are 0600.
   * An existing file readable by group or others: "warn" (default: a process warning with code
   * `RESELLER_JOURNAL_PERMISSIONS` naming the `chmod 600` fix), "refuse" (throws
   * InvalidOptionsError), or "ignore".
   */
  filePermissions?: "warn" | "refuse" | "ignore" | undefined;
  /**
   * Which SQLite to use. "auto" (default): bun:sqlite in Bun, node:sqlite in Deno, better-sqlite3 in
   * Node.js when it is installed, else node:sqlite (Node.js ≥ 22.5). One that this runtime lacks is a
   * MissingDependencyError saying what to use instead.
   * @default "auto"
   */
  driver?: SqliteDriver | undefined;
}

const OPTION_NAMES: OptionNames<SqliteJournalOptions> = {
  filename: true,
  busyTimeoutMs: true,
  synchronous: true,
  clock: true,
  filePermissions: true,
  driver: true,
};

/** A Journal with its SQLite handle (better-sqlite3's shape whatever the driver) exposed (for backups, inspection and tests). */
export interface SqliteJournal extends Journal {
  readonly database: SqliteDatabase;
}

/**
 * A command journal in one SQLite file (G1: a command is on disk before its first byte is sent),
 * safe to share between processes on one machine. Creates its schema on first use. On Node.js it
 * needs the optional peer `better-sqlite3` (`npm install better-sqlite3`) unless Node.js ≥ 22.5
 * brings node:sqlite; Bun and Deno use their own SQLite (see `driver`). Throws MissingDependencyError
 * naming the fix when this runtime has none of them.
 */
export function createSqliteJournal(options: SqliteJournalOptions): SqliteJournal {
  checkOptionNames(options, OPTION_NAMES, "createSqliteJournal()");
  const clock = options.clock ?? defaultJournalClock;
  const synchronous = options.synchronous ?? DEFAULT_SQLITE_SYNCHRONOUS;
  screenSqliteOptions(options, synchronous);
  const openDb = sqliteOpener(options.driver ?? "auto");
  const onDisk = preparePrivateFile(options.filename, options.filePermissions ?? "warn");
  let db: Db;
  try {
    db = openDb(options.filename, options.busyTimeoutMs ?? 5000);
  } catch (e) {
    throw openFailure(options.filename, e);
  }
  try {
    // H2: a new journal reclaims the space prune() frees (an existing one keeps its mode: VACUUM it).
    db.pragma("auto_vacuum = INCREMENTAL");
    // H2: deleted and overwritten content (pruned bodies) is zeroed, not left in free space.
    db.pragma("secure_delete = ON");
    db.pragma("journal_mode = WAL");
    // G1: "full" commits without an fsync of its own, then fsyncs the WAL before the call returns
    // (sqlite-group-commit.ts), so writes in flight together share one fsync.
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    migrateSqlite(db);
    backfillSqlite(db);
    if (onDisk) privateSidecars(options.filename);
  } catch (e) {
    db.close();
    throw openFailure(options.filename, e);
  }

  const statements = prepareSqliteStatements(db);
  const { q, listFor, claimFor, claimProbe, claimAttempts } = statements;
  const load = (id: string): CommandRecord | undefined => {
    const row = q.row.get(id);
    return row && rowToRecord(row, q.attempts.all(id), true);
  };
  const readTx = db.transaction(load); // one snapshot for the row and its attempts

  const writes = createSqliteWrites(statements, clock);
  const { cache, attemptWrite, transitionWrite, recordWrite, withAttempts, takeScrub } = writes;
  /**
   * H2: after a settle dropped a sensitive request body (rare: tickets, auth codes), checkpoint the
   * WAL so the body's old page images leave the disk too, not only the row.
   */
  const scrubbed = <T>(value: T): T => {
    if (takeScrub() && onDisk) reclaim(db);
    return value;
  };
  // An in-memory database has nothing to fsync (and no -wal file).
  const commit = createCommitter(db, synchronous === "full" && !db.memory, `${db.name}-wal`, () => cache.clear());
  const listTx = db.transaction((states: readonly CommandState[], page?: StatePage) => {
    const s = listFor(states);
    if (!page) return withAttempts(s.rows.all() as CommandRow[], s.attempts.all() as AttemptRow[]);
    // A bounded read: the page's rows (LIMIT in the query), then only their attempts.
    const after = page.after;
    const rows = s.page.all({
      afterAt: after?.createdAt ?? null,
      afterId: after?.id ?? null,
      limit: page.limit,
    }) as CommandRow[];
    const ids = JSON.stringify(rows.map((r) => r.id));
    return withAttempts(rows, rows.length === 0 ? [] : statements.attemptsOf.all(ids));
  });
  const reads = createSqliteReads(statements);
  // A withdrawn command never left: only while it is still recorded with no attempt, and its owner's.
  const withdrawStmt = db.prepare<[string, string, string | null, string | null]>(
    `DELETE FROM commands WHERE id = ? AND state = 'recorded'
       AND NOT EXISTS (SELECT 1 FROM command_attempts WHERE command_id = ?)
       AND (? IS NULL OR owner IS NULL OR owner = ?)`,
  );

  let closing: Promise<void> | undefined;
  return guardClosed<SqliteJournal>(
    {
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
        }).then(scrubbed);
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
        ).then(scrubbed);
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
        const where = {
          owner: request.owner,
          apiKeyId: request.apiKeyId ?? null,
          environment: request.environment ?? null,
          ids: request.ids === undefined ? null : JSON.stringify(request.ids),
          exclude: JSON.stringify(request.excludeIds ?? []),
          now,
          staleBefore: now - (request.unownedStaleAfterMs ?? 0),
        };
        // Continuous recovery asks every few seconds and usually finds nothing: that answer needs no
        // write transaction (a row that becomes claimable just after is taken by the next round).
        if (request.limit < 1 || claimProbe(request.states).get(where) === undefined) return [];
        return commit(() => {
          const rows = claimFor(request.states).all({
            ...where,
            leaseUntil: now + request.leaseMs,
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
      async listByState(states, page) {
        screenStatePage(page);
        if (states.length === 0) return [];
        return listTx(states, page);
      },
      async prune(options) {
        const { settledBefore, limit } = screenPrune(options);
        const pruned = await commit(() => statements.prune.all(settledBefore, limit ?? -1).length, { single: true });
        if (pruned > 0 && onDisk) reclaim(db); // H2: the old pages leave the WAL and the file
        return { pruned };
      },
      async countByState(filter) {
        return reads.countByState(filter);
      },
      async latestByLockKey(apiKeyId, lockKey, opts) {
        return reads.latestByLockKey(apiKeyId, lockKey, opts?.since);
      },
      async listCommands(filter) {
        screenListFilter(filter);
        return reads.listCommands(filter);
      },
      async resolveManualCheck(id, resolution) {
        const r = screenResolution(resolution);
        const patch = cleanPatch(resolutionPatch(null, r));
        return commit(() => {
          cache.delete(id);
          const done = statements.resolve.get(r.as, clock.now(), patch.reconciliation!, JSON.stringify(r), id);
          if (!done) {
            const cur = q.stateOf.get(id);
            if (!cur) throw new UnknownCommandError(id);
            throw new InvalidTransitionError(rowState(cur), r.as);
          }
          if (done.body_sensitive) writes.markScrub();
          return load(id)!;
        }).then(scrubbed);
      },
      async withdraw(id, lease) {
        if (lease) screenLease(lease);
        const owner = lease?.owner ?? null;
        return commit(() => {
          cache.delete(id);
          return withdrawStmt.run(id, id, owner, owner).changes > 0;
        });
      },
      close() {
        closing ??= (async () => {
          if (!db.open) return;
          await commit.drain();
          commit.close();
          db.close();
        })();
        return closing;
      },
    },
    () => closing !== undefined,
  );
}
