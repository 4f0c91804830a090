/**
 * One job at a time per API key on one PostgreSQL journal (B1, G1). Each CLI process paces its key's
 * window alone, so two jobs on one key exceed it (HTTP 429) and one reconciles what the other is still
 * sending. Several machines share a PostgreSQL journal on purpose, each with its own key — so the
 * lock is per key, not per journal: a session-level advisory lock keyed by the journal's schema, the
 * key and its environment, held on a connection of the job's own for as long as the job runs. A second
 * job on the same key is refused before anything is sent. PostgreSQL frees the lock when that
 * connection ends, so a job killed with -9, or whose machine went away, leaves nothing to clean up.
 * Also here: whether a PostgreSQL database holds a journal at all, for commands that must not create one.
 */
import { createHash } from "node:crypto";
import { hostname } from "node:os";
import type pg from "pg";
import { SetupError } from "./errors";
import type { JournalLock } from "./journal-lock";

/** How a job's lock connection names itself in pg_stat_activity (what a refused job prints). */
const APP_PREFIX = "reseller job: ";

export interface PgJobScope {
  apiKeyId: string;
  environment: string;
  /** The journal's schema (the CLI's journals use the store's default). */
  schema: string;
}

/** The advisory lock's bigint key, and its halves as pg_locks shows them (classid high, objid low). */
export function jobLockKey(scope: PgJobScope): { key: string; high: string; low: string } {
  const digest = createHash("sha256")
    .update(`reseller-api job\0${scope.schema}\0${scope.environment}\0${scope.apiKeyId}`)
    .digest();
  const unsigned = digest.readBigUInt64BE(0);
  return {
    key: BigInt.asIntN(64, unsigned).toString(),
    high: (unsigned >> 32n).toString(),
    low: (unsigned & 0xffffffffn).toString(),
  };
}

/** Emitted on the process when another job took this job's key: interrupt.ts treats it as the first Ctrl-C. */
export const JOB_LOCK_LOST = "reseller:job-lock-lost";

/** How often a job whose lock connection went away (a database restart) asks for its lock again, ms. */
const RETAKE_EVERY_MS = 1000;

type Taken = { client: pg.Client } | { holder: string };

/**
 * Takes the job's lock for `scope` on the journal at `connectionString`, or throws a SetupError that
 * names the job holding it (when PostgreSQL lets this role see it). `label` is the journal as printed
 * (no password); `redact` takes the connection string's secrets out of a driver's message.
 *
 * A lock connection that goes away mid-job (a database restart, a failover) takes the lock with it:
 * the job asks for it again every second until it has it, so a job started after the database is
 * back is refused as before. If another job got it first, this one is told as on Ctrl-C — no new
 * rows start, the ones in flight settle, it exits 130 — with a warning saying why (B1).
 */
