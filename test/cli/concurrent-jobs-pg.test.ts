/**
 * B1/G1 on a PostgreSQL journal, which several machines share on purpose, each with its own key: two
 * jobs on one key would each pace its window alone (HTTP 429) and settle each other's commands. A
 * second job on a key a running job holds is refused before anything is sent (exit code 4, naming the
 * job); a job on another key runs beside it; a job killed with -9 leaves nothing to clean up.
 * A real PostgreSQL and the emulator in its own process, both on loopback.
 */
import { writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type PostgresServer } from "../support/postgres";
import { jobLockKey } from "../../cli/pg-job-lock";
import { cli, jsonLines, runCli, seedDomains, spawnCli, useEmulatorProcess } from "./harness";

// 10 renewals per 3 s: the first job's 100 domains would keep it running 30 s; it is stopped sooner.
const fx = useEmulatorProcess(["--window-ms", "3000", "--rate-limit", "10"], "reseller-cli-concurrent-pg-");
const { tmp, env } = fx;
let server: PostgresServer;
let url: string;

beforeAll(async () => {
  server = await startPostgres();
  const root = new pg.Client({ connectionString: server.connectionString });
  await root.connect();
  await root.query("CREATE DATABASE jobs");
  await root.end();
  url = server.connectionString.replace(/\/postgres$/, "/jobs");
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

const renewed = async () =>
  (await fx.emu.control<{ kind: string; idempotency_key: string | null }[]>("GET", "/effects")).filter(
    (e) => e.kind === "domain.renew",
  );

describe("two jobs on one PostgreSQL journal", () => {
  /** The running job's lock connection, as PostgreSQL shows it (pid of its backend), once it holds the key. */
  const lockHolder = async (db: pg.Client): Promise<number | undefined> => {
    const { high, low } = jobLockKey({ apiKeyId: fx.emu.keyId, environment: "test", schema: "reseller_api" });
    const r = await db.query<{ pid: number; name: string }>(
      `SELECT l.pid, a.application_name AS name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
          AND l.classid = $1::bigint::oid AND l.objid = $2::bigint::oid`,
      [high, low],
    );
    return r.rows.find((row) => row.name.startsWith("reseller job: "))?.pid;
  };
  const until = async <T>(probe: () => Promise<T | undefined>): Promise<T> => {
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it("B1: one job per key: a second is refused (exit 4, names the job, sends nothing), another key runs beside it, a dropped lock connection is taken again, and a job whose key another took meanwhile stops as on Ctrl-C", async () => {
    const a = join(tmp.dir, "a.txt");
    const b = join(tmp.dir, "b.txt");
    writeFileSync(a, (await seedDomains(fx.emu, 100, "pga")).join("\n") + "\n");
    writeFileSync(b, (await seedDomains(fx.emu, 4, "pgb")).join("\n") + "\n");
    const args = (file: string) => ["--journal", url, "--window-ms", "3000", "renew", file];
    const db = new pg.Client({ connectionString: url });
    const other = new pg.Client({ connectionString: url, application_name: "the other job" });
    await db.connect();
    await other.connect();
    try {
      const first = spawnCli(cli(), args(a), env());
      await first.until((_, err) => err.includes('"type":"row"'));
      const refused = async () => {
        const second = await runCli(cli(), args(b), env());
        expect(second.code, second.stderr).toBe(4);
        const error = jsonLines(second.stderr).find((e) => e.type === "error")!;
        expect(error.code).toBe("cli_setup");
        expect(error.message).toContain(`Another reseller job (pid ${first.child.pid} on ${hostname()}, started `);
        expect(error.message).toContain(fx.emu.keyId);
        expect(error.message).not.toContain(url); // the journal as printed: no credentials
        expect(second.stdout).toBe("");
      };
      await refused();

      // Another key (another reseller) on the same journal is not held back.
      const key2 = await fx.emu.control<{ token: string }>("POST", "/keys", {
        environment: "test",
        rate_limit_per_minute: 10,
      });
      const c = join(tmp.dir, "c.txt");
      const expires = new Date(Date.now() + 10 * 86_400_000).toISOString();
      const names = ["pgc001.kz", "pgc002.kz"];
      for (const name of names)
        await fx.emu.control("POST", "/domains", { token: key2.token, name, expires_at: expires });
      writeFileSync(c, names.join("\n") + "\n");
      const beside = await runCli(cli(), args(c), { ...env(), RESELLER_API_TOKEN: key2.token });
      expect(beside.code, beside.stderr).toBe(0);
      expect(jsonLines(beside.stdout).map((r) => r.kind)).toEqual(["done", "done"]);

      // The lock's connection drops (as in a database restart): the job takes its lock again.
      const before = await until(() => lockHolder(db));
      await db.query("SELECT pg_terminate_backend($1)", [before]);
      const again = await until(async () => {
        const now = await lockHolder(db);
        return now !== undefined && now !== before ? now : undefined;
      });
      await refused();

      // This time the other job queues for the key first, so PostgreSQL hands it the lock the moment
      // the connection drops: the first job stops as on Ctrl-C, and says why.
      const { key } = jobLockKey({ apiKeyId: fx.emu.keyId, environment: "test", schema: "reseller_api" });
      const queued = other.query("SELECT pg_advisory_lock($1::bigint)", [key]);
      await until(async () => {
        const r = await db.query("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
        return r.rowCount ? true : undefined;
      });
      await db.query("SELECT pg_terminate_backend($1)", [again]);
      await queued;
      const { code } = await first.exited;
      expect(code, first.stderr()).toBe(130);
      const events = jsonLines(first.stderr());
      const warning = events.find((e) => e.type === "warning");
      expect(warning?.message).toContain("Another reseller job (the other job");
      expect(warning?.message).toContain("took API key");
      expect(events.some((e) => e.type === "interrupt")).toBe(true);
      const rows = jsonLines(first.stdout());
      expect(rows.length).toBeLessThan(100); // it stopped starting rows
      for (const r of rows) expect(["done", "pending"]).toContain(r.kind); // accepted ones wait for the re-run
      expect(jsonLines(first.stderr()).filter((e) => e.type === "rate-limited")).toEqual([]);

      // A dry run is not refused while the other holds the key, but says so before its first request.
      const dry = await runCli(
        cli(),
        ["--journal", url, "--window-ms", "3000", "renew", b, "--dry-run", "--no-quotes"],
        env(),
      );
      expect(dry.code, dry.stderr).toBe(0);
      const dryEvents = jsonLines(dry.stderr);
      const busy = dryEvents.findIndex(
        (e) => e.type === "notice" && String(e.message).startsWith("Another reseller job"),
      );
      expect(busy, dry.stderr).toBeGreaterThanOrEqual(0);
      expect(dryEvents[busy].message).toContain(`Another reseller job (the other job, started `);
      expect(dryEvents[busy].message).toContain(`is using API key ${fx.emu.keyId} (test) on the journal`);
      expect(dryEvents[busy].message).toContain("its requests count against the same key's rate limit");
      expect(dryEvents[busy].message).not.toContain(url); // the journal as printed: no credentials
      expect(busy).toBeLessThan(dryEvents.findIndex((e) => e.type === "context"));

      // Once the other lets go, the key's next job runs; nothing was renewed twice.
      await other.query("SELECT pg_advisory_unlock($1::bigint)", [key]);
      const resumed = await runCli(cli(), ["--journal", url, "--window-ms", "3000", "recover"], env());
      expect(resumed.code, resumed.stderr).toBe(0);
      const after = await runCli(
        cli(),
        ["--journal", url, "--window-ms", "3000", "renew", b, "--dry-run", "--no-quotes"],
        env(),
      );
      expect(after.code, after.stderr).toBe(0);
      expect(after.stderr).not.toContain("Another reseller job");
      const perKey = new Map<string, number>();
      for (const e of await renewed())
        perKey.set(e.idempotency_key ?? "", (perKey.get(e.idempotency_key ?? "") ?? 0) + 1);
      expect([...perKey.values()].filter((n) => n > 1)).toEqual([]);
    } finally {
      await other.end();
      await db.end();
    }
  }, 180_000);

  it("G1: commands that only read never create a journal in an empty database: commands list is refused, a dry run uses an empty in-memory journal", async () => {
    const root = new pg.Client({ connectionString: server.connectionString });
    await root.connect();
    await root.query("CREATE DATABASE empty_journal");
    await root.end();
    const empty = server.connectionString.replace(/\/postgres$/, "/empty_journal");
    const list = await runCli(cli(), ["--journal", empty, "commands", "list"], env());
    expect(list.code, list.stderr).toBe(4);
    expect(list.stderr).toContain("No journal in");
    const file = join(tmp.dir, "dry.txt");
    writeFileSync(file, (await seedDomains(fx.emu, 2, "pge")).join("\n") + "\n");
    const dry = await runCli(cli(), ["--journal", empty, "renew", file, "--dry-run"], env());
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain("holds no journal yet");
    const db = new pg.Client({ connectionString: empty });
    await db.connect();
    const schema = await db.query("SELECT 1 FROM pg_namespace WHERE nspname = 'reseller_api'");
    await db.end();
    expect(schema.rowCount).toBe(0);
  }, 120_000);
});
