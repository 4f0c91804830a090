/**
 * PostgreSQL Journal (pg). record() returns after COMMIT (G1). transition() is one UPDATE guarded
 * by the version it validated (optimistic: no lost updates across processes, G3); a leased write is
 * also fenced by the owner it validated. The I6 domain lock is a unique partial index, so every
 * process sharing the database sees it. Lease times come from the database server's clock unless a
 * clock is injected: one clock for the whole fleet, whatever the workers' clocks say. Migrations run
 * on creation under pg_advisory_xact_lock, so concurrent starters are safe.
 */
import type pg from "pg";
import { loadPeer } from "./optional-peer";
import {
  assertAttemptMove,
  assertTransition,
  commandFingerprint,
  holdsLock,
  isCommandState,
  isTerminal,
} from "../journal";
import {
  createRedactor,
  InvalidArgumentError,
  InvalidOptionsError,
  isStoreUnavailableError,
  redactUrl,
  StoreUnavailableError,
} from "../core";
import {
  DomainLockedError,
  DuplicateCommandError,
  InvalidTransitionError,
  JournalContentionError,
  LeaseLostError,
  UnknownCommandError,
  type AttemptRecord,
  type CommandPatch,
  type CommandRecord,
  type CommandState,
  type Journal,
  type Lease,
  type NewCommand,
} from "../journal";
import {
  ATTEMPT_INSERT_COLUMNS,
  COMMAND_INSERT_COLUMNS,
  OPTIMISTIC_RETRIES,
  applyPatch,
  attemptInsertValues,
  cleanAttempt,
  commandInsertValues,
  placeholders,
  defaultJournalClock,
  guardClosed,
  isSensitiveRequest,
  resolutionPatch,
  screenLease,
  screenListFilter,
  screenStatePage,
  screenNewCommand,
  screenPrune,
  screenResolution,
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
import { pgMigrations } from "./migrations/pg";
import { inTransaction, query, withReconnect, type ReconnectClock, type ReconnectPolicy } from "./pg-reconnect";
import { SETTLED_SQL, type Migration } from "./migrations/sqlite";
import { checkOptionNames, type OptionNames } from "./store-options";

type Queryable = Pick<pg.Pool, "query"> | pg.PoolClient;

/**
 * The part of a `pg.Pool` the journal uses. Structural, so the published types compile without
 * `@types/pg`; a real `pg.Pool` fits it.
 */
export interface PgPool {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
  connect(): Promise<PgPoolClient>;
  end(): Promise<void>;
}

/** A client checked out of a {@link PgPool}. */
export interface PgPoolClient {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
  release(error?: Error | boolean): void;
}

export interface PgJournalOptions {
  /** An existing `pg.Pool` (not ended by close()), or … */
  pool?: PgPool | undefined;
  /** … a connection string for a pool the journal owns (ended by close()). */
  connectionString?: string | undefined;
  /** Schema holding the tables; created if missing. Default "reseller_api". */
  schema?: string | undefined;
  /**
   * Source of updatedAt (default Date.now) and of lease times (default: the database server's
   * clock, so workers on different machines agree on when a lease expires).
   */
  clock?: JournalClock | undefined;
  /**
   * How long one journal call keeps trying while the database is unreachable (a restart, a
   * failover), ms; then it throws StoreUnavailableError. 0: fail at once. The waits run on `clock`
   * when it has a `sleep(ms)`, else on the real clock.
   * @default 10_000
   */
  reconnectWithinMs?: number | undefined;
}

/** A PostgreSQL restart or a managed failover takes seconds; a call waits this long for it (G1: before a send). */
const DEFAULT_RECONNECT_WITHIN_MS = 10_000;

const realClock: ReconnectClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

const seqOf = (r: CommandRow) => Number((r as CommandRow & { seq?: number | string }).seq ?? 0);

/** `$n` or, when it is NULL, the server's clock in ms: lease times on one clock for the fleet. */
const nowSql = (param: string) => `COALESCE(${param}::bigint, (extract(epoch from clock_timestamp()) * 1000)::bigint)`;

/** Namespace for pg_advisory_xact_lock(int, int): "RSLR". */
const LOCK_NAMESPACE = 0x52534c52;

function quoteIdent(name: string): string {
  if (typeof name !== "string" || !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) {
    throw new InvalidOptionsError(
      `PgJournalOptions.schema must be a plain identifier (letters, digits, _; at most 63), got ${JSON.stringify(name)}.`,
      "schema",
    );
  }
  return `"${name}"`;
}

/**
 * What migration 3 cannot do in SQL: the D4 fingerprint of rows written before it, and the H2 rule
 * for their sensitive request bodies (marked when unsettled, dropped when settled). 500 rows per
 * round; rows another starter is filling are skipped (SKIP LOCKED), so concurrent opens are safe.
 */
async function backfillPg(pool: pg.Pool, s: string): Promise<void> {
  for (;;) {
    const done = await inTransaction(pool, async (c) => {
      const res = await c.query<CommandRow>(
        `SELECT id, operation_id, method, path, query, body, state FROM ${s}.commands
         WHERE fingerprint IS NULL LIMIT 500 FOR UPDATE SKIP LOCKED`,
      );
      if (res.rows.length === 0) return 0;
      const ids: string[] = [];
      const prints: string[] = [];
      const sensitive: boolean[] = [];
      const drop: boolean[] = [];
      for (const r of res.rows) {
        const body = r.body === null ? null : new Uint8Array(r.body);
        const marked = isSensitiveRequest({ operationId: r.operation_id as NewCommand["operationId"], body });
        ids.push(r.id);
        prints.push(await commandFingerprint(r.method, r.path, r.query, body));
        sensitive.push(marked);
        drop.push(marked && isCommandState(r.state) && isTerminal(r.state));
      }
      await c.query(
        `UPDATE ${s}.commands t SET fingerprint = u.fp, body_sensitive = u.sens,
           body = CASE WHEN u.drop THEN NULL ELSE t.body END, body_pruned = t.body_pruned OR u.drop,
           response_body = CASE WHEN u.drop THEN NULL ELSE t.response_body END
         FROM unnest($1::text[], $2::text[], $3::boolean[], $4::boolean[]) AS u(id, fp, sens, drop)
         WHERE t.id = u.id`,
        [ids, prints, sensitive, drop],
      );
      return res.rows.length;
    });
    if (done === 0) return;
  }
}

/** `states` as SQL literals (validated), so the planner can match the partial index over unsettled states. */
function statesSql(states: readonly CommandState[]): string {
  for (const st of states) {
    if (!isCommandState(st)) throw new InvalidArgumentError(`Unknown command state "${String(st)}".`, "states");
  }
  return [...new Set(states)]
    .sort()
    .map((st) => `'${st}'`)
    .join(", ");
}

/**
 * Applies every migration newer than the schema's version, in one transaction under an advisory
 * lock keyed by the schema (concurrent starters wait, then find nothing to do). Returns the
 * versions applied now; running it again is a no-op that returns [].
 */
export async function migratePg(
  poolLike: PgPool,
  schema = "reseller_api",
  migrations: readonly Migration[] = pgMigrations,
): Promise<number[]> {
  const s = quoteIdent(schema);
  const pool = poolLike as unknown as pg.Pool;
  // H2 least privilege: a journal already at the latest version is opened without any DDL, so the
  // application's role needs no CREATE (docs/guides/data-at-rest.md, "PostgreSQL: who gets what").
  const table = await pool.query<{ t: string | null }>("SELECT to_regclass($1)::text AS t", [`${s}.schema_migrations`]);
  if (table.rows[0]?.t) {
    const have = new Set(
      (await pool.query<{ version: number }>(`SELECT version FROM ${s}.schema_migrations`)).rows.map((r) => r.version),
    );
    if (migrations.every((m) => have.has(m.version))) return [];
  }
  return inTransaction(pool, async (c) => {
    await c.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [LOCK_NAMESPACE, schema]);
    // A schema made for the owner by an administrator: no CREATE on the database needed (the check
    // of CREATE SCHEMA IF NOT EXISTS comes before the existence test).
    const exists = await c.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
    if (exists.rowCount === 0) await c.query(`CREATE SCHEMA ${s}`);
    await c.query(
      `CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (
         version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    const done = new Set(
      (await c.query<{ version: number }>(`SELECT version FROM ${s}.schema_migrations`)).rows.map((r) => r.version),
    );
    const applied: number[] = [];
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(m.version)) continue;
      await c.query(m.sql.replaceAll("{{schema}}", s));
      await c.query(`INSERT INTO ${s}.schema_migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
      applied.push(m.version);
    }
    return applied;
  });
}