export async function lockPgJob(
  connectionString: string,
  label: string,
  scope: PgJobScope,
  redact: (message: string) => string,
): Promise<JournalLock> {
  const { default: driver } = (await import("pg")) as { default: typeof pg };
  const me = `${APP_PREFIX}pid ${process.pid} on ${hostname()}`;
  const lockKey = jobLockKey(scope);
  let held = true;
  let client: pg.Client;

  const take = async (): Promise<Taken> => {
    // application_name is what pg_stat_activity shows other jobs: who holds the key (63 bytes at most).
    const c = new driver.Client({ connectionString, application_name: me.slice(0, 63) });
    c.on("error", () => undefined); // a lost connection is seen as its `end`, below: never a crash
    try {
      await c.connect();
      const taken = await c.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS ok", [lockKey.key]);
      if (taken.rows[0]?.ok) return { client: c };
      const holder = await holderOf(c, lockKey);
      await c.end().catch(() => undefined);
      return { holder };
    } catch (error) {
      await c.end().catch(() => undefined);
      throw error;
    }
  };
  const watch = (c: pg.Client) => {
    c.once("end", () => {
      if (held && c === client) void retake();
    });
  };
  const retake = async (): Promise<void> => {
    while (held) {
      await new Promise((resolve) => setTimeout(resolve, RETAKE_EVERY_MS).unref());
      if (!held) return;
      let taken: Taken;
      try {
        taken = await take();
      } catch {
        continue; // the database is not back yet
      }
      if ("client" in taken) {
        if (!held) return void taken.client.end().catch(() => undefined);
        client = taken.client;
        watch(client);
        return;
      }
      process.emitWarning(
        `Another reseller job (${taken.holder}) took API key ${scope.apiKeyId} (${scope.environment}) on the journal ${label} while this job's connection to it was down: this job starts no new rows, lets the ones in flight settle and exits. Re-run it once the other job is done; nothing is lost.`,
        "JobLockLost",
      );
      (process as NodeJS.EventEmitter).emit(JOB_LOCK_LOST);
      return;
    }
  };

  let first: Taken;
  try {
    first = await take();
  } catch (error) {
    throw new SetupError(
      `Cannot take the job's lock on the PostgreSQL journal ${label}: ${redact(error instanceof Error ? error.message : String(error))}. Nothing was sent.`,
    );
  }
  if ("holder" in first)
    throw new SetupError(
      `Another reseller job (${first.holder}) is using API key ${scope.apiKeyId} (${scope.environment}) on the journal ${label}; two jobs on one key share its rate limit without pacing together (HTTP 429) and settle each other's commands. Wait for it to finish and re-run, or stop it (Ctrl-C) first; a job on another machine needs its own key. Nothing was sent.`,
    );
  client = first.client;
  watch(client);
  return {
    release() {
      if (!held) return;
      held = false;
      // Ending the session frees its advisory locks (and a process that exits first frees them too).
      void client.end().catch(() => undefined);
    },
  };
}

/** Who holds the key's lock, as its connection names itself; "another process" when this role may not see it. */
async function holderOf(c: pg.Client, lockKey: { high: string; low: string }): Promise<string> {
  return (await findHolder(c, lockKey)) ?? "another process";
}

/** The holder of the key's lock as holderOf names it, or undefined when nobody holds it. */
async function findHolder(c: pg.Client, { high, low }: { high: string; low: string }): Promise<string | undefined> {
  // A bigint advisory lock shows in pg_locks as classid (high half), objid (low half), objsubid 1.
  const holder = await c
    .query<{ name: string | null; since: Date | null }>(
      `SELECT a.application_name AS name, a.backend_start AS since
         FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
          AND l.classid = $1::bigint::oid AND l.objid = $2::bigint::oid`,
      [high, low],
    )
    .then((r) => r.rows[0])
    .catch(() => undefined);
  if (!holder) return undefined;
  const name = holder.name?.startsWith(APP_PREFIX) ? holder.name.slice(APP_PREFIX.length) : holder.name;
  return name ? `${name}${holder.since ? `, started ${holder.since.toISOString()}` : ""}` : "another process";
}

/**
 * Who runs a job on `scope`'s key right now, or undefined: a dry run is not refused (it takes no
 * lock), but it says so, because its requests share the key's window with that job (C3).
 */
export async function pgJobHolder(connectionString: string, scope: PgJobScope): Promise<string | undefined> {
  const { default: driver } = (await import("pg")) as { default: typeof pg };
  const c = new driver.Client({ connectionString });
  c.on("error", () => undefined);
  try {
    await c.connect();
    return await findHolder(c, jobLockKey(scope));
  } finally {
    await c.end().catch(() => undefined);
  }
}

/**
 * Whether the database at `connectionString` holds a journal in `schema` (its migrations table):
 * commands that only read must not create one in an empty or mistyped database.
 */
export async function pgJournalExists(connectionString: string, schema: string): Promise<boolean> {
  const { default: driver } = (await import("pg")) as { default: typeof pg };
  const c = new driver.Client({ connectionString });
  c.on("error", () => undefined);
  try {
    await c.connect();
    const found = await c.query<{ ok: boolean }>("SELECT to_regclass($1) IS NOT NULL AS ok", [
      `"${schema}".schema_migrations`,
    ]);
    return found.rows[0]?.ok;
  } finally {
    await c.end().catch(() => undefined);
  }
}
