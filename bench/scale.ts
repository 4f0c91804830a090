// `npm run bench -- scale` (issue 27): a year of history — every cost grows with the job, not with
// the journal. For memory, SQLite and PostgreSQL journals filled through the public Journal API with
// 10k and 100k settled commands (1M with `--1m`, time-bounded by SCALE_FILL_BUDGET_S, default 900 s
// per store), each figure against the empty journal of the same store in the same run:
//  - journal µs per command (record + the settling attempt), recover() of 1,000 unsettled;
//  - SQLite/PostgreSQL: the built CLI's 2,000-line `renew FILE --dry-run --no-quotes` total time, time
//    to its first row, peak RSS, and `commands show <key>`;
//  - the journal's size per 1,000 commands, before and after prune() with 30 days' retention and
//    after pruning everything settled (SQLite: file + WAL; PostgreSQL: tables + indexes, after VACUUM);
//  - a 10-line `renew FILE` on a 100k-domain emulator account: time to its first renewal.
// Without `--1m` the 1M row is extrapolated by a power law through the 10k and 100k points
// (y = a·N^b, never below the 100k value), and the table says so.
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { Journal } from "../src/index";
import { createMemoryJournal } from "../stores/memory-journal";
import { createPgJournal } from "../stores/pg-journal";
import { createSqliteJournal } from "../stores/sqlite-journal";
import { startPostgres, type PostgresServer } from "../test/support/postgres";
import { printTable, writeResult } from "./lib";
import { runWhenDirect } from "./lib/direct";
import { buildCli, firstRenewalMs, jobAccount } from "./scale-cli";
import { commandTimesUs, fillHistory, historyClock, recoverThousand, renewalCommand } from "./scale-history";
import { measurePair, ROUNDS, type RatioFigure, type ScaleRow } from "./scale-pair";

const DAY = 86_400_000;

export interface SizeRow {
  store: string;
  commands: number;
  perThousandKiB: number;
  after30dKiB: number;
  afterAllKiB: number;
  pruned30d: number;
}

export interface ScaleResult {
  rows: ScaleRow[];
  sizes: SizeRow[];
  firstRenewalMs: number;
  fillNote: string;
}

interface Subject {
  name: string;
  journal: Journal;
  /** The CLI's --journal value (none for memory). */
  cliJournal?: string;
  /**
   * Rows `from`…`to` as SQL copies of the history the API wrote (new ids, keys, lock keys, times),
   * for a store whose API fill cannot reach the size within the budget on this machine.
   */
  clone?(from: number, to: number, o: { total: number; endAt: number }): Promise<number>;
  /** Bytes on disk now (after a checkpoint/VACUUM as the store needs). */
  bytes?(): Promise<number>;
  close(): Promise<void>;
}

async function sqliteSubject(filename: string, clock: ReturnType<typeof historyClock>): Promise<Subject> {
  // NORMAL: the history-dependent cost without this disk's fsync (bench/journal.ts measures FULL).
  const journal = createSqliteJournal({ filename, synchronous: "normal", clock });
  const size = (f: string) => (existsSync(f) ? statSync(f).size : 0);
  return {
    name: "sqlite",
    journal,
    cliJournal: filename,
    bytes() {
      journal.database.pragma("wal_checkpoint(TRUNCATE)");
      journal.database.pragma("incremental_vacuum");
      journal.database.pragma("wal_checkpoint(TRUNCATE)");
      return Promise.resolve(size(filename) + size(`${filename}-wal`));
    },
    close: () => journal.close(),
  };
}

