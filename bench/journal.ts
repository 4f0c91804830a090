// Journal benches (G1, I5). Import runJournalBench()/reportJournalBench() and
// runRecoveryBench()/reportRecoveryBench() from bench/main.ts; `tsx bench/journal.ts` runs both.
//
// 1. Cost per command, leases on (fleet mode): the journal work the client does for one successful
//    write — record() + ONE addAttempt() that also moves it recorded → sending → succeeded, two
//    commits (it was four: record, sending, attempt, succeeded) — median/p95 µs over N commands,
//    memory vs SQLite (temp file, WAL) with synchronous=NORMAL (survives a killed process) and
//    synchronous=FULL (also survives a power cut: every commit fsynced, G1) one command at a time
//    and 16 in flight (group commit: commits ready together share one fsync; the target is on wall
//    time ÷ commands), one raw fsync of this disk as the floor, and PostgreSQL (information).
// 2. Recovery: recover() of 1,000 pending commands (200 orders mid-flight that the server had
//    created → found by external_id; 800 accepted nameserver changes whose operations completed →
//    polled; the mix keeps within the emulator's starting balance),
//    SQLite journal (synchronous=NORMAL unless asked otherwise), the in-process emulator on a
//    VirtualClock (pacing waits cost no wall time).
//    "Local work" = wall time of recover() minus the time spent inside the emulator's handler
//    (measured around every emulator.fetch); it includes the SQLite reads/writes, the client
//    pipeline (validation, pacer, classification, outcome), JSON parsing and recover()'s own logic.
//    It is split into journalMs (time during which at least one Journal call was pending, timed by
//    a proxy until its promise settles) and clientMs (the rest); the journal calls are counted per
//    method so wasteful patterns show. recover()'s own moves are redoable writes (committed, not
//    waited for on the disk; the next recover() redoes a lost one), so FULL costs what NORMAL does.
//    Leases on: recover() claims the batch under the worker's lease and every move is fenced.
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createEmulator } from "../emulator/public";
import { VirtualClock } from "../src/index";
import { createResellerClient } from "../src/index";
import { createMemoryJournal } from "../stores/memory-journal";
import { DEFAULT_SQLITE_SYNCHRONOUS, createSqliteJournal } from "../stores/sqlite-journal";
import { createPgJournal } from "../stores/pg-journal";
import type { Journal, NewCommand } from "../src/index";
import { startPostgres } from "../test/support/postgres";
import { percentile } from "./lib/stats";
import { printTable } from "./lib/table";
import { writeResult } from "./lib/results";
import { runWhenDirect } from "./lib/direct";
import { createHash } from "node:crypto";
import Database from "better-sqlite3";

/** A fingerprint-shaped value (64 hex) for the bench's rows: the journal stores it, the cost is the same. */
function fingerprintSync(method: string, path: string, query: string, body: Uint8Array | null): string {
  return createHash("sha256")
    .update(`${method}\n${path}${query}\n`)
    .update(body ?? new Uint8Array())
    .digest("hex");
}

export interface JournalBenchRow {
  store: string;
  commands: number;
  median_us: number;
  p95_us: number;
  /** median ÷ the memory store's median, same run. */
  vs_memory: number;
  target: string;
  /** Concurrent rows: wall time ÷ commands (the journal's throughput cost per command). */
  wall_per_command_us?: number;
}

/** What one fsync costs on this disk, measured in the same run: the floor of a FULL commit. */
function fsyncProbe(file: string, n = 200): number[] {
  const fd = openSync(file, "w");
  const block = Buffer.alloc(4096, 1);
  const out: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      writeSync(fd, block, 0, block.length, 0);
      fdatasyncSync(fd);
      out.push((performance.now() - t) * 1000);
    }
  } finally {
    closeSync(fd);
  }
  return out;
}

const BODY = new TextEncoder().encode('{"period":1}');

