/**
 * PostgreSQL Journal (pg). record() returns after COMMIT (G1). transition() is one UPDATE guarded
 * by the version it validated (optimistic: no lost updates across processes, G3). The I6 domain
 * lock is a unique partial index, so every process sharing the database sees it. Migrations run
 * on creation under pg_advisory_xact_lock, so concurrent starters are safe.
 */
import type pg from "pg";
import { loadPeer } from "./optional-peer";
import { assertTransition, holdsLock } from "../journal";
import {
  DomainLockedError,
  DuplicateCommandError,
  UnknownCommandError,
  type CommandRecord,
  type CommandState,
  type Journal,
} from "../journal";
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
import { pgMigrations } from "./migrations/pg";
import type { Migration } from "./migrations/sqlite";

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
  pool?: PgPool;
  /** … a connection string for a pool the journal owns (ended by close()). */
  connectionString?: string;
  /** Schema holding the tables; created if missing. Default "reseller_api". */
  schema?: string;
  /** Source of updatedAt (default Date.now). */
  clock?: JournalClock;
}

/** Namespace for pg_advisory_xact_lock(int, int): "RSLR". */
const LOCK_NAMESPACE = 0x52534c52;

function quoteIdent(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) throw new TypeError(`Invalid schema name: ${name}`);
  return `"${name}"`;
}

async function inTransaction<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const out = await fn(client);
    await client.query("COMMIT");
    return out;
  } catch (e) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
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
  return inTransaction(pool, async (c) => {
    await c.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [LOCK_NAMESPACE, schema]);
    await c.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
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
  if (!options.pool && !options.connectionString)
    throw new TypeError("createPgJournal needs a pool or a connectionString.");
  const ownsPool = !options.pool;
  const pool = (options.pool as pg.Pool | undefined) ?? ownedPool(options.connectionString!);
  const schema = options.schema ?? "reseller_api";
  const s = quoteIdent(schema);
  const clock = options.clock ?? defaultJournalClock;
  try {
    await migratePg(pool, schema);
  } catch (e) {
    if (ownsPool) await pool.end().catch(() => undefined);
    throw e;
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
      await pool.query<{ id: string }>(
        `SELECT id FROM ${s}.commands WHERE environment = $1 AND lock_key = $2 AND lock_held`,
        [env, lockKey],
      )
    ).rows[0]?.id;
  const keyHolder = async (apiKeyId: string, key: string) =>
    (
      await pool.query<{ id: string }>(`SELECT id FROM ${s}.commands WHERE api_key_id = $1 AND idempotency_key = $2`, [
        apiKeyId,
        key,
      ])
    ).rows[0]?.id;

  let closed = false;
  return {
    async record(c) {
      screenNewCommand(c);
      for (let i = 0; ; i++) {
        try {
          // A single INSERT in autocommit: it is committed (durable) when the promise resolves (G1).
          const res = await pool.query<CommandRow>(
            `INSERT INTO ${s}.commands (id, environment, api_key_id, operation_id, method, path, query, body,
               idempotency_key, external_id, lock_key, lock_held, state, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'recorded', $13, $13) RETURNING *`,
            [
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
              c.lockKey !== null,
              c.createdAt,
            ],
          );
          return rowToRecord(res.rows[0], [], false);
        } catch (e) {
          const err = e as PgError;
          if (err.code !== "23505") throw e;
          if (err.constraint === "commands_domain_lock" && c.lockKey !== null) {
            const holder = await lockHolder(c.environment, c.lockKey);
            // The holder finished between our insert and this look-up: the lock is free, try again.
            if (holder === undefined && i < OPTIMISTIC_RETRIES) continue;
            throw new DomainLockedError(c.lockKey, holder ?? "?");
          }
          const existing = err.constraint === "commands_pkey" ? c.id : await keyHolder(c.apiKeyId, c.idempotencyKey);
          throw new DuplicateCommandError(c.apiKeyId, c.idempotencyKey, existing);
        }
      }
    },

    async addAttempt(id, attempt) {
      const a = cleanAttempt(attempt);
      try {
        await inTransaction(pool, async (db) => {
          await db.query(
            `INSERT INTO ${s}.command_attempts (command_id, at, delay_ms, status, error_code, request_id, transport_error, replayed)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
            [
              id,
              a.at,
              a.delayMs,
              a.status ?? null,
              a.errorCode ?? null,
              a.requestId ?? null,
              a.transportError ?? null,
              a.replayed ?? null,
            ],
          );
          await db.query(`UPDATE ${s}.commands SET updated_at = $2 WHERE id = $1`, [id, clock.now()]);
        });
      } catch (e) {
        if ((e as PgError).code === "23503") throw new UnknownCommandError(id);
        throw e;
      }
    },

    async transition(id, to: CommandState, patch) {
      for (let i = 0; i < OPTIMISTIC_RETRIES; i++) {
        const cur = (await pool.query<CommandRow>(`SELECT * FROM ${s}.commands WHERE id = $1`, [id])).rows[0];
        if (!cur) throw new UnknownCommandError(id);
        assertTransition(rowState(cur), to);
        const cols = mutableToColumns(applyPatch(rowToMutable(cur, false), patch));
        // One statement: state, lock release and patch commit together or not at all (G3).
        const res = await pool.query<CommandRow>(
          `UPDATE ${s}.commands SET state = $2, version = version + 1, updated_at = $3,
             lock_held = CASE WHEN $4 THEN false ELSE lock_held END,
             order_uuid = $5, domain_uuid = $6, operation_uuid = $7, response_status = $8,
             response_body = $9::json, reconciliation = $10, manual_check = $11::json
           WHERE id = $1 AND version = $12 RETURNING *`,
          [
            id,
            to,
            clock.now(),
            !holdsLock(to),
            cols.order_uuid,
            cols.domain_uuid,
            cols.operation_uuid,
            cols.response_status,
            cols.response_body,
            cols.reconciliation,
            cols.manual_check,
            cur.version,
          ],
        );
        if (res.rowCount === 1) return (await loadRows(pool, res.rows))[0];
        // Another process moved first: re-read and re-validate against its state.
      }
      throw new Error(`Command ${id} kept changing under transition(); giving up after ${OPTIMISTIC_RETRIES} tries.`);
    },

    async get(id) {
      return (await loadWhere(pool, "id = $1", [id]))[0];
    },
    async findByIdempotencyKey(apiKeyId, idempotencyKey) {
      return (await loadWhere(pool, "api_key_id = $1 AND idempotency_key = $2", [apiKeyId, idempotencyKey]))[0];
    },
    async listByState(states) {
      if (states.length === 0) return [];
      return loadWhere(pool, "state = ANY($1)", [[...states]]);
    },
    async close() {
      if (closed) return;
      closed = true;
      if (ownsPool) await pool.end();
    },
  };
}
