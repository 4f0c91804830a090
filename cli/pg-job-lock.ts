/**
 * One job at a time per API key on one PostgreSQL journal (B1, G1). Each CLI process paces its key's
 * window alone, so two jobs on one key exceed it (HTTP 429) and one reconciles what the other is still
 * sending. Several machines share a PostgreSQL journal on purpose, each with its own key — so the
 * lock is per key, not per journal: a session-level advisory lock keyed by the journal's schema, the
 * key and its environment, held on a connection of the job's own for as long as the job runs. A second
 * job on the same key is refused before anything is sent. PostgreSQL frees the lock when that
 * connection ends, so a job killed with -9, or whose machine went away, leaves nothing to clean up.
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
function lockKey(scope: PgJobScope): { key: string; high: string; low: string } {
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

/**
 * Takes the job's lock for `scope` on the journal at `connectionString`, or throws a SetupError that
 * names the job holding it (when PostgreSQL lets this role see it). `label` is the journal as printed
 * (no password); `redact` takes the connection string's secrets out of a driver's message.
 */
export async function lockPgJob(
  connectionString: string,
  label: string,
  scope: PgJobScope,
  redact: (message: string) => string,
): Promise<JournalLock> {
  const { default: driver } = (await import("pg")) as { default: typeof pg };
  const me = `${APP_PREFIX}pid ${process.pid} on ${hostname()}`;
  // application_name is what pg_stat_activity shows other jobs: who holds the key (63 bytes at most).
  const client = new driver.Client({ connectionString, application_name: me.slice(0, 63) });
  // A connection lost mid-job (a database restart) loses the lock with it; the job goes on — its
  // journal reconnects on its own — and the next job simply takes the lock. Never a crash.
  client.on("error", () => undefined);
  const { key, high, low } = lockKey(scope);
  try {
    await client.connect();
    const taken = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS ok", [key]);
    if (!taken.rows[0]?.ok) {
      // A bigint advisory lock shows in pg_locks as classid (high half), objid (low half), objsubid 1.
      const holder = await client
        .query<{ name: string | null; since: Date | null }>(
          `SELECT a.application_name AS name, a.backend_start AS since
             FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
              AND l.classid = $1::bigint::oid AND l.objid = $2::bigint::oid`,
          [high, low],
        )
        .then((r) => r.rows[0])
        .catch(() => undefined);
      const name = holder?.name?.startsWith(APP_PREFIX) ? holder.name.slice(APP_PREFIX.length) : holder?.name;
      const who = name ? `${name}${holder?.since ? `, started ${holder.since.toISOString()}` : ""}` : "another process";
      throw new SetupError(
        `Another reseller job (${who}) is using API key ${scope.apiKeyId} (${scope.environment}) on the journal ${label}; two jobs on one key share its rate limit without pacing together (HTTP 429) and settle each other's commands. Wait for it to finish and re-run, or stop it (Ctrl-C) first; a job on another machine needs its own key. Nothing was sent.`,
      );
    }
  } catch (error) {
    await client.end().catch(() => undefined);
    if (error instanceof SetupError) throw error;
    throw new SetupError(
      `Cannot take the job's lock on the PostgreSQL journal ${label}: ${redact(error instanceof Error ? error.message : String(error))}. Nothing was sent.`,
    );
  }
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      // Ending the session frees its advisory locks (and a process that exits first frees them too).
      void client.end().catch(() => undefined);
    },
  };
}
