/**
 * The SQLite journal's statements, prepared once per handle: the fixed ones at open, the per-shape
 * guarded UPDATEs and per-size list queries on first use (then cached). The guarded UPDATE's WHERE
 * holds the state machine (G3/I5) and the lease fence; claim() is one UPDATE under the write lock.
 */
import type Database from "better-sqlite3";
import {
  COMMAND_STATES,
  TERMINAL_STATES,
  canMoveWithAttempt,
  canTransition,
  holdsLock,
  isCommandState,
  isTerminal,
} from "../journal";
import type { CommandState } from "../journal";
import { InvalidArgumentError } from "../core";
import { SETTLED_SQL, UNSETTLED_SQL } from "./migrations/sqlite";
import { ATTEMPT_INSERT_COLUMNS, COMMAND_INSERT_COLUMNS, placeholders, type CleanPatch } from "./journal-common";
import type { AttemptRow, CommandRow } from "./journal-rows";

type Statement = Database.Statement;

export const RESOURCE_COLUMNS = {
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

/**
 * Issue 27: a query over unsettled states only reads the partial index over them. SQLite proves a
 * partial index usable only from a term equal to the index's own WHERE, so the query repeats it
 * (`state IN (<every unsettled state>)`) next to the states asked for; INDEXED BY says it
 * explicitly, because without ANALYZE statistics SQLite may prefer walking a history index in
 * `created_at` order to skip a sort — a scan of every settled row.
 */
function unsettledScope(states: readonly CommandState[]): { from: string; where: string } {
  return states.length > 0 && states.every((st) => !isTerminal(st))
    ? { from: "INDEXED BY commands_unsettled", where: `state IN (${UNSETTLED_SQL}) AND ` }
    : { from: "", where: "" };
}

/**
 * `states` as an SQL list of literals, sorted and de-duplicated (one statement per set). Literals,
 * not bound parameters: only then can SQLite see that a query over unsettled states is covered by
 * the partial index `commands_unsettled` (the planner proves implication from constants only).
 */
function statesSql(states: readonly CommandState[]): string {
  for (const st of states) {
    if (!isCommandState(st)) throw new InvalidArgumentError(`Unknown command state "${String(st)}".`, "states");
  }
  return [...new Set(states)]
    .sort()
    .map((st) => `'${st}'`)
    .join(", ");
}
const ATTEMPT_COLUMNS_SQL = ATTEMPT_INSERT_COLUMNS.join(", ");

type Stmt<P extends unknown[], R = unknown> = Database.Statement<P, R>;

export interface SqliteStatements {
  q: {
    lockHolder: Stmt<[string, string], { id: string }>;
    byKey: Stmt<[string, string], { id: string }>;
    insert: Statement;
    row: Stmt<[string], CommandRow>;
    stateOf: Stmt<[string], { id: string; state: string; owner: string | null }>;
    attempts: Stmt<[string], AttemptRow>;
    addAttempt: Statement;
    addAttemptAt: Statement;
    touch: Stmt<[number, string], { version: number }>;
    touchLeased: Stmt<[number, string, number, string, string], { version: number; lease_until: number | null }>;
    renew: Stmt<[number, string, string], { id: string }>;
  };
  /** The guarded UPDATE for this move and patch shape; null when no state may move to `to`. */
  updateFor: (to: CommandState, p: CleanPatch, viaSending: boolean, leased: boolean) => Statement | null;
  /** listByState()'s two queries for this set of states. */
  listFor: (states: readonly CommandState[]) => { rows: Statement; attempts: Statement; page: Statement };
  /** claim()'s UPDATE for this set of states. */
  claimFor: (states: readonly CommandState[]) => Stmt<[Record<string, unknown>], CommandRow>;
  /** claim()'s WHERE as a read: is there anything to take? */
  claimProbe: (states: readonly CommandState[]) => Stmt<[Record<string, unknown>], { id: string }>;
  claimAttempts: Stmt<[string], AttemptRow>;
  /** The attempts of a JSON list of ids. */
  attemptsOf: Stmt<[string], AttemptRow>;
  /** countByState(): all states, or only these (through the partial index when they are unsettled). */
  countFor: (states: readonly CommandState[] | null) => Stmt<[], { state: string; n: number }>;
  latestByLock: Stmt<[string, string, number], CommandRow>;
  /** The API keys the journal holds commands of, in order: the first, then the one after a key. */
  firstKey: Stmt<[], { k: string | null }>;
  keyAfter: Stmt<[string], { k: string }>;
  /** listCommands()'s query for one API key and this filter shape. */
  listCommandsFor: (shape: { states: readonly CommandState[] | null; before: boolean }) => Statement;
  prune: Stmt<[number, number], { id: string }>;
  resolve: Stmt<[string, number, string, string, string], { version: number; body_sensitive: number }>;
}

export function prepareSqliteStatements(db: Database.Database): SqliteStatements {
  const q = {
    lockHolder: db.prepare<[string, string], { id: string }>(
      "SELECT id FROM commands WHERE environment = ? AND lock_key = ? AND lock_held = 1",
    ),
    byKey: db.prepare<[string, string], { id: string }>(
      "SELECT id FROM commands WHERE api_key_id = ? AND idempotency_key = ?",
    ),
    insert: db.prepare(
      `INSERT INTO commands (${COMMAND_INSERT_COLUMNS.join(", ")}, state, version, lease_until)
       VALUES (${placeholders(COMMAND_INSERT_COLUMNS.length)}, 'recorded', 0, ?)`,
    ),
    row: db.prepare<[string], CommandRow>("SELECT * FROM commands WHERE id = ?"),
    stateOf: db.prepare<[string], { id: string; state: string; owner: string | null }>(
      "SELECT id, state, owner FROM commands WHERE id = ?",
    ),
    attempts: db.prepare<[string], AttemptRow>("SELECT * FROM command_attempts WHERE command_id = ? ORDER BY seq"),
    addAttempt: db.prepare(
      `INSERT INTO command_attempts (command_id, seq, ${ATTEMPT_COLUMNS_SQL})
       VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM command_attempts WHERE command_id = ?),
         ${placeholders(ATTEMPT_INSERT_COLUMNS.length)})`,
    ),
    addAttemptAt: db.prepare(
      `INSERT INTO command_attempts (command_id, seq, ${ATTEMPT_COLUMNS_SQL})
       VALUES (?, ?, ${placeholders(ATTEMPT_INSERT_COLUMNS.length)})`,
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
      if (isTerminal(to)) {
        set.push("lease_until = NULL");
        // H2: a request with sensitive fields is kept only while a resend may need it.
        set.push("body = CASE WHEN body_sensitive = 1 THEN NULL ELSE body END");
        set.push("body_pruned = CASE WHEN body_sensitive = 1 THEN 1 ELSE body_pruned END");
      } else if (leased) set.push("lease_until = ?");
      if (leased) set.push("owner = ?");
      for (const [k] of p.resources) set.push(`${RESOURCE_COLUMNS[k]} = ?`);
      // H2: a sensitive command keeps no bodies once settled — neither its request nor its response.
      const dropped = (value: string) =>
        isTerminal(to) ? `CASE WHEN body_sensitive = 1 THEN NULL ELSE ${value} END` : value;
      if (p.response !== undefined) set.push("response_status = ?", `response_body = ${dropped("?")}`);
      else if (isTerminal(to)) set.push(`response_body = ${dropped("response_body")}`);
      if (p.reconciliation !== undefined) set.push("reconciliation = ?");
      if (p.manualCheck !== undefined) set.push("manual_check = ?");
      const fence = leased ? " AND (owner IS NULL OR owner = ?)" : "";
      // A terminal move also says whether it dropped a sensitive body (the caller then scrubs the WAL).
      const returning = isTerminal(to) ? "version, body_sensitive" : "version";
      stmt = db.prepare(
        `UPDATE commands SET ${set.join(", ")} WHERE id = ? AND state IN (${from})${fence} RETURNING ${returning}`,
      );
    }
    updates.set(shape, stmt);
    return stmt;
  };

  const lists = new Map<string, { rows: Statement; attempts: Statement; page: Statement }>();
  const listFor = (states: readonly CommandState[]) => {
    const list = statesSql(states);
    let s = lists.get(list);
    if (!s) {
      s = {
        rows: db.prepare(
          `SELECT * FROM commands ${unsettledScope(states).from}
           WHERE ${unsettledScope(states).where}state IN (${list}) ORDER BY created_at, rowid`,
        ),
        attempts: db.prepare(
          `SELECT a.* FROM command_attempts a JOIN commands c ON c.id = a.command_id
           WHERE c.state IN (${list}) ORDER BY a.command_id, a.seq`,
        ),
        // listByState(states, page): oldest first after the cursor (created_at, then rowid), LIMIT.
        page: db.prepare(
          `SELECT * FROM commands ${unsettledScope(states).from}
           WHERE ${unsettledScope(states).where}state IN (${list})
             AND (@afterAt IS NULL OR created_at > @afterAt OR (created_at = @afterAt
                  AND rowid > COALESCE((SELECT rowid FROM commands WHERE id = @afterId), -1)))
           ORDER BY created_at, rowid LIMIT @limit`,
        ),
      };
      lists.set(list, s);
    }
    return s;
  };

  /**
   * claim(): ONE UPDATE takes the batch (SQLite holds the write lock for the statement, so a row is
   * taken by exactly one claimer), then the rows' attempts are read in the same transaction.
   */
  const claims = new Map<string, Stmt<[Record<string, unknown>], CommandRow>>();
  const probes = new Map<string, Stmt<[Record<string, unknown>], { id: string }>>();
  /** What claim() may take: one WHERE for the UPDATE and for its read-only probe. */
  const claimable = (states: readonly CommandState[]) =>
    `SELECT id FROM commands ${unsettledScope(states).from}
       WHERE ${unsettledScope(states).where}(@apiKeyId IS NULL OR api_key_id = @apiKeyId) AND (@environment IS NULL OR environment = @environment)
         AND (@ids IS NULL OR id IN (SELECT value FROM json_each(@ids))) AND state IN (${statesSql(states)})
         AND id NOT IN (SELECT value FROM json_each(@exclude))
         AND (owner = @owner OR (owner IS NOT NULL AND (lease_until IS NULL OR lease_until <= @now))
              OR (owner IS NULL AND updated_at <= @staleBefore))`;
  const claimFor = (states: readonly CommandState[]) => {
    const list = statesSql(states);
    let stmt = claims.get(list);
    if (!stmt) {
      stmt = db.prepare<[Record<string, unknown>], CommandRow>(
        `UPDATE commands SET owner = @owner, lease_until = @leaseUntil, version = version + 1
     WHERE id IN (${claimable(states)} ORDER BY created_at, rowid LIMIT @limit)
     RETURNING *`,
      );
      claims.set(list, stmt);
    }
    return stmt;
  };
  /** A read without the write lock: an idle recovery round (nothing to take) commits nothing. */
  const claimProbe = (states: readonly CommandState[]) => {
    const list = statesSql(states);
    let stmt = probes.get(list);
    if (!stmt) {
      stmt = db.prepare<[Record<string, unknown>], { id: string }>(`${claimable(states)} LIMIT 1`);
      probes.set(list, stmt);
    }
    return stmt;
  };
  const claimAttempts = db.prepare<[string], AttemptRow>(
    "SELECT * FROM command_attempts WHERE command_id IN (SELECT value FROM json_each(?)) ORDER BY command_id, seq",
  );

  const counts = new Map<string, Stmt<[], { state: string; n: number }>>();
  const countFor = (states: readonly CommandState[] | null) => {
    const list = states === null ? "" : statesSql(states);
    let stmt = counts.get(list);
    if (!stmt) {
      const where = states === null ? "" : `WHERE ${unsettledScope(states).where}state IN (${list})`;
      stmt = db.prepare<[], { state: string; n: number }>(
        `SELECT state, COUNT(*) AS n FROM commands ${states === null ? "" : unsettledScope(states).from} ${where} GROUP BY state`,
      );
      counts.set(list, stmt);
    }
    return stmt;
  };

  const latestByLock = db.prepare<[string, string, number], CommandRow>(
    `SELECT * FROM commands WHERE api_key_id = ? AND lock_key = ? AND created_at >= ?
     ORDER BY created_at DESC, rowid DESC LIMIT 1`,
  );

  // Seeks in the (api_key_id, …) indexes: one step per key, whatever the history holds.
  const firstKey = db.prepare<[], { k: string | null }>("SELECT MIN(api_key_id) AS k FROM commands");
  const keyAfter = db.prepare<[string], { k: string }>(
    "SELECT api_key_id AS k FROM commands WHERE api_key_id > ? ORDER BY api_key_id LIMIT 1",
  );

  const pages = new Map<string, Statement>();
  const listCommandsFor = (shape: { states: readonly CommandState[] | null; before: boolean }) => {
    const list = shape.states === null ? null : statesSql(shape.states);
    const key = `${shape.before ? "b" : ""}|${list ?? "*"}`;
    let stmt = pages.get(key);
    if (!stmt) {
      const where = ["api_key_id = @apiKeyId"];
      if (list !== null) where.push(`state IN (${list})`);
      if (shape.before) where.push("(created_at < @beforeAt OR (created_at = @beforeAt AND id < @beforeId))");
      stmt = db.prepare(
        `SELECT * FROM commands WHERE ${where.join(" AND ")}
         ORDER BY created_at DESC, id DESC LIMIT @limit`,
      );
      pages.set(key, stmt);
    }
    return stmt;
  };

  /** H2 retention: settled commands still holding a body, oldest settle first (LIMIT -1: all). */
  const prune = db.prepare<[number, number], { id: string }>(
    `UPDATE commands SET body = NULL, body_pruned = 1, response_body = NULL, version = version + 1
     WHERE id IN (
       SELECT id FROM commands
       WHERE state IN (${SETTLED_SQL}) AND (body_pruned = 0 OR response_body IS NOT NULL) AND updated_at < ?
       ORDER BY updated_at LIMIT ?)
     RETURNING id`,
  );

  /** F4: only from needs_manual_check, in the statement that writes (no read-then-write window). */
  const resolve = db.prepare<[string, number, string, string, string], { version: number; body_sensitive: number }>(
    `UPDATE commands SET state = ?, version = version + 1, updated_at = ?, lock_held = 0, lease_until = NULL,
       reconciliation = ?,
       manual_check = json_set(COALESCE(manual_check, '{"reason":"manual check","requestIds":[]}'), '$.resolution', json(?)),
       body = CASE WHEN body_sensitive = 1 THEN NULL ELSE body END,
       response_body = CASE WHEN body_sensitive = 1 THEN NULL ELSE response_body END,
       body_pruned = CASE WHEN body_sensitive = 1 THEN 1 ELSE body_pruned END
     WHERE id = ? AND state = 'needs_manual_check' RETURNING version, body_sensitive`,
  );

  return {
    q,
    updateFor,
    listFor,
    claimFor,
    claimProbe,
    claimAttempts,
    attemptsOf: claimAttempts,
    countFor,
    latestByLock,
    firstKey,
    keyAfter,
    listCommandsFor,
    prune,
    resolve,
  };
}