/** An `@` after the authority of `scheme://…` (in the path, query or fragment): a password split by the parser. */
function atAfterAuthority(url: string): boolean {
  const rest = url.slice(url.indexOf("//") + 2);
  const end = rest.search(/[/?#]/);
  return end >= 0 && rest.slice(end).includes("@");
}

/**
 * A pool we own must not crash the process when the server drops idle connections (restart,
 * failover): the error surfaces on the next query instead, where the caller handles it.
 */
function ownedPool(connectionString: string): pg.Pool {
  const { Pool } = loadPeer("pg", "reseller-api/stores/postgres") as typeof pg;
  const pool = new Pool({ connectionString });
  pool.on("error", () => undefined);
  pool.on("connect", (client) => client.on("error", () => undefined));
  return pool;
}

const OPTION_NAMES: OptionNames<PgJournalOptions> = {
  pool: true,
  connectionString: true,
  schema: true,
  clock: true,
  reconnectWithinMs: true,
};

/**
 * A set-up error with the driver's redacted error as `cause` and, when the server gave one, its
 * SQLSTATE (`28P01`, `3D000`…) as `sqlState`.
 */
function withDetail<E extends Error>(error: E, sqlState: string | undefined, cause: Error): E {
  Object.defineProperty(error, "cause", { value: cause, writable: true, configurable: true });
  if (sqlState !== undefined) Object.assign(error, { sqlState });
  return error;
}

/** Where the journal was told to connect, and the secrets no message may show (the password). */
function connectionTarget(connectionString: string | undefined, pool: unknown) {
  const po: Record<string, unknown> = (pool as { options?: Record<string, unknown> } | undefined)?.options ?? {};
  const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);
  let host = str(po.host);
  let port = typeof po.port === "number" ? String(po.port) : str(po.port);
  let user = str(po.user);
  let database = str(po.database);
  const secrets = [str(po.password)];
  const cs = connectionString ?? str(po.connectionString);
  if (cs !== undefined) {
    // The password even of a URL that does not parse (a bad port): user:password@ after the scheme.
    secrets.push(/^[a-z][a-z0-9+.-]*:\/\/[^:@/]*:([^@/]*)@/i.exec(cs)?.[1]);
    try {
      const u = new URL(cs);
      host ??= str(u.hostname);
      port ??= str(u.port);
      user ??= str(safeDecode(u.username));
      database ??= str(safeDecode(u.pathname.slice(1)));
      secrets.push(str(u.password), str(safeDecode(u.password)));
    } catch {
      // reported as a malformed URL
    }
  }
  host ??= str(process.env.PGHOST) ?? "localhost";
  port ??= str(process.env.PGPORT) ?? "5432";
  user ??= str(process.env.PGUSER);
  database ??= str(process.env.PGDATABASE) ?? user;
  const literals = secrets.filter((x): x is string => x !== undefined && x.length >= 3);
  const redactor = createRedactor(literals);
  const clean = (text: string) => {
    let out = text;
    for (const x of literals) out = out.split(x).join("[REDACTED]");
    return redactor.text(out);
  };
  return { cs, host, port, user, database, clean };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Node's socket codes and SQLSTATE class 08 / 57P03: nothing answered as a PostgreSQL server would. */
const UNREACHABLE =
  /^(?:ECONNREFUSED|ECONNRESET|ECONNABORTED|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|08...|57P0[123])$/;

/**
 * A failure to connect or set up, as the package's error with the fix in words (G1: the journal
 * must open before anything is sent). pg's own errors say neither what to do nor, for a malformed
 * URL, keep the password out (Node's ERR_INVALID_URL carries the whole string as `input`): none of
 * them is passed on; the cause is a redacted copy with the driver's name, code and message.
 */
function setupFailure(error: unknown, connectionString: string | undefined, pool: unknown): unknown {
  const option = connectionString !== undefined ? "connectionString" : "pool";
  const inner =
    isStoreUnavailableError(error) && (error as { cause?: unknown }).cause
      ? (error as { cause?: unknown }).cause
      : error;
  if (inner === null || typeof inner !== "object") return error;
  const { code, message, name } = inner as { code?: unknown; message?: unknown; name?: unknown };
  const t = connectionTarget(connectionString, pool);
  const text = t.clean(typeof message === "string" ? (message.split("\n")[0] ?? "") : "(no message)");
  const sqlState = typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
  const cause = new Error(text);
  cause.name = typeof name === "string" ? name : "Error";
  cause.stack = `${cause.name}: ${text}`;
  if (typeof code === "string") Object.assign(cause, { code });
  const at = `PostgreSQL at ${t.host}:${t.port}`;
  const who = t.user !== undefined ? `"${t.user}"` : "(the default user)";
  if (code === "ERR_INVALID_URL" || (name === "TypeError" && /invalid url/i.test(text))) {
    return withDetail(
      new InvalidOptionsError(
        `PgJournalOptions.connectionString is not a valid URL (${t.cs !== undefined ? redactUrl(t.cs) : "?"}): the expected form is ` +
          "postgres://user:password@host:5432/db (a port from 1 to 65535; percent-encode special characters in the password, e.g. @ as %40).",
        option,
      ),
      undefined,
      cause,
    );
  }
  if (code === "28P01") {
    return withDetail(
      new InvalidOptionsError(
        `${at} refused the password of user ${who} (28P01: ${text}): check the credentials — the user and password in ${option} ` +
          "(postgres://user:password@host:5432/db) or PGPASSWORD.",
        option,
      ),
      sqlState,
      cause,
    );
  }
  if (code === "28000") {
    return withDetail(
      new InvalidOptionsError(
        `${at} refused the connection of user ${who} (28000: ${text}): check the credentials and the user name in ${option}, ` +
          "and that the server's pg_hba.conf lets this host connect.",
        option,
      ),
      sqlState,
      cause,
    );
  }
  if (code === "3D000") {
    const db = t.database ?? "<database>";
    return withDetail(
      new InvalidOptionsError(
        `The database "${db}" does not exist on ${at} (3D000): create it (createdb -h ${t.host} -p ${t.port}` +
          `${t.user !== undefined ? ` -U ${t.user}` : ""} ${db}) or fix the database name in ${option}.`,
        option,
      ),
      sqlState,
      cause,
    );
  }
  if (typeof code === "string" && UNREACHABLE.test(code)) {
    return withDetail(
      new StoreUnavailableError(
        `The PostgreSQL journal cannot connect (${code}: ${text}): is PostgreSQL running at ${t.host}:${t.port}, and are the ` +
          `host and port in ${option} right? Nothing was created; create the journal again once it answers.`,
      ),
      sqlState,
      cause,
    );
  }
  if (isStoreUnavailableError(error)) {
    // pg's "timeout exceeded when trying to connect" / "Connection terminated" carry no code.
    return withDetail(
      new StoreUnavailableError(
        `The PostgreSQL journal cannot connect (${text}): is PostgreSQL running at ${t.host}:${t.port}, and are the host ` +
          `and port in ${option} right? Nothing was created; create the journal again once it answers.`,
      ),
      sqlState,
      cause,
    );
  }
  return error;
}

interface PgError extends Error {
  code?: string;
  constraint?: string;
}

/**
 * A command journal in PostgreSQL, shared by every process of a deployment (G1: a command is
 * committed before its first byte is sent). Creates its schema on first use. Needs the optional
 * peer `pg` (`npm install pg`) when given a `connectionString`; throws MissingDependencyError without it.
 */
export async function createPgJournal(options: PgJournalOptions): Promise<Journal> {
  if (options === null || typeof options !== "object" || (!options.pool && !options.connectionString)) {
    throw new InvalidOptionsError(
      'createPgJournal() needs { connectionString: "postgres://user@host/db" } or { pool: new pg.Pool(…) }.',
      "connectionString",
    );
  }
  checkOptionNames(options, OPTION_NAMES, "createPgJournal()");
  if (options.connectionString !== undefined && typeof options.connectionString !== "string") {
    throw new InvalidOptionsError(
      "PgJournalOptions.connectionString must be a postgres:// URL string.",
      "connectionString",
    );
  }
  if (options.connectionString !== undefined && atAfterAuthority(options.connectionString)) {
    // H2: the driver would read part of such a password as the host or the database, and name it in
    // its errors ("ENOTFOUND …"): refused before any connection, echoing nothing of the value.
    throw new InvalidOptionsError(
      'PgJournalOptions.connectionString (not echoed: it may hold a password) has an "@" after its host: its user name or password holds an unencoded "@", "/", ":", "#" or "?". Percent-encode them (@ as %40, / as %2F, : as %3A, # as %23, ? as %3F), or leave the password out of the URL and set PGPASSWORD.',
      "connectionString",
    );
  }
  const ownsPool = !options.pool;
  const pool = (options.pool as pg.Pool | undefined) ?? ownedPool(options.connectionString!);
  const schema = options.schema ?? "reseller_api";
  const s = quoteIdent(schema);
  const clock = options.clock ?? defaultJournalClock;
  const leaseNow = () => (options.clock ? options.clock.now() : null);
  const withinMs = options.reconnectWithinMs ?? DEFAULT_RECONNECT_WITHIN_MS;
  if (typeof withinMs !== "number" || !Number.isFinite(withinMs) || withinMs < 0) {
    throw new InvalidOptionsError(
      `PgJournalOptions.reconnectWithinMs must be a finite number ≥ 0 (ms), got ${String(withinMs)}.`,
      "reconnectWithinMs",
    );
  }
  const sleeper = clock as Partial<ReconnectClock>;
  const policy: ReconnectPolicy = {
    withinMs,
    clock: typeof sleeper.sleep === "function" ? (clock as ReconnectClock) : realClock,
  };
  /** Repeatable: safe to run again even if the last try committed. Else only a try that wrote nothing is. */
  const retrying = <T>(repeatable: boolean, fn: (again: boolean) => Promise<T>) =>
    withReconnect(policy, repeatable, fn);
  const db: Queryable = { query: (text: string, values?: unknown[]) => query(pool, text, values) } as Queryable;
  try {
    // Migrations are idempotent (version table, advisory lock): a worker starting mid-restart waits.
    await retrying(true, async () => {
      await migratePg(pool, schema);
      await backfillPg(pool, s);
    });
  } catch (e) {
    if (ownsPool) await pool.end().catch(() => undefined);
    throw setupFailure(e, options.connectionString, options.pool);
  }

  const attemptsOf = async (db: Queryable, ids: string[]) => {
    const byId = new Map<string, AttemptRow[]>(ids.map((id) => [id, []]));
    if (ids.length === 0) return byId;
    const res = await db.query<AttemptRow>(
      `SELECT * FROM ${s}.command_attempts WHERE command_id = ANY($1) ORDER BY seq`,
      [ids],
    );
    for (const a of res.rows) byId.get(a.command_id)?.push(a);
    return byId;
  };
  const loadRows = async (db: Queryable, rows: CommandRow[]): Promise<CommandRecord[]> => {
    const attempts = await attemptsOf(
      db,
      rows.map((r) => r.id),
    );
    return rows.map((r) => rowToRecord(r, attempts.get(r.id) ?? [], false));
  };
  const loadWhere = async (db: Queryable, where: string, params: unknown[]) => {
    const res = await db.query<CommandRow>(
      `SELECT * FROM ${s}.commands WHERE ${where} ORDER BY created_at, seq`,
      params,
    );
    return loadRows(db, res.rows);
  };
  const lockHolder = async (env: string, lockKey: string) =>
    (
      await db.query<{ id: string }>(
        `SELECT id FROM ${s}.commands WHERE environment = $1 AND lock_key = $2 AND lock_held`,
        [env, lockKey],
      )
    ).rows[0]?.id;
  const keyHolder = async (apiKeyId: string, key: string) =>
    (
      await db.query<{ id: string }>(`SELECT id FROM ${s}.commands WHERE api_key_id = $1 AND idempotency_key = $2`, [
        apiKeyId,
        key,
      ])
    ).rows[0]?.id;

  /** A leased write applies only while its owner still owns the command (else nothing is written). */
  const fence = (cur: CommandRow, lease: Lease | undefined) => {
    if (lease && cur.owner !== null && cur.owner !== lease.owner)
      throw new LeaseLostError(cur.id, lease.owner, cur.owner);
  };
  /** One statement: state, lock release, lease and patch commit together or not at all (G3). */
  const update = (
    db: Queryable,
    cur: CommandRow,
    to: CommandState,
    patch: CommandPatch | undefined,
    lease: Lease | undefined,
    stamp = clock.now(),
  ) => {
    const cols = mutableToColumns(applyPatch(rowToMutable(cur, false), patch));
    return db.query<CommandRow>(
      `UPDATE ${s}.commands SET state = $2, version = version + 1, updated_at = $3,
         lock_held = CASE WHEN $4 THEN false ELSE lock_held END,
         order_uuid = $5, domain_uuid = $6, operation_uuid = $7, response_status = $8,
         response_body = CASE WHEN $14 AND body_sensitive THEN NULL ELSE $9::json END, reconciliation = $10, manual_check = $11::json,
         body = CASE WHEN $14 AND body_sensitive THEN NULL ELSE body END,
         body_pruned = body_pruned OR ($14 AND body_sensitive),
         owner = COALESCE($13, owner),
         lease_until = CASE WHEN $14 THEN NULL WHEN $13::text IS NULL THEN lease_until ELSE ${nowSql("$15")} + $16::bigint END
       WHERE id = $1 AND version = $12 RETURNING *`,
      [
        cur.id,
        to,
        stamp,
        !holdsLock(to),
        cols.order_uuid,
        cols.domain_uuid,
        cols.operation_uuid,
        cols.response_status,
        cols.response_body,
        cols.reconciliation,
        cols.manual_check,
        cur.version,
        lease?.owner ?? null,
        isTerminal(to),
        leaseNow(),
        lease?.leaseMs ?? 0,
      ],
    );
  };
  const insertAttempt = (db: Queryable, id: string, a: AttemptRecord) =>
    db.query(
      `INSERT INTO ${s}.command_attempts (command_id, ${ATTEMPT_INSERT_COLUMNS.join(", ")})
       VALUES ($1, ${placeholders(ATTEMPT_INSERT_COLUMNS.length, 2)})`,
      [id, ...attemptInsertValues(a)],
    );

  /**
   * An UPDATE whose answer a broken connection lost: the version it was guarded by and the
   * updated_at it wrote, so the repeated move recognises its own commit instead of refusing it.
   */
  interface PendingMove {
    version: number;
    stamp: number;
  }
  const move = async (
    db: Queryable,
    id: string,
    to: CommandState,
    patch: CommandPatch | undefined,
    lease: Lease | undefined,
    pending: { last?: PendingMove } = {},
  ): Promise<CommandRecord> => {
    for (let i = 0; i < OPTIMISTIC_RETRIES; i++) {
      const cur = (await db.query<CommandRow>(`SELECT * FROM ${s}.commands WHERE id = $1`, [id])).rows[0];
      if (!cur) throw new UnknownCommandError(id);
      const last = pending.last;
      if (
        last &&
        Number(cur.version) === last.version + 1 &&
        Number(cur.updated_at) === last.stamp &&
        rowState(cur) === to
      )
        return (await loadRows(db, [cur]))[0]; // our own move committed before the connection broke
      fence(cur, lease);
      assertTransition(rowState(cur), to);
      const stamp = clock.now();
      pending.last = { version: Number(cur.version), stamp };
      const res = await update(db, cur, to, patch, lease, stamp);
      if (res.rowCount === 1) return (await loadRows(db, res.rows))[0];
      pending.last = undefined;
      // Another process moved first (or claimed it): re-read and re-validate against its state.
    }
    throw new JournalContentionError(id, OPTIMISTIC_RETRIES);
  };

  let closed = false;
  return guardClosed(
    {
      async record(c, lease) {
        screenNewCommand(c);
        if (lease) screenLease(lease);
        // Repeatable: the id is fresh, so a row with it after a lost answer is this very record().
        return retrying(true, async (again) => {
          for (let i = 0; ; i++) {
            try {
              // A single INSERT in autocommit: it is committed (durable) when the promise resolves (G1).
              const n = COMMAND_INSERT_COLUMNS.length;
              const res = await db.query<CommandRow>(
                `INSERT INTO ${s}.commands (${COMMAND_INSERT_COLUMNS.join(", ")}, state, lease_until)
             VALUES (${placeholders(n, 1)}, 'recorded',
               CASE WHEN $${n}::text IS NULL THEN NULL ELSE ${nowSql(`$${n + 1}`)} + $${n + 2}::bigint END) RETURNING *`,
                [...commandInsertValues(c, lease?.owner ?? null), leaseNow(), lease?.leaseMs ?? 0],
              );
              return rowToRecord(res.rows[0], [], false);
            } catch (e) {
              const err = e as PgError;
              if (err.code !== "23505") throw e;
              if (again) {
                const mine = (await db.query<CommandRow>(`SELECT * FROM ${s}.commands WHERE id = $1`, [c.id])).rows[0];
                if (mine) return rowToRecord(mine, [], false);
              }
              if (err.constraint === "commands_domain_lock" && c.lockKey !== null) {
                const holder = await lockHolder(c.environment, c.lockKey);
                // The holder finished between our insert and this look-up: the lock is free, try again.
                if (holder === undefined && i < OPTIMISTIC_RETRIES) continue;
                throw new DomainLockedError(c.lockKey, holder ?? "?");
              }
              const existing =
                err.constraint === "commands_pkey" ? c.id : await keyHolder(c.apiKeyId, c.idempotencyKey);
              throw new DuplicateCommandError(c.apiKeyId, c.idempotencyKey, existing);
            }
          }
        });
      },

      async addAttempt(id, attempt, then, lease) {
        const a = cleanAttempt(attempt);
        if (lease) screenLease(lease);
        try {
          await retrying(false, () =>
            inTransaction(pool, async (db) => {
              // The row lock orders this write after any claim in flight, so the fence below is current.
              const cur = (await db.query<CommandRow>(`SELECT * FROM ${s}.commands WHERE id = $1 FOR UPDATE`, [id]))
                .rows[0];
              if (!cur) throw new UnknownCommandError(id);
              fence(cur, lease);
              if (then) {
                assertAttemptMove(rowState(cur), then.to);
                await update(db, cur, then.to, then.patch, lease);
              } else {
                await db.query(
                  `UPDATE ${s}.commands SET updated_at = $2, owner = COALESCE($3, owner),
                 lease_until = CASE WHEN $3::text IS NULL THEN lease_until
                   WHEN state IN ('succeeded', 'completed', 'failed', 'rejected') THEN NULL
                   ELSE ${nowSql("$4")} + $5::bigint END
               WHERE id = $1`,
                  [id, clock.now(), lease?.owner ?? null, leaseNow(), lease?.leaseMs ?? 0],
                );
              }
              await insertAttempt(db, id, a);
            }),
          );
        } catch (e) {
          if ((e as PgError).code === "23503") throw new UnknownCommandError(id);
          throw e;
        }
      },

      async transition(id, to: CommandState, patch, lease, options) {
        if (lease) screenLease(lease);
        // Repeatable: a repeated move recognises its own commit (PendingMove).
        const pending: { last?: PendingMove } = {};
        if (!options?.redoable) return retrying(true, () => move(db, id, to, patch, lease, pending));
        // Redoable (recover()'s settles): the server acknowledges the commit before its WAL is flushed.
        // A server crash can lose it (and later such commits, never an earlier one); recover() redoes it.
        return retrying(true, () =>
          inTransaction(pool, async (tx) => {
            await tx.query("SET LOCAL synchronous_commit TO OFF");
            return move(tx, id, to, patch, lease, pending);
          }),
        );
      },

      async renewLeases(lease, ids) {
        screenLease(lease);
        if (ids.length === 0) return [];
        const res = await retrying(true, () =>
          db.query<{ id: string }>(
            `UPDATE ${s}.commands SET lease_until = CASE WHEN lease_until IS NULL THEN NULL ELSE ${nowSql("$3")} + $4::bigint END
         WHERE id = ANY($1) AND owner = $2 RETURNING id`,
            [[...ids], lease.owner, leaseNow(), lease.leaseMs],
          ),
        );
        const kept = new Set(res.rows.map((r) => r.id));
        return ids.filter((id) => !kept.has(id));
      },

      async claim(request) {
        screenLease(request);
        // SKIP LOCKED: rows another claimer is taking right now are left to it; a row it has just
        // committed is re-checked against the WHERE (READ COMMITTED), so each command has one winner.
        // Repeatable: rows a lost answer claimed are this worker's now, and `owner = $1` takes them again.
        return retrying(true, async () => {
          const res = await db.query<CommandRow>(
            `WITH now AS (SELECT ${nowSql("$6")} AS ms),
         c AS (
           SELECT id FROM ${s}.commands, now
           WHERE ($3::text IS NULL OR api_key_id = $3) AND ($4::text IS NULL OR environment = $4)
             AND ($9::text[] IS NULL OR id = ANY($9)) AND state = ANY($5) AND NOT (id = ANY($10::text[]))
             AND (owner = $1 OR (owner IS NOT NULL AND (lease_until IS NULL OR lease_until <= now.ms))
                  OR (owner IS NULL AND updated_at <= $7::bigint))
           ORDER BY created_at, seq LIMIT $8 FOR UPDATE OF commands SKIP LOCKED)
         UPDATE ${s}.commands t SET owner = $1, lease_until = (SELECT ms FROM now) + $2::bigint, version = t.version + 1
         FROM c WHERE t.id = c.id RETURNING t.*`,
            [
              request.owner,
              request.leaseMs,
              request.apiKeyId ?? null,
              request.environment ?? null,
              [...request.states],
              leaseNow(),
              clock.now() - (request.unownedStaleAfterMs ?? 0),
              request.limit,
              request.ids === undefined ? null : [...request.ids],
              [...(request.excludeIds ?? [])],
            ],
          );
          const rows = res.rows.sort((a, b) => Number(a.created_at) - Number(b.created_at) || seqOf(a) - seqOf(b));
          return loadRows(db, rows);
        });
      },

      // Reads, and the writes below them, are repeatable: running one again changes nothing more.
      get(id) {
        return retrying(true, async () => (await loadWhere(db, "id = $1", [id]))[0]);
      },
      findByIdempotencyKey(apiKeyId, idempotencyKey) {
        return retrying(
          true,
          async () => (await loadWhere(db, "api_key_id = $1 AND idempotency_key = $2", [apiKeyId, idempotencyKey]))[0],
        );
      },
      async listByState(states, page) {
        screenStatePage(page);
        if (states.length === 0) return [];
        if (!page) return retrying(true, () => loadWhere(db, "state = ANY($1)", [[...states]]));
        // A bounded read (recover()'s rounds): keyset on (created_at, seq), the index's own order.
        const after = page.after;
        return retrying(true, async () => {
          const res = await db.query<CommandRow>(
            `SELECT * FROM ${s}.commands WHERE state = ANY($1)
             AND ($2::bigint IS NULL OR created_at > $2 OR (created_at = $2
                  AND seq > COALESCE((SELECT seq FROM ${s}.commands WHERE id = $3), -1)))
           ORDER BY created_at, seq LIMIT $4`,
            [[...states], after?.createdAt ?? null, after?.id ?? null, page.limit],
          );
          return loadRows(db, res.rows);
        });
      },
      async prune(options) {
        const { settledBefore, limit } = screenPrune(options);
        const res = await retrying(true, () =>
          db.query(
            `UPDATE ${s}.commands SET body = NULL, body_pruned = true, response_body = NULL, version = version + 1
         WHERE id IN (
           SELECT id FROM ${s}.commands
           WHERE state IN (${SETTLED_SQL}) AND (NOT body_pruned OR response_body IS NOT NULL) AND updated_at < $1
           ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
            [settledBefore, limit],
          ),
        );
        return { pruned: res.rowCount ?? 0 };
      },
      async countByState(filter) {
        const where = filter?.states === undefined ? "" : `WHERE state IN (${statesSql(filter.states)})`;
        if (filter?.states?.length === 0) return {};
        const res = await retrying(true, () =>
          db.query<{ state: CommandState; n: string }>(
            `SELECT state, count(*) AS n FROM ${s}.commands ${where} GROUP BY state`,
          ),
        );
        const out: Partial<Record<CommandState, number>> = {};
        for (const r of res.rows) out[r.state] = Number(r.n);
        return out;
      },
      latestByLockKey(apiKeyId, lockKey, opts) {
        return retrying(true, async () => {
          const res = await db.query<CommandRow>(
            `SELECT * FROM ${s}.commands WHERE api_key_id = $1 AND lock_key = $2 AND created_at >= $3
         ORDER BY created_at DESC, seq DESC LIMIT 1`,
            [apiKeyId, lockKey, opts?.since ?? Number.MIN_SAFE_INTEGER],
          );
          return (await loadRows(db, res.rows))[0];
        });
      },
      async listCommands(filter) {
        screenListFilter(filter);
        if (filter.states?.length === 0) return [];
        const where: string[] = [];
        const params: unknown[] = [filter.limit];
        if (filter.apiKeyId !== undefined) where.push(`api_key_id = $${params.push(filter.apiKeyId)}`);
        if (filter.states !== undefined) where.push(`state IN (${statesSql(filter.states)})`);
        if (filter.before) {
          const at = `$${params.push(filter.before.createdAt)}::bigint`;
          where.push(`(created_at < ${at} OR (created_at = ${at} AND id < $${params.push(filter.before.id)}))`);
        }
        return retrying(true, async () => {
          const res = await db.query<CommandRow>(
            `SELECT * FROM ${s}.commands ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
         ORDER BY created_at DESC, id DESC LIMIT $1`,
            params,
          );
          return loadRows(db, res.rows);
        });
      },
      async resolveManualCheck(id, resolution) {
        const r = screenResolution(resolution);
        const patch = resolutionPatch(null, r);
        // F4: only from needs_manual_check, in the statement that writes (no read-then-write window).
        // Not repeatable (a second try would find it resolved): repeated only when nothing was written.
        return retrying(false, async () => {
          const res = await db.query<CommandRow>(
            `UPDATE ${s}.commands SET state = $2, version = version + 1, updated_at = $3, lock_held = false,
           lease_until = NULL, reconciliation = $4,
           manual_check = (COALESCE(manual_check::jsonb, '{"reason":"manual check","requestIds":[]}'::jsonb)
             || jsonb_build_object('resolution', $5::jsonb))::json,
           body = CASE WHEN body_sensitive THEN NULL ELSE body END, body_pruned = body_pruned OR body_sensitive,
           response_body = CASE WHEN body_sensitive THEN NULL ELSE response_body END
         WHERE id = $1 AND state = 'needs_manual_check' RETURNING *`,
            [id, r.as, clock.now(), patch.reconciliation, JSON.stringify(r)],
          );
          if (res.rowCount === 1) return (await loadRows(db, res.rows))[0];
          const cur = (await db.query<CommandRow>(`SELECT state, id FROM ${s}.commands WHERE id = $1`, [id])).rows[0];
          if (!cur) throw new UnknownCommandError(id);
          throw new InvalidTransitionError(rowState(cur), r.as);
        });
      },
      async withdraw(id, lease) {
        if (lease) screenLease(lease);
        const owner = lease?.owner ?? null;
        // Repeatable: a second try after a lost answer finds it gone (false), never removes another.
        return retrying(true, async () => {
          try {
            const res = await db.query(
              `DELETE FROM ${s}.commands WHERE id = $1 AND state = 'recorded'
             AND NOT EXISTS (SELECT 1 FROM ${s}.command_attempts WHERE command_id = $1)
             AND ($2::text IS NULL OR owner IS NULL OR owner = $2::text)`,
              [id, owner],
            );
            return (res.rowCount ?? 0) > 0;
          } catch (error) {
            // The least-privilege role has no DELETE (data-at-rest guide): the command stays recorded.
            if ((error as { code?: unknown }).code === "42501") return false;
            throw error;
          }
        });
      },
      async close() {
        if (closed) return;
        closed = true;
        if (ownsPool) await pool.end();
      },
    },
    () => closed,
  );
}