function command(i: number, run: string): NewCommand {
  return {
    id: crypto.randomUUID(),
    environment: "test",
    apiKeyId: "BENCHKEYBENCHKEYBENCHKEY",
    operationId: "domains.renew",
    method: "POST",
    path: `/domains/00000000-0000-4000-8000-${String(i).padStart(12, "0")}/renew`,
    query: "",
    body: BODY,
    fingerprint: fingerprintSync(
      "POST",
      `/domains/00000000-0000-4000-8000-${String(i).padStart(12, "0")}/renew`,
      "",
      BODY,
    ),
    idempotencyKey: `${run}-${i}`,
    externalId: null,
    lockKey: `domain:${run}-${i}`,
    createdAt: Date.now(),
  };
}

/** The lease every benched write carries (fleet mode), so the cost includes the fencing. */
const LEASE = { owner: "bench-worker", leaseMs: 30_000 };

/**
 * What the client writes for a command that succeeds first time: record() (durable before the
 * send, G1) and ONE addAttempt() that also moves recorded → sending → succeeded — two commits.
 */
async function oneCommand(journal: Journal, c: NewCommand, i: number): Promise<void> {
  await journal.record(c, LEASE);
  await journal.addAttempt(
    c.id,
    { at: Date.now(), delayMs: 0, status: 200, requestId: `req-${i}` },
    {
      to: "succeeded",
      patch: { response: { status: 200, body: { data: { uuid: c.id } } }, resources: { operationUuid: c.id } },
    },
    LEASE,
  );
}

/**
 * The first `warmup` commands are not measured: a long-running client's journal code is optimised by
 * the JIT, and 2,000 cold commands measure the JIT as much as the store (the memory store takes
 * 70–90 µs per command cold and ≈ 25 µs warm).
 */
async function measure(journal: Journal, n: number, run: string, warmup = WARMUP): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n + warmup; i++) {
    const c = command(i, run);
    const t0 = performance.now();
    await oneCommand(journal, c, i);
    const dt = (performance.now() - t0) * 1000;
    if (i >= warmup) times.push(dt);
  }
  return times;
}

const WARMUP = 2000;

/**
 * The floor under the SQLite rows: SQLite itself doing the same two commits (an INSERT of the
 * command; then the attempt's INSERT and the UPDATE to succeeded) on the journal's own schema and pragmas, through
 * better-sqlite3 with no journal code — what the indexes the journal's queries need cost.
 */
async function sqliteFloor(dir: string, n: number): Promise<number[]> {
  const schemaFile = join(dir, "floor-schema.db");
  const schema = createSqliteJournal({ filename: schemaFile, synchronous: "normal" });
  await schema.close();
  const source = new Database(schemaFile, { readonly: true });
  const ddl = source
    .prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND type IN ('table', 'index') ORDER BY rowid")
    .all() as { sql: string }[];
  source.close();
  const db = new Database(join(dir, "floor.db"));
  try {
    db.pragma("auto_vacuum = INCREMENTAL");
    db.pragma("secure_delete = ON");
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    for (const { sql } of ddl) db.exec(sql);
    const insert = db.prepare(
      `INSERT INTO commands (id, environment, api_key_id, operation_id, method, path, query, body, fingerprint,
        idempotency_key, lock_key, lock_held, state, created_at, updated_at)
       VALUES (?, 'test', 'BENCHKEYBENCHKEYBENCHKEY', 'domains.renew', 'POST', ?, '', ?, ?, ?, ?, 1, 'recorded', ?, ?)`,
    );
    db.pragma("foreign_keys = ON");
    const attempt = db.prepare(
      "INSERT INTO command_attempts (command_id, seq, at, delay_ms, status, request_id) VALUES (?, 1, ?, 0, 200, ?)",
    );
    const settle = db.prepare(
      "UPDATE commands SET state = 'succeeded', lock_held = 0, updated_at = ?, response_status = 200, response_body = ? WHERE id = ?",
    );
    const times: number[] = [];
    for (let i = 0; i < n + WARMUP; i++) {
      const c = command(i, "floor");
      const t0 = performance.now();
      db.transaction(() =>
        insert.run(
          c.id,
          c.path,
          Buffer.from(c.body!),
          c.fingerprint,
          c.idempotencyKey,
          c.lockKey,
          c.createdAt,
          c.createdAt,
        ),
      )();
      db.transaction(() => {
        attempt.run(c.id, Date.now(), `req-${i}`);
        settle.run(Date.now(), '{"data":{}}', c.id);
      })();
      if (i >= WARMUP) times.push((performance.now() - t0) * 1000);
    }
    return times;
  } finally {
    db.close();
  }
}

