/**
 * Riding out a PostgreSQL restart or failover (G1, G4): a journal call made while the database is
 * unreachable waits for it, up to a bound, instead of failing the command at once; past the bound
 * it throws StoreUnavailableError. A statement is repeated only when repeating it cannot write
 * twice: nothing of it was committed (the connection failed first, or the transaction never reached
 * COMMIT), or the caller made it safe to repeat (a read, record() by its fresh id, a guarded move
 * that recognises its own commit).
 */
import type pg from "pg";
import { StoreUnavailableError } from "../core";

/** What the waits run on: the journal's clock when it can sleep, else the real one. */
export interface ReconnectClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export interface ReconnectPolicy {
  /** How long one journal call keeps trying while the database is unreachable, ms (0: never). */
  withinMs: number;
  clock: ReconnectClock;
}

/** Socket-level failures (Node's documented `code`s) and SQLSTATE class 08 / 57P01–57P03 (shutdown, starting up). */
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/** The database is restarting, failing over or unreachable (as opposed to refusing the statement). */
function isUnavailable(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === "string") {
    if (SOCKET_CODES.has(code) || code.startsWith("08")) return true;
    if (code === "57P01" || code === "57P02" || code === "57P03") return true;
  }
  // pg reports a socket closed under a query without a code.
  return (
    typeof message === "string" &&
    /connection terminated|not queryable|timeout exceeded when trying to connect/i.test(message)
  );
}

/** Failures after which the database holds nothing of the statement or transaction. */
const nothingWritten = new WeakSet();
const markNothingWritten = (error: unknown) => {
  if (typeof error === "object" && error !== null) nothingWritten.add(error);
};

/** pool.connect(), its failure marked: a statement that could not get a connection wrote nothing. */
async function connect(pool: pg.Pool): Promise<pg.PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    markNothingWritten(error);
    throw error;
  }
}

/**
 * pool.query() through connect(): a connection broken under the query is dropped from the pool
 * rather than reused.
 */
export async function query<R extends pg.QueryResultRow>(
  pool: pg.Pool,
  text: string,
  values?: unknown[],
): Promise<pg.QueryResult<R>> {
  const client = await connect(pool);
  let failed: unknown;
  try {
    return await client.query<R>(text, wholeMs(values));
  } catch (error) {
    failed = error;
    throw error;
  } finally {
    client.release(isUnavailable(failed) ? (failed as Error) : undefined);
  }
}

/**
 * Every number column of the journal is whole: ms since the epoch, a delay in ms, a count or a status
 * (stores/migrations/pg.ts). A clock or a backoff with a fraction of a ms (a VirtualClock, a
 * `performance.now()`-based clock) would fail as `invalid input syntax for type bigint`: stored whole.
 */
function wholeMs(values: unknown[] | undefined): unknown[] | undefined {
  if (!values?.some((v) => typeof v === "number" && Number.isFinite(v) && !Number.isInteger(v))) return values;
  return values.map((v) => (typeof v === "number" && Number.isFinite(v) ? Math.floor(v) : v));
}

function wholeMsClient(client: pg.PoolClient): pg.PoolClient {
  return new Proxy(client, {
    get(target, name) {
      if (name !== "query") return Reflect.get(target, name) as unknown;
      return (text: string, values?: unknown[]) => target.query(text, wholeMs(values));
    },
  });
}

/** BEGIN … COMMIT on one connection; a failure before COMMIT was sent rolled everything back. */
export async function inTransaction<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await connect(pool);
  let failed: unknown;
  try {
    let out: T;
    try {
      await client.query("BEGIN");
      out = await fn(wholeMsClient(client));
    } catch (error) {
      markNothingWritten(error);
      throw error;
    }
    await client.query("COMMIT"); // a failure here is the one ambiguous case: it may have committed
    return out;
  } catch (error) {
    failed = error;
    if (!isUnavailable(error)) await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release(isUnavailable(failed) ? (failed as Error) : undefined);
  }
}

/**
 * Runs `fn` until it succeeds, fails for another reason than an unreachable database, or
 * `policy.withinMs` has passed. `repeatable`: `fn` is safe to run again even when its last try may
 * have committed (it is told so by `again`); otherwise only a try that wrote nothing is repeated.
 */
export async function withReconnect<T>(
  policy: ReconnectPolicy,
  repeatable: boolean,
  fn: (again: boolean) => Promise<T>,
): Promise<T> {
  const started = policy.clock.now();
  for (let i = 0; ; i++) {
    try {
      return await fn(i > 0);
    } catch (error) {
      if (!isUnavailable(error)) throw error;
      const left = started + policy.withinMs - policy.clock.now();
      if (!(repeatable || nothingWritten.has(error as object)) || left <= 0) {
        // Thrown at a call only before anything was sent: a write after a send becomes the Outcome's journalRace.
        throw new StoreUnavailableError(
          `The PostgreSQL journal is unreachable (${error instanceof Error ? error.message : String(error)})${
            i > 0 ? ` after ${policy.clock.now() - started} ms of retries` : ""
          }. If a call threw this, nothing was sent: call again with the SAME key.`,
          { cause: error },
        );
      }
      await policy.clock.sleep(Math.min(left, 1000, 50 * 2 ** i));
    }
  }
}
