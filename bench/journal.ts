// Journal benches (G1, I5). Import runJournalBench()/reportJournalBench() and
// runRecoveryBench()/reportRecoveryBench() from bench/main.ts; `tsx bench/journal.ts` runs both.
//
// 1. Overhead per command: the journal work the client does for one successful write —
//    record() + transition(sending) + addAttempt() + transition(succeeded) — median/p95 µs over N
//    commands, memory vs SQLite (temp file, WAL) with synchronous=NORMAL (survives a killed
//    process; the target applies here) and synchronous=FULL (also survives a power cut: every
//    commit fsynced, G1) and PostgreSQL (real local server, fsync off in the harness; information).
// 2. Recovery: recover() of 1,000 pending commands (200 orders mid-flight that the server had
//    created → found by external_id; 800 accepted nameserver changes whose operations completed →
//    polled; the mix keeps within the emulator's starting balance),
//    SQLite journal (synchronous=NORMAL unless asked otherwise), the in-process emulator on a
//    VirtualClock (pacing waits cost no wall time).
//    "Local work" = wall time of recover() minus the time spent inside the emulator's handler
//    (measured around every emulator.fetch); it includes the SQLite reads/writes, the client
//    pipeline (validation, pacer, classification, outcome), JSON parsing and recover()'s own logic.
//    It is split into journalMs (inside Journal calls, timed by a proxy) and clientMs (the rest),
//    and the journal calls are counted per method so wasteful access patterns show.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createEmulator } from "../emulator/index";
import { VirtualClock } from "../runtime/clock";
import { createResellerClient } from "../src/client";
import { createMemoryJournal } from "../stores/memory-journal";
import { DEFAULT_SQLITE_SYNCHRONOUS, createSqliteJournal } from "../stores/sqlite-journal";
import { createPgJournal } from "../stores/pg-journal";
import type { Journal, NewCommand } from "../journal";
import { startPostgres } from "../test/support/postgres";
import { percentile } from "./lib/stats";
import { printTable } from "./lib/table";
import { writeResult } from "./lib/results";
import { runWhenDirect } from "./lib/direct";

export interface JournalBenchRow {
  store: string;
  commands: number;
  median_us: number;
  p95_us: number;
  /** median ÷ the memory store's median, same run. */
  vs_memory: number;
  target: string;
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
    idempotencyKey: `${run}-${i}`,
    externalId: null,
    lockKey: `domain:${run}-${i}`,
    createdAt: Date.now(),
  };
}

async function measure(journal: Journal, n: number, run: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n + 50; i++) {
    const c = command(i, run);
    const t0 = performance.now();
    await journal.record(c);
    await journal.transition(c.id, "sending");
    await journal.addAttempt(c.id, { at: Date.now(), delayMs: 0, status: 200, requestId: `req-${i}` });
    await journal.transition(c.id, "succeeded", {
      response: { status: 200, body: { data: { uuid: c.id } } },
      resources: { operationUuid: c.id },
    });
    const dt = (performance.now() - t0) * 1000;
    if (i >= 50) times.push(dt); // the first 50 warm up JIT and prepared statements
  }
  return times;
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
    // WAL + FULL: every commit fsynced, so it also survives a power cut; the cost is the disk's fsync.
    const full = createSqliteJournal({ filename: join(dir, "bench-full.db"), synchronous: "full" });
    rows.push(
      row(
        `sqlite (WAL, synchronous=FULL${dflt === "full" ? ": default" : ""})`,
        await measure(full, n, "sqlite-full"),
        "information (fsync-bound)",
      ),
    );
    await full.close();
    if (options.postgres !== false) {
      const server = await startPostgres();
      try {
        const pgJournal = await createPgJournal({ connectionString: server.connectionString });
        rows.push(row("postgres (local, fsync off)", await measure(pgJournal, Math.min(n, 1000), "pg"), "information"));
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
    })),
    { title: "journal overhead per command: record + transition(sending) + addAttempt + transition(succeeded)" },
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
  /** Journal calls made by recover(), per method with their time (e.g. "listByState ×1 12 ms, …"). */
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
    // The journal's share (SQLite is synchronous: its calls never overlap, so the sum is wall time).
    let journalMs = 0;
    const calls = new Map<string, { n: number; ms: number }>();
    const timed = new Proxy(journal, {
      get(target, prop, receiver) {
        const v: unknown = Reflect.get(target, prop, receiver);
        if (typeof v !== "function" || prop === "close") return v;
        // better-sqlite3 is synchronous: the whole call (statements, commit) runs before the
        // promise is returned, so timing the call itself — not the await, which also covers other
        // workers' microtasks at concurrency 8 — is the journal's own time.
        return (...args: unknown[]) => {
          const c = calls.get(String(prop)) ?? { n: 0, ms: 0 };
          calls.set(String(prop), c);
          const t = performance.now();
          try {
            return (v as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          } finally {
            const dt = performance.now() - t;
            c.n += 1;
            c.ms += dt;
            journalMs += dt;
          }
        };
      },
    });
    const client = createResellerClient({
      baseUrl: base,
      token: key.token,
      journal: timed,
      clock,
      pacing: { initialLimit: 10_000 },
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