/** A journal in its own database `db` (the CLI's --journal URL names the database, not a schema). */
async function pgSubject(server: PostgresServer, db: string, clock: ReturnType<typeof historyClock>): Promise<Subject> {
  const root = new pg.Client({ connectionString: server.connectionString });
  await root.connect();
  await root.query(`CREATE DATABASE ${db}`);
  await root.end();
  const connectionString = server.connectionString.replace(/\/postgres$/, `/${db}`);
  const journal = await createPgJournal({ connectionString, clock });
  const admin = new pg.Client({ connectionString });
  await admin.connect();
  return {
    name: "postgres",
    journal,
    cliJournal: connectionString,
    async clone(from, to, o) {
      const cols =
        "environment, api_key_id, operation_id, method, path, query, body, external_id, lock_held, state, version, " +
        "order_uuid, operation_uuid, response_status, response_body, reconciliation, manual_check, owner, lease_until, " +
        "fingerprint, body_pruned, body_sensitive";
      const fromSrc = cols
        .split(", ")
        .map((c) => `s.${c}`)
        .join(", ");
      const chunk = 20_000;
      for (let a = from; a < to; a += chunk) {
        await admin.query(
          `WITH src AS (SELECT *, row_number() OVER (ORDER BY seq) AS rn FROM reseller_api.commands
                         WHERE operation_id = 'domains.renew' AND state = 'succeeded' AND created_at < $1),
                n AS (SELECT count(*) AS c FROM src),
                gen AS (SELECT g, gen_random_uuid()::text AS id, gen_random_uuid()::text AS dom
                          FROM generate_series($2::bigint, $3::bigint) g),
                ins AS (INSERT INTO reseller_api.commands (id, idempotency_key, lock_key, domain_uuid, created_at, updated_at, ${cols})
                        SELECT gen.id, 'rsl-cli:renew:' || gen.dom || ':1y:2025-01-01:' || gen.g, 'domain:' || gen.dom, gen.dom,
                               $4::bigint + (gen.g * $5::float8)::bigint, $4::bigint + (gen.g * $5::float8)::bigint + 1000, ${fromSrc}
                          FROM gen, n, src s WHERE s.rn = 1 + (gen.g % n.c)
                        RETURNING id, updated_at)
           INSERT INTO reseller_api.command_attempts (command_id, at, delay_ms, status, request_id)
           SELECT id, updated_at, 0, 202, gen_random_uuid()::text FROM ins`,
          [o.endAt - 300 * DAY, a, Math.min(to, a + chunk) - 1, o.endAt - 365 * DAY, (365 * DAY) / o.total],
        );
      }
      return to;
    },
    async bytes() {
      await admin.query("VACUUM reseller_api.commands, reseller_api.command_attempts");
      const r = await admin.query<{ b: string }>(
        "SELECT pg_total_relation_size('reseller_api.commands') + pg_total_relation_size('reseller_api.command_attempts') AS b",
      );
      return Number(r.rows[0].b);
    },
    async close() {
      await journal.close();
      await admin.end();
    },
  };
}

/** y = a·N^b through (n1, y1), (n2, y2), evaluated at n; never below y2. */
function powerFit(n1: number, y1: number, n2: number, y2: number, n: number): number {
  if (!(y1 > 0 && y2 > 0)) return y2;
  const b = Math.log(y2 / y1) / Math.log(n2 / n1);
  return Math.max(y2, y2 * (n / n2) ** b);
}

