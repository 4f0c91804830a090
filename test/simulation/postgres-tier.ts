/**
 * The simulation's slower tier: the workers share a real PostgreSQL journal (`--journal postgres`).
 * Each run gets its own schema, dropped at its end; every journal call is still a scheduled point,
 * and the scheduler waits for the server's answer before the next step (Scheduler.withIo), so the
 * claims, fences and version checks that run inside PostgreSQL run one at a time, in schedule order.
 */
import pg from "pg";
import type { Journal } from "../../journal";
import { createPgJournal } from "../../stores/pg-journal";
import { startPostgres, type PostgresServer } from "../support/postgres";

/** Where the tier's server is: set by `startTierServer()` (the CLI, the test) for every job process. */
const SIM_PG_ENV = "RESELLER_SIM_PG_URL";

let pool: pg.Pool | undefined;
let schemas = 0;

/** A fresh journal in a new schema of the tier's server; close() drops the schema. */
export async function postgresJournal(clock: { now(): number }): Promise<Journal> {
  const url = process.env[SIM_PG_ENV];
  if (!url)
    throw new Error(
      `the PostgreSQL tier needs a server: run it as \`npm run simulate -- --journal postgres\` (it starts one; \`bash scripts/setup.sh\` installs PostgreSQL), or set ${SIM_PG_ENV}`,
    );
  if (!pool) {
    pool = new pg.Pool({ connectionString: url, max: 4 });
    // The server stops right after the last run: a late admin-shutdown notice is not a failure.
    pool.on("error", () => undefined);
    pool.on("connect", (client) => client.on("error", () => undefined));
  }
  const schema = `sim_${process.pid}_${++schemas}`;
  const journal = await createPgJournal({ pool, schema, clock, reconnectWithinMs: 0 });
  const close = journal.close.bind(journal);
  return Object.assign(journal, {
    async close() {
      await close();
      await pool!.query(`DROP SCHEMA ${schema} CASCADE`);
    },
  });
}

/** Ends this process's pool (after its last run). */
export async function endPostgresTier(): Promise<void> {
  await pool?.end();
  pool = undefined;
}

/** Starts the tier's server unless one is named already; the returned stop() ends what it started. */
export async function startTierServer(): Promise<{ stop(): Promise<void> }> {
  if (process.env[SIM_PG_ENV]) return { stop: async () => undefined };
  const server: PostgresServer = await startPostgres();
  process.env[SIM_PG_ENV] = server.connectionString;
  return {
    async stop() {
      await endPostgresTier();
      Reflect.deleteProperty(process.env, SIM_PG_ENV);
      await server.stop();
    },
  };
}
