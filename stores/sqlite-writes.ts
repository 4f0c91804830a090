/**
 * The SQLite journal's writes, each run inside one transaction by its caller (the committer): the
 * guarded state UPDATE shared by transition() and addAttempt(), the attempt INSERT, record()'s
 * single INSERT, and the per-handle copy of each in-flight command's last row that lets a write
 * skip reading the row back (used only when `RETURNING version` proves nobody else wrote between).
 */
import {
  assertAttemptMove,
  assertTransition,
  holdsLock,
  isTerminal,
  DomainLockedError,
  DuplicateCommandError,
  JournalContentionError,
  LeaseLostError,
  UnknownCommandError,
  type AttemptMove,
  type AttemptRecord,
  type CommandRecord,
  type CommandState,
  type Lease,
  type NewCommand,
} from "../journal";
import {
  ATTEMPT_INSERT_COLUMNS,
  OPTIMISTIC_RETRIES,
  cleanPatch,
  commandInsertValues,
  isSensitiveRequest,
  type CleanPatch,
  type JournalClock,
} from "./journal-common";
import { insertedRow, newRecordFrom, rowState, rowToRecord, type AttemptRow, type CommandRow } from "./journal-rows";
import { RESOURCE_COLUMNS, type SqliteStatements } from "./sqlite-statements";

/** In-flight commands whose last written row a handle keeps, to skip reading it back. */
const CACHE_MAX = 4096;

type CachedRow = CommandRow & { version: number; lock_held: number };

function isUniqueViolation(e: unknown): e is Error & { code: string } {
  const code = e instanceof Error ? (e as { code?: string }).code : undefined;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}

export function createSqliteWrites(statements: SqliteStatements, clock: JournalClock) {
  const { q, updateFor } = statements;
  /**
   * What this handle last wrote or read for a command still in flight, as the row SQLite holds
   * (JSON as text) and its attempts. A write's `RETURNING version` tells whether the copy is still
   * exact (version = cached + 1: nobody else wrote in between) — then the returned record is built
   * from it and nothing is read back; otherwise the row and attempts are read in the same
   * transaction. Terminal commands leave the cache; it holds at most CACHE_MAX entries.
   */
  const cache = new Map<string, { row: CachedRow; attempts: AttemptRow[] }>();
  /** A settle dropped a sensitive body (H2): its old page images are still in the WAL until a checkpoint. */
  let scrub = false;
  const takeScrub = () => {
    const out = scrub;
    scrub = false;
    return out;
  };
  const remember = (row: CachedRow, attempts: AttemptRow[]) => {
    cache.delete(row.id);
    if (isTerminal(rowState(row))) return;
    cache.set(row.id, { row, attempts });
    if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!);
  };

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
    const res = stmt.get(...args) as { version: number; body_sensitive?: number } | undefined;
    if (!res) return undefined;
    if (res.body_sensitive) scrub = true;
    const hit = cache.get(id);
    if (!hit || hit.row.version + 1 !== res.version)
      return { row: q.row.get(id) as CachedRow, attempts: q.attempts.all(id), exact: false };
    const row: CachedRow = { ...hit.row, state: to, version: res.version, updated_at: now };
    if (!holdsLock(to)) row.lock_held = 0;
    if (isTerminal(to)) {
      row.lease_until = null;
      if (row.body_sensitive) Object.assign(row, { body: null, body_pruned: 1 }); // H2: as the UPDATE did
    } else if (leaseUntil !== null) row.lease_until = leaseUntil;
    if (lease) row.owner = lease.owner;
    for (const [k, v] of p.resources) row[RESOURCE_COLUMNS[k]] = v;
    if (p.response !== undefined) Object.assign(row, { response_status: responseStatus, response_body: responseBody });
    if (p.reconciliation !== undefined) row.reconciliation = p.reconciliation;
    if (p.manualCheck !== undefined) row.manual_check = manualCheck;
    if (isTerminal(to) && row.body_sensitive) row.response_body = null; // H2: as the UPDATE did
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
  const insertAttempt = (v: AttemptRow, seq?: number) => {
    const values = ATTEMPT_INSERT_COLUMNS.map((k) => v[k]);
    return seq === undefined
      ? q.addAttempt.run(v.command_id, v.command_id, ...values)
      : q.addAttemptAt.run(v.command_id, seq, ...values);
  };

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
      throw new JournalContentionError(id, OPTIMISTIC_RETRIES);
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
        // H2: a settle that dropped a sensitive command's bodies returns what is stored, not the patch.
        if (isTerminal(to) && moved.row.body_sensitive && known.response)
          known.response = { status: known.response.status, body: null };
        return rowToRecord(moved.row, moved.attempts, true, known);
      }
      cache.delete(id);
      // Not applied: say why. If the state now allows the move, another writer got in between — retry.
      refusal(id, to, false, lease);
    }
    throw new JournalContentionError(id, OPTIMISTIC_RETRIES);
  };

  const recordWrite = (c: NewCommand, lease: Lease | undefined): CommandRecord => {
    const leaseUntil = lease ? clock.now() + lease.leaseMs : null;
    const sensitive = isSensitiveRequest(c);
    try {
      // One INSERT: the unique indexes decide duplicates and the I6 lock.
      q.insert.run(...commandInsertValues(c, lease?.owner ?? null, sensitive), leaseUntil);
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
    remember(insertedRow(c, lease?.owner ?? null, leaseUntil, sensitive), []);
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

  const markScrub = () => {
    scrub = true;
  };
  return { cache, attemptWrite, transitionWrite, recordWrite, withAttempts, takeScrub, markScrub };
}