export async function runScaleBench(options: { million?: boolean; sizes?: number[] } = {}): Promise<ScaleResult> {
  const sizes = options.sizes ?? (options.million ? [10_000, 100_000, 1_000_000] : [10_000, 100_000]);
  const total = sizes[sizes.length - 1];
  const budgetMs = Number(process.env.SCALE_FILL_BUDGET_S ?? 900) * 1000;
  const pgBudgetMs = Number(process.env.SCALE_PG_API_FILL_S ?? 180) * 1000;
  const dir = mkdtempSync(join(tmpdir(), "reseller-scale-"));
  const built = buildCli();
  const account = await jobAccount(dir);
  const apiKeyId = account.key.public_key_id;
  const server = await startPostgres();
  const rows: ScaleRow[] = [];
  const sizeRows: SizeRow[] = [];
  try {
    const stores: [string, (clock: ReturnType<typeof historyClock>, tag: string) => Promise<Subject>][] = [
      [
        "memory",
        (clock) =>
          Promise.resolve({ name: "memory", journal: createMemoryJournal({ clock }), close: async () => undefined }),
      ],
      ["sqlite", (clock, tag) => sqliteSubject(join(dir, `${tag}.sqlite`), clock)],
      ["postgres", (clock, tag) => pgSubject(server, tag, clock)],
    ];
    // JIT and prepared paths warm before the first baseline.
    await commandTimesUs(createMemoryJournal(), apiKeyId, 500);
    await recoverThousand(createMemoryJournal());
    const only = process.env.SCALE_STORES?.split(",");
    for (const [name, open] of stores.filter(([n]) => !only || only.includes(n))) {
      // Two journals of the store side by side: `base` keeps only what the measurements add, `big` gets
      // the history. Each size measures the two in alternating rounds (scale-pair.ts), so every ratio
      // compares figures taken under the same machine load.
      const clock = historyClock();
      const base = await open(historyClock(), "base");
      const big = await open(clock, "history");
      try {
        const markers = new Map<Subject, string>();
        for (const s of [base, big]) {
          // The one command `commands show` looks up.
          const marker = renewalCommand(apiKeyId, crypto.randomUUID(), Date.now(), "2026-06-01");
          await s.journal.record(marker);
          await s.journal.addAttempt(marker.id, { at: Date.now(), delayMs: 0, status: 422 }, { to: "rejected" });
          markers.set(s, marker.idempotencyKey);
        }
        const endAt = Date.now();
        // PostgreSQL's API fill is round-trip bound (≈ 30 commands/s at load 10 on 2 cores): a shorter budget, then copies.
        const deadline = performance.now() + (big.clone ? Math.min(budgetMs, pgBudgetMs) : budgetMs);
        let filled = 0;
        for (const target of sizes) {
          filled = await fillHistory(big.journal, clock, {
            apiKeyId,
            from: filled,
            to: target,
            total,
            endAt,
            jobDomains: account.uuids,
            deadline,
          });
          let note = "";
          if (filled < target && big.clone) {
            note = ` (API ${filled.toLocaleString("en")}, SQL copies after)`;
            filled = await big.clone(filled, target, { total, endAt });
          }
          const sized = filled === target ? label(target) + note : `${label(target)} (budget: ${filled})`;
          const side = (subject: Subject, size: string, commands: number) => ({
            journal: subject.journal,
            cliJournal: subject.cliJournal,
            showKey: markers.get(subject),
            store: name,
            size,
            commands,
          });
          rows.push(
            ...(await measurePair(side(base, `baseline for ${label(target)}`, 0), side(big, sized, filled), {
              apiKeyId,
              bin: built.bin,
              account,
            })),
          );
          if (filled < target) break;
        }
        if (big.bytes) {
          const before = await big.bytes();
          const { pruned } = await big.journal.prune({ settledBefore: endAt - 30 * DAY });
          const after30 = await big.bytes();
          await big.journal.prune({ settledBefore: Date.now() + 1 });
          const afterAll = await big.bytes();
          // Every row in the journal: the history plus what the measurements added.
          const rowsNow = Object.values(await big.journal.countByState()).reduce((a, b) => a + (b ?? 0), 0);
          const perK = (x: number) => x / 1024 / (rowsNow / 1000);
          sizeRows.push({
            store: name,
            commands: rowsNow,
            perThousandKiB: perK(before),
            after30dKiB: perK(after30),
            afterAllKiB: perK(afterAll),
            pruned30d: pruned,
          });
        }
      } finally {
        await base.close();
        await big.close();
      }
    }
    const ms = await firstRenewalMs(built.bin, dir);
    return {
      rows,
      sizes: sizeRows,
      firstRenewalMs: ms,
      fillNote: options.million ? "1M filled" : "1M extrapolated",
    };
  } finally {
    await account.server.close();
    await server.stop();
    built.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

const label = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);

/** History ÷ its paired baseline, per figure (the quantity the targets are on), plus peak RSS. */
export interface RatioRow {
  store: string;
  history: string;
  commands: number;
  fit: boolean;
  journal: number;
  recover: number;
  renew?: number;
  firstRow?: number;
  show?: number;
  peakRssMb?: number;
}

export function ratioRows(r: ScaleResult): RatioRow[] {
  const out: RatioRow[] = [];
  for (const store of [...new Set(r.rows.map((x) => x.store))]) {
    const mine: RatioRow[] = [];
    for (const h of r.rows.filter((x) => x.store === store && x.commands > 0)) {
      const b = r.rows.find((x) => x.store === store && x.pairedWith === h.size);
      if (!b) continue;
      mine.push({
        store,
        history: h.size,
        commands: h.commands,
        fit: false,
        journal: h.journalUs / b.journalUs,
        recover: h.recoverMs / b.recoverMs,
        renew: h.cli && b.cli ? h.cli.renewMs / b.cli.renewMs : undefined,
        firstRow: h.cli && b.cli ? h.cli.firstRowMs / b.cli.firstRowMs : undefined,
        show: h.cli && b.cli ? h.cli.showMs / b.cli.showMs : undefined,
        peakRssMb: h.cli?.peakRssMb,
      });
    }
    out.push(...mine);
    const [x, y] = mine.slice(-2);
    if (x && y && !mine.some((m) => m.commands >= 1_000_000)) {
      const f = (p?: number, q?: number) =>
        p === undefined || q === undefined ? undefined : powerFit(x.commands, p, y.commands, q, 1e6);
      out.push({
        store,
        history: "1M (fit)",
        commands: 1_000_000,
        fit: true,
        journal: f(x.journal, y.journal)!,
        recover: f(x.recover, y.recover)!,
        renew: f(x.renew, y.renew),
        firstRow: f(x.firstRow, y.firstRow),
        show: f(x.show, y.show),
        peakRssMb: f(x.peakRssMb, y.peakRssMb),
      });
    }
  }
  return out;
}

/** The row a store's targets are judged at: 1M measured, else its fit. */
export function millionRatios(r: ScaleResult, store: string): RatioRow | undefined {
  return ratioRows(r)
    .filter((x) => x.store === store && x.commands >= 1_000_000)
    .pop();
}

/** How far one round's ratio moved at each size: "0.91–1.32× at 10k, 0.95–1.41× at 100k". */
function roundSpread(r: ScaleResult, store: string, figure: RatioFigure): string {
  return r.rows
    .filter((x) => x.store === store && x.roundRatios?.[figure])
    .map((x) => {
      const v = x.roundRatios![figure]!;
      return `${Math.min(...v).toFixed(2)}–${Math.max(...v).toFixed(2)}× at ${x.size}`;
    })
    .join(", ");
}

const FIT_NOTE = "the 1M value is a power-law fit through the last two, so it carries their noise, doubled";

/**
 * Why a store's 1M row can miss (the summary prints it only then): the ratios measured at each size,
 * how far a single round's ratio moved, what the 1M value is, and how far the near-empty baselines moved.
 */
export function scaleMissWhy(r: ScaleResult, store: string): string {
  const rows = ratioRows(r).filter((x) => x.store === store);
  const measured = rows.filter((x) => !x.fit);
  const fitted = rows.find((x) => x.fit);
  const baselines = r.rows.filter((x) => x.store === store && x.pairedWith !== undefined).map((x) => x.journalUs);
  const x2 = (v: number) => `${v.toFixed(2)}×`;
  const sizes = measured.map((x) => `${x2(x.journal)} / ${x2(x.recover)} at ${x.history}`).join(", ");
  const lo = Math.min(...baselines).toFixed(0);
  const hi = Math.max(...baselines).toFixed(0);
  const spread = baselines.length === 0 ? "?" : lo === hi ? `${lo} µs` : `${lo}–${hi} µs`;
  return (
    `measured ${sizes} (journal / recover()); one round's ratio ranged ${roundSpread(r, store, "journal")} ` +
    `(journal) and ${roundSpread(r, store, "recover")} (recover()); ` +
    (fitted ? `${FIT_NOTE}; ` : "") +
    `the near-empty baselines read ${spread} per command in this run; ` +
    "a write updates B-tree indexes over random-UUID keys, which deepen as the file grows"
  );
}

/** Why a store's CLI row can miss: the ratios measured at each size and how far one round's ratio moved. */
export function scaleCliMissWhy(r: ScaleResult, store: string): string {
  const rows = ratioRows(r).filter((x) => x.store === store);
  const x2 = (v?: number) => (v === undefined ? "?" : `${v.toFixed(2)}×`);
  const sizes = rows
    .filter((x) => !x.fit)
    .map((x) => `${x2(x.renew)} / ${x2(x.firstRow)} / ${x2(x.show)} at ${x.history}`)
    .join(", ");
  const figures: [RatioFigure, string][] = [
    ["renew", "renew"],
    ["firstRow", "first row"],
    ["show", "show"],
  ];
  return (
    `measured ${sizes} (renew / first row / show); one round's ratio ranged ` +
    figures.map(([f, name]) => `${roundSpread(r, store, f)} (${name})`).join("; ") +
    (rows.some((x) => x.fit) ? `; ${FIT_NOTE}` : "") +
    "; each figure is a spawned CLI's wall time, mostly Node's start-up and the module load"
  );
}

export async function reportScaleBench(r: ScaleResult): Promise<string> {
  const n = (x: number | undefined, d = 0) => (x === undefined || Number.isNaN(x) ? "" : Number(x.toFixed(d)));
  printTable(
    r.rows.map((x) => ({
      store: x.store,
      journal: x.size,
      journal_us: n(x.journalUs, 1),
      p95_us: n(x.journalP95Us, 1),
      recover_1k_ms: n(x.recoverMs),
      renew_2k_dry_ms: n(x.cli?.renewMs),
      first_row_ms: n(x.cli?.firstRowMs),
      peak_rss_mb: n(x.cli?.peakRssMb, 1),
      show_ms: n(x.cli?.showMs),
    })),
    {
      title:
        `a year of history: each size and its baseline (same store, near-empty journal) measured in turn, ` +
        `medians of ${ROUNDS.journal}×100 commands, ${ROUNDS.recover} recover() runs, ${ROUNDS.renew} renew and ${ROUNDS.show} show runs per side`,
    },
  );
  const x2 = (v?: number) => (v === undefined ? "" : `${v.toFixed(2)}×`);
  printTable(
    ratioRows(r).map((x) => ({
      store: x.store,
      history: x.history,
      journal_us: x2(x.journal),
      recover_1k: x2(x.recover),
      renew_2k_dry: x2(x.renew),
      first_row: x2(x.firstRow),
      show: x2(x.show),
      peak_rss_mb: n(x.peakRssMb, 1),
    })),
    { title: `history ÷ baseline (${r.fillNote}; fit: y = a·N^b through the last two sizes, never below the last)` },
  );
  printTable(
    r.sizes.map((s) => ({
      store: s.store,
      rows: s.commands,
      "KiB per 1k commands": n(s.perThousandKiB, 1),
      "after prune 30 d": n(s.after30dKiB, 1),
      "after prune all": n(s.afterAllKiB, 1),
      "pruned by 30 d": s.pruned30d,
    })),
    { title: "journal size per 1,000 settled commands, before and after prune()" },
  );
  printTable([{ "10-line renew FILE, 100k-domain account: first renewal after (ms)": Math.round(r.firstRenewalMs) }], {
    title: "name resolution costs what the file names",
  });
  return writeResult("scale", { ...r, ratios: ratioRows(r) });
}

runWhenDirect("scale", async () => {
  const sizes = process.argv.find((a) => a.startsWith("--sizes="));
  const r = await runScaleBench({
    million: process.argv.includes("--1m"),
    sizes: sizes ? sizes.slice(8).split(",").map(Number) : undefined,
  });
  process.stderr.write(`wrote ${await reportScaleBench(r)}\n`);
  return true;
});