/**
 * `concurrency` commands in flight at once (as a busy client has them): each one's own latency,
 * and the journal's throughput as wall time ÷ commands — under FULL their commits share fsyncs.
 */
async function measureConcurrent(journal: Journal, n: number, run: string, concurrency: number) {
  const times: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const c = command(i, run);
        const t = performance.now();
        await oneCommand(journal, c, i);
        times.push((performance.now() - t) * 1000);
      }
    }),
  );
  return { times, wallPerCommandUs: ((performance.now() - t0) * 1000) / n };
}

export async function runJournalBench(
  options: { commands?: number; postgres?: boolean } = {},
): Promise<JournalBenchRow[]> {
  const n = options.commands ?? 2000;
  const dir = mkdtempSync(join(tmpdir(), "reseller-journal-bench-"));
  const rows: JournalBenchRow[] = [];
  try {
    const mem = await measure(createMemoryJournal(), n, "mem");
    const memMedian = percentile(mem, 50);
    const row = (store: string, t: number[], target: string): JournalBenchRow => ({
      store,
      commands: t.length,
      median_us: percentile(t, 50),
      p95_us: percentile(t, 95),
      vs_memory: percentile(t, 50) / memMedian,
      target,
    });
    rows.push(row("memory", mem, "baseline"));
    const dflt = DEFAULT_SQLITE_SYNCHRONOUS;
    // WAL + NORMAL survives a killed process (the crash test's failure), not a power cut: no fsync per commit.
    const normal = createSqliteJournal({ filename: join(dir, "bench-normal.db"), synchronous: "normal" });
    rows.push(
      row(
        `sqlite (WAL, synchronous=NORMAL${dflt === "normal" ? ": default" : ""})`,
        await measure(normal, n, "sqlite-normal"),
        "median ≤ 100 µs",
      ),
    );
    await normal.close();
    rows.push(
      row(
        "SQLite alone: the same two commits on the journal's schema (floor)",
        await sqliteFloor(dir, n),
        "information",
      ),
    );
    // WAL + FULL: every commit fsynced, so it also survives a power cut; the cost is the disk's fsync.
    const full = createSqliteJournal({ filename: join(dir, "bench-full.db"), synchronous: "full" });
    const fullLabel = `sqlite (WAL, synchronous=FULL${dflt === "full" ? ": default" : ""})`;
    rows.push(
      row(
        `${fullLabel}, one command at a time`,
        await measure(full, Math.min(n, 500), "sqlite-full", 200),
        "information (2 fsyncs per command)",
      ),
    );
    // 16 in flight: group commit lets the commits that are ready together share one fsync.
    const conc = await measureConcurrent(full, n, "sqlite-full-16", 16);
    rows.push({
      ...row(`${fullLabel}, 16 in flight`, conc.times, "wall ÷ commands ≤ 500 µs"),
      wall_per_command_us: conc.wallPerCommandUs,
    });
    await full.close();
    const fsync = fsyncProbe(join(dir, "fsync.bin"));
    rows.push({
      store: "this disk: one fsync (write 4 KiB + fdatasync)",
      commands: fsync.length,
      median_us: percentile(fsync, 50),
      p95_us: percentile(fsync, 95),
      vs_memory: percentile(fsync, 50) / memMedian,
      target: "information",
    });
    if (options.postgres !== false) {
      const server = await startPostgres();
      try {
        const pgJournal = await createPgJournal({ connectionString: server.connectionString });
        rows.push(
          row("postgres (local, fsync off)", await measure(pgJournal, Math.min(n, 1000), "pg", 200), "information"),
        );
        await pgJournal.close();
      } finally {
        await server.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

export async function reportJournalBench(rows: JournalBenchRow[]): Promise<string> {
  printTable(
    rows.map((r) => ({
      ...r,
      median_us: Math.round(r.median_us),
      p95_us: Math.round(r.p95_us),
      vs_memory: Number(r.vs_memory.toFixed(1)),
      wall_per_command_us: r.wall_per_command_us === undefined ? "" : Math.round(r.wall_per_command_us),
    })),
    { title: "journal cost per command, leases on: record + addAttempt(→ sending → succeeded), two commits" },
  );
  return writeResult("journal", rows);
}

export interface RecoveryBenchResult {
  journal: string;
  commands: number;
  wallMs: number;
  emulatorMs: number;
  localWorkMs: number;
  /** Of localWorkMs: time inside journal calls (SQLite reads/writes and commits). */
  journalMs: number;
  /** localWorkMs − journalMs: the client pipeline, JSON parsing and recover()'s own logic. */
  clientMs: number;
  /** Journal calls made by recover(), per method with their summed latency (e.g. "claim ×1 12 ms, …"). */
  journalCalls: string;
  cpuMs: number;
  requests: number;
  resolved: number;
  manual: number;
  stillPending: number;
  target: string;
}

export async function runRecoveryBench(
  options: { commands?: number; synchronous?: "full" | "normal" } = {},
): Promise<RecoveryBenchResult> {
  const synchronous = options.synchronous ?? "normal";
  const n = options.commands ?? 1000;
  const dir = mkdtempSync(join(tmpdir(), "reseller-recovery-bench-"));
  const clock = new VirtualClock();
  const emulator = createEmulator({
    clock,
    defaultRateLimit: 10_000,
    operationPolicy: { pendingMs: 100, processingMs: 100 },
  });
  const key = emulator.control.createKey({ environment: "test", rate_limit_per_minute: 10_000 });
  const file = join(dir, "recover.db");
  const setup = createSqliteJournal({ filename: file, synchronous });
  const opened = [setup];
  const base = "http://127.0.0.1/api/reseller/v1";
  try {
    // Leave n commands exactly where a killed process would: half orders mid-flight (committed on
    // the server), half renews accepted with their operation UUID.
    for (let i = 0; i < n; i++) {
      const isOrder = i % 5 === 0;
      const domain = isOrder ? null : emulator.control.createDomain({ token: key.token, name: `rb${i}.kz` });
      const body = isOrder
        ? JSON.stringify({ external_id: `rb-ext-${i}`, action: "register", domain: `rbo${i}.com.kz`, period: 1 })
        : JSON.stringify({ nameservers: [`ns1.rb${i}.kz`, `ns2.rb${i}.kz`] });
      const path = isOrder ? "/orders" : `/domains/${domain!.uuid}/nameservers`;
      const idem = `rb-${i}`;
      const rec = await setup.record({
        id: crypto.randomUUID(),
        environment: "test",
        apiKeyId: key.public_key_id,
        operationId: isOrder ? "orders.create" : "domains.setNameservers",
        method: isOrder ? "POST" : "PUT",
        path,
        query: "",
        body: new TextEncoder().encode(body),
        fingerprint: fingerprintSync(isOrder ? "POST" : "PUT", path, "", new TextEncoder().encode(body)),
        idempotencyKey: idem,
        externalId: isOrder ? `rb-ext-${i}` : null,
        lockKey: null,
        createdAt: clock.now(),
      });
      await setup.transition(rec.id, "sending");
      const res = await emulator.fetch(`${base}${path}`, {
        method: isOrder ? "POST" : "PUT",
        headers: { authorization: `Bearer ${key.token}`, "idempotency-key": idem, "content-type": "application/json" },
        body,
      });
      const data = (await res.json()) as { data: { uuid: string } };
      if (res.status >= 300) throw new Error(`setup ${path}: ${res.status} ${JSON.stringify(data)}`);
      if (!isOrder) {
        await setup.transition(rec.id, "accepted", {
          resources: { operationUuid: data.data.uuid, domainUuid: domain!.uuid },
        });
      }
    }
    clock.advance(10_000); // every operation has completed by now
    // recover() runs in a restarted process: a fresh handle on the same file (nothing cached).
    await setup.close();
    const journal = createSqliteJournal({ filename: file, synchronous });
    opened.push(journal);
    let emulatorMs = 0;
    let requests = 0;
    // The journal's share: the union of the intervals during which a journal call was pending.
    let journalMs = 0;
    let pendingCalls = 0;
    let busySince = 0;
    const calls = new Map<string, { n: number; ms: number }>();
    const timed = new Proxy(journal, {
      get(target, prop, receiver) {
        const v: unknown = Reflect.get(target, prop, receiver);
        if (typeof v !== "function" || prop === "close") return v;
        return (...args: unknown[]) => {
          const c = calls.get(String(prop)) ?? { n: 0, ms: 0 };
          calls.set(String(prop), c);
          const t = performance.now();
          if (pendingCalls++ === 0) busySince = t;
          const done = () => {
            const now = performance.now();
            c.n += 1;
            c.ms += now - t;
            if (--pendingCalls === 0) journalMs += now - busySince;
          };
          const p = (v as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          p.then(done, done);
          return p;
        };
      },
    });
    const client = createResellerClient({
      baseUrl: base,
      token: key.token,
      journal: timed,
      clock,
      pacing: { initialLimit: 10_000 },
      fleet: { workerId: "bench-recoverer" }, // leases on: claim + fenced moves
      fetch: async (request) => {
        requests += 1;
        const t0 = performance.now();
        const res = await emulator.fetch(request);
        const bytes = await res.arrayBuffer(); // the emulator's body work counts as the emulator's
        emulatorMs += performance.now() - t0;
        return new Response(bytes, { status: res.status, headers: res.headers });
      },
    });
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const summary = await client.recover({ concurrency: 8 });
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    await client.close();
    return {
      journal: `sqlite synchronous=${synchronous.toUpperCase()}`,
      commands: n,
      wallMs,
      emulatorMs,
      localWorkMs: wallMs - emulatorMs,
      journalMs,
      clientMs: wallMs - emulatorMs - journalMs,
      journalCalls: [...calls].map(([k, c]) => `${k} ×${c.n} ${Math.round(c.ms)} ms`).join(", "),
      cpuMs: (cpu.user + cpu.system) / 1000,
      requests,
      resolved: summary.resolved.length,
      manual: summary.manual.length,
      stillPending: summary.stillPending.length,
      target: "local work ≤ 1000 ms",
    };
  } finally {
    for (const j of opened) await j.close();
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function reportRecoveryBench(results: RecoveryBenchResult[]): Promise<string> {
  printTable(
    results.map((result) => ({
      ...result,
      wallMs: Math.round(result.wallMs),
      emulatorMs: Math.round(result.emulatorMs),
      localWorkMs: Math.round(result.localWorkMs),
      journalMs: Math.round(result.journalMs),
      clientMs: Math.round(result.clientMs),
      cpuMs: Math.round(result.cpuMs),
    })),
    { title: "recover() of pending commands (SQLite journal, in-process emulator, VirtualClock)" },
  );
  return writeResult("recovery", results);
}

runWhenDirect("journal", async () => {
  const rows = await runJournalBench({ postgres: !process.argv.includes("--no-postgres") });
  process.stderr.write(`wrote ${await reportJournalBench(rows)}\n`);
  const recs = [await runRecoveryBench({ synchronous: "normal" }), await runRecoveryBench({ synchronous: "full" })];
  process.stderr.write(`wrote ${await reportRecoveryBench(recs)}\n`);
  return true; // the targets are judged in bench/main.ts's summary
});
