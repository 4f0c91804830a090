/**
 * `npm run bench`: every benchmark of the project in one run, each reported as a ratio or a count
 * against a baseline measured in the same run (never a timed assertion in a test). Each bench
 * prints its own table and writes bench/results/<name>.json; this file adds a summary of targets.
 *
 *   npm run bench                 # all
 *   npm run bench -- pacing load  # a subset, by name
 */
import { printTable, writeResult } from "./lib";
import { reportEmulatorLoad, runEmulatorLoad } from "./emulator-load";
import { runEmulatorScale } from "./emulator-scale";
import { millionRatios, reportScaleBench, runScaleBench, scaleCliMissWhy, scaleMissWhy } from "./scale";
import { reportOutageBench, runOutageBench } from "./outage";
import { reportOverheadBench, reportSocketOverheadBench, runOverheadBench, runSocketOverheadBench } from "./overhead";
import type { SocketOverheadResult } from "./overhead";
import { reportOtelBench, runOtelBench } from "./otel";
import { reportPacingBench, runPacingBench } from "./pacing";
import { reportJournalBench, reportRecoveryBench, runJournalBench, runRecoveryBench } from "./journal";
import { fleetVerdicts, reportFleetBench, runFleetBench } from "./fleet";
import { reportMultiprocessBench, runMultiprocessBench } from "./multiprocess";
import { kB, reportSizeBench, runSizeBench } from "./size";
import { reportCliBench, runCliBench, runCliBulkRuns } from "./cli";
import { runColdStart } from "./cold-start";
import { runInteractive, runRestart, runShapes } from "./pacing-rows";
import { startEmulatorServer } from "../emulator/public";
import { reportFuzz, runFuzz } from "./fuzz";

interface Verdict {
  bench: string;
  measure: string;
  value: string;
  target: string;
  pass: boolean;
  /** The known cause should this row miss, with the same run's evidence (printed only when it misses). */
  why?: string;
}

interface Bench {
  name: string;
  run: () => Promise<Verdict[]>;
}

/** Why the socket overhead can miss: the same run's floor, contract minimum and cost of a µs between calls. */
function overheadWhy(s: SocketOverheadResult): string {
  return (
    `the client's own per-call work (openapi-fetch's middleware hosting, the chain, the command loop, the pacer, ` +
    `the Outcome), not what the contract needs: a hand-written conforming GET reads ${s.minimalCpuRatio.toFixed(3)} CPU / ` +
    `${s.minimalWallRatio.toFixed(3)} wall and the floor ${s.floorCpuRatio.toFixed(3)} / ${s.floorWallRatio.toFixed(3)}; ` +
    `each µs of work between calls costs ${s.busyCpuPerUs.toFixed(2)} µs of CPU over this socket; with each side in a ` +
    `process of its own, as applications run, the client reads ${s.processesCpuRatio.toFixed(3)} CPU / ` +
    `${s.processesWallRatio.toFixed(3)} wall and the floor ${s.processesFloorCpuRatio.toFixed(3)} / ` +
    `${s.processesFloorWallRatio.toFixed(3)} (runner/README.md, Benchmarks)`
  );
}

/** Issue 28's pacer rows: interactive latency, the shape of bulk and sequential work, restart phases. */
async function pacingShapeVerdicts(): Promise<Verdict[]> {
  const server = await startEmulatorServer({ host: "127.0.0.1", port: 0, windowMs: 3000, defaultRateLimit: 60 });
  const verdicts: Verdict[] = [];
  try {
    const i = await runInteractive(server);
    printTable([{ ...i }], { title: "interactive latency: checkout-like 3 calls on an idle key, 120 per 60 s" });
    verdicts.push({
      bench: "pacing",
      measure: `checkout (3 calls) on an idle key at 120/60 s: pacer wait per call, p95 (allowance spent first: ${i.spentP95Ms} ms)`,
      value: `${i.idleP95Ms} ms`,
      target: "≤ 2 ms",
      pass: i.idleP95Ms <= 2,
    });
    const shapes = await runShapes(server);
    printTable(
      shapes.map((r) => ({ ...r })),
      { title: "shape of the sends (L = 60 per 3 s): in flight, sends per tenth of a server window" },
    );
    for (const r of shapes) {
      verdicts.push({
        bench: "pacing",
        measure: `${r.shape} (${r.commands}): peak in flight, max sends per tenth of a window, 429s`,
        value: `${r.peakInFlight}, ${r.maxPerTenth}, ${r.count429}`,
        target: `≤ 4, ≤ ${r.tenthBound}, 0`,
        pass: r.peakInFlight <= 4 && r.maxPerTenth <= r.tenthBound && r.count429 === 0,
      });
    }
  } finally {
    await server.close();
  }
  const restart = await runRestart();
  printTable(
    restart.map((r) => ({ ...r })),
    {
      title: "restart phase: a new process started before a predecessor's 4 s window ends (L = 40)",
    },
  );
  for (const r of restart) {
    verdicts.push({
      bench: "pacing",
      measure: `restart ${r.offsetMs} ms before the window ends: 3×L job time ÷ (⌈N/L⌉ + 1)·W, 429s (fills ${r.fills})`,
      value: `${(r.jobMs / r.boundMs).toFixed(3)}, ${r.count429}`,
      target: "≤ 1, 0",
      pass: r.jobMs <= r.boundMs && r.count429 === 0,
    });
  }
  return verdicts;
}

const benches: Bench[] = [
  {
    name: "emulator-scale",
    async run() {
      const r = await runEmulatorScale();
      return [
        {
          bench: "emulator-scale",
          measure: "seed 100k domains (seedDomains), ms",
          value: r.seed100kMs.toFixed(0),
          target: "≤ 5000",
          pass: r.seed100kMs <= 5000,
        },
        {
          bench: "emulator-scale",
          measure: "list page at 100k / at 1k (ms per page)",
          value: `${(r.page100kMs / r.page1kMs).toFixed(2)}× (${r.page100kMs.toFixed(2)} / ${r.page1kMs.toFixed(2)})`,
          target: "≤ 2×",
          pass: r.page100kMs <= 2 * r.page1kMs,
        },
      ];
    },
  },
  {
    name: "scale",
    async run() {
      const r = await runScaleBench({ million: process.argv.includes("--1m") });
      await reportScaleBench(r);
      const verdicts: Verdict[] = [];
      const x = (v: number | undefined) => (v === undefined ? "?" : `${v.toFixed(2)}×`);
      for (const store of ["memory", "sqlite", "postgres"]) {
        const m = millionRatios(r, store);
        const at = m?.fit ? "1M (fit)" : "1M";
        verdicts.push({
          bench: "scale",
          measure: `${store}, ${at} vs baseline: journal µs per command, recover() of 1,000 unsettled (the CLI's bound, applied)`,
          value: `${x(m?.journal)}, ${x(m?.recover)}`,
          target: "≤ 1.5×, ≤ 1.5×",
          pass: !!m && m.journal <= 1.5 && m.recover <= 1.5,
          why: scaleMissWhy(r, store),
        });
        if (store === "memory") continue;
        verdicts.push({
          bench: "scale",
          measure: `${store}, ${at}: CLI renew FILE --dry-run (2,000 lines) total, first row, commands show vs baseline; peak RSS`,
          value: `${x(m?.renew)}, ${x(m?.firstRow)}, ${x(m?.show)}; ${m?.peakRssMb?.toFixed(0) ?? "?"} MB`,
          target: "≤ 1.5× each; ≤ 200 MB",
          pass:
            !!m &&
            (m.renew ?? Infinity) <= 1.5 &&
            (m.firstRow ?? Infinity) <= 1.5 &&
            (m.show ?? Infinity) <= 1.5 &&
            (m.peakRssMb ?? Infinity) <= 200,
          why: scaleCliMissWhy(r, store),
        });
      }
      for (const s of r.sizes)
        verdicts.push({
          bench: "scale",
          measure: `${s.store}: journal KiB per 1,000 settled commands (${s.commands.toLocaleString("en")} rows) → after prune 30 d → after prune all`,
          value: `${s.perThousandKiB.toFixed(0)} → ${s.after30dKiB.toFixed(0)} → ${s.afterAllKiB.toFixed(0)}`,
          target: "report",
          pass: true,
        });
      verdicts.push({
        bench: "scale",
        measure: "10-line renew FILE on a 100k-domain emulator account: first renewal sent after, ms",
        value: r.firstRenewalMs.toFixed(0),
        target: "≤ 5000",
        pass: r.firstRenewalMs <= 5000,
      });
      return verdicts;
    },
  },
  {
    name: "load",
    async run() {
      const r = await runEmulatorLoad();
      await reportEmulatorLoad(r);
      return [
        {
          bench: "load",
          measure: "emulator requests/s (1,000 req, 20 clients)",
          value: r.requestsPerSecond.toFixed(0),
          target: "report",
          pass: true,
        },
        {
          bench: "load",
          measure: "double executions / counters exact",
          value: `${r.exactlyOnce ? 0 : "≥1"} / ${r.countersExact}`,
          target: "0 / true",
          pass: r.exactlyOnce && r.countersExact,
        },
      ];
    },
  },
  {
    name: "pacing",
    async run() {
      const rows = await runPacingBench();
      await reportPacingBench(rows);
      const ours = rows.find((r) => r.strategy.startsWith("pacer"));
      const others = rows
        .filter((r) => r !== ours)
        .map((r) => `${r.strategy}: ${(r.utilisation * 100).toFixed(1)} %, ${r.count429}×429`);
      const verdicts: Verdict[] = [
        {
          bench: "pacing",
          measure: `utilisation, 429s (vs ${others.join("; ")})`,
          value: ours ? `${(ours.utilisation * 100).toFixed(1)} %, ${ours.count429}` : "missing",
          target: "≥ 99 %, 0",
          pass: !!ours && ours.utilisation >= 0.99 && ours.count429 === 0,
        },
      ];
      return [...verdicts, ...(await pacingShapeVerdicts())];
    },
  },
  {
    name: "overhead",
    async run() {
      const r = await runOverheadBench();
      await reportOverheadBench(r);
      const socket = await runSocketOverheadBench();
      await reportSocketOverheadBench(socket, r);
      const us = (ms: number) => ((ms / r.requests) * 1000).toFixed(1);
      return [
        {
          bench: "overhead",
          measure: `real socket (emulator in another process), client ÷ bare openapi-fetch, CPU (bare ${socket.bareCpuUs.toFixed(1)} µs, client ${socket.clientCpuUs.toFixed(1)} µs; floor, bare + a per-call AbortController and timer: ${socket.floorCpuRatio.toFixed(3)})`,
          value: socket.cpuRatio.toFixed(3),
          target: `≤ ${socket.cpuTarget.toFixed(2)}`,
          pass: socket.cpuPass,
          why: overheadWhy(socket),
        },
        {
          bench: "overhead",
          measure: `real socket, wall (bare ${socket.bareWallUs.toFixed(1)} µs, client ${socket.clientWallUs.toFixed(1)} µs; without the pacer's waits ${socket.wallRatioNoPacerWait.toFixed(3)}; floor ${socket.floorWallRatio.toFixed(3)})`,
          value: socket.wallRatio.toFixed(3),
          target: `≤ ${socket.wallTarget.toFixed(2)}`,
          pass: socket.wallPass,
          why: overheadWhy(socket),
        },
        {
          bench: "overhead",
          measure: `in-process emulator, wall (bare ${us(r.bareMs)} µs, client ${us(r.clientMs)} µs; cpu ratio ${r.cpuRatio.toFixed(3)})`,
          value: r.ratio.toFixed(3),
          target: "report",
          pass: true,
        },
      ];
    },
  },
  {
    name: "size",
    async run() {
      const r = await runSizeBench();
      await reportSizeBench(r);
      return [
        {
          bench: "size",
          measure: `createResellerClient bundle, esbuild min + gzip, what loads with the entry (${r.entryFiles} files, min ${kB(r.client.minBytes)}; + ${kB(r.lazyGzipBytes)} gzip in chunks loaded on first use; openapi-fetch alone: ${kB(r.openapiFetch.minBytes)} min, ${kB(r.openapiFetch.gzipBytes)} gzip)`,
          value: kB(r.client.gzipBytes),
          target: `≤ ${kB(r.targetGzipBytes)}`,
          pass: r.pass,
          why: `what loads with the entry is the client's own logic (the module profile above: runner, pacer, middleware, generated facade), not dead weight; openapi-fetch alone is ${kB(r.openapiFetch.gzipBytes)}`,
        },
      ];
    },
  },
  {
    name: "otel",
    async run() {
      const r = await runOtelBench();
      await reportOtelBench(r);
      return r.verdicts.map((v) => ({
        bench: "otel",
        measure: `(${v.row}) ${v.measure}`,
        value: v.value.toFixed(3),
        target: Number.isFinite(v.target) ? `≤ ${v.target}` : "for the record",
        pass: v.pass,
        why:
          v.row === "a"
            ? `the OpenTelemetry SDK's own floor (two spans and one histogram record by hand, no client code) reads ${r.sdkFloorRatio.toFixed(3)} in this run (docs/guides/monitoring.md, Cost)`
            : undefined,
      }));
    },
  },
  {
    name: "outage",
    async run() {
      const r = await runOutageBench();
      await reportOutageBench(r);
      return [
        {
          bench: "outage",
          measure: `attempts per command once the budget is spent (counted from the first single-attempt command: ${r.attemptsPerCommandAfterFirstSingle.toFixed(3)})`,
          value: r.attemptsPerCommandAfterSpent.toFixed(3),
          target: "≤ 1.1",
          pass: r.pass,
        },
      ];
    },
  },
  {
    name: "fuzz",
    async run() {
      const r = await runFuzz();
      await reportFuzz(r);
      return [
        {
          bench: "fuzz",
          measure: `${r.responses} hostile responses, ${r.calls} calls: untyped errors / hangs / double executions / snippets > 2 KiB`,
          value: `${r.untypedErrors} / ${r.hangs} / ${r.doubleExecutions} / ${r.oversizedSnippets}`,
          target: "0 / 0 / 0 / 0",
          pass: r.pass,
        },
      ];
    },
  },
  {
    name: "multiprocess",
    async run() {
      const rows = await runMultiprocessBench();
      await reportMultiprocessBench(rows);
      const redis = rows.find((r) => r.mode === "redis");
      const local = rows.find((r) => r.mode !== "redis");
      return [
        {
          bench: "multiprocess",
          measure: `4 processes, Redis store: utilisation over saturated windows, 429s (local pacing: ${local ? `${(local.utilisation * 100).toFixed(1)} %, ${local.count429}×429` : "n/a"})`,
          value: redis ? `${(redis.utilisation * 100).toFixed(1)} %, ${redis.count429}` : "missing",
          target: "≥ 95 %, 0",
          pass: !!redis && redis.utilisation >= 0.95 && redis.count429 === 0,
        },
      ];
    },
  },
  {
    name: "coldstart",
    async run() {
      const r = runColdStart();
      printTable(
        Object.entries(r.medianMs).map(([subject, ms]) => ({ subject, median_ms: Number(ms.toFixed(1)) })),
        { title: `cold start: import + create a client, child processes, median of ${r.runs}` },
      );
      await writeResult("cold-start", r);
      const m = r.medianMs;
      return [
        {
          bench: "coldstart",
          measure: `import + createResellerClient ÷ openapi-fetch import (${m["reseller-api"].toFixed(0)} vs ${m["openapi-fetch"].toFixed(0)} ms; openai ${m.openai.toFixed(0)}, stripe ${m.stripe.toFixed(0)} ms)`,
          value: r.ratio.toFixed(3),
          target: "≤ 1.5",
          pass: r.pass,
          why: `importing the entry loads ${r.entryFiles} module files, ${(r.entryBytes / 1024).toFixed(0)} KiB of code, before openapi-fetch's (${(r.openapiFetchBytes / 1024).toFixed(0)} KiB), each file resolved, read and compiled by Node's ESM loader`,
        },
      ];
    },
  },
  {
    name: "clibulk",
    async run() {
      const r = await runCliBulkRuns();
      return [
        {
          bench: "clibulk",
          measure: "reseller renew, 600 domains at L=60/3 s, 3 runs: job time ÷ ⌈N/L⌉·W each, 429s",
          value: `${r.ratios.map((x) => x.toFixed(3)).join(" / ")}, ${r.count429}`,
          target: "≤ 1.05 each, 0",
          pass: r.pass,
        },
      ];
    },
  },
  {
    name: "cli",
    async run() {
      const r = await runCliBench();
      await reportCliBench(r);
      return [
        {
          bench: "cli",
          measure: `reseller renew, ${r.domains} domains at L=${r.limit}/${r.windowMs} ms: job time ÷ ⌈N/L⌉·W, 429s`,
          value: `${(r.jobMs / r.idealMs).toFixed(3)}, ${r.count429Cli + r.count429Server}`,
          target: "≤ 1.05, 0",
          pass: r.pass.pacing,
        },
        {
          bench: "cli",
          measure: `reseller check --dry-run, ${r.rssLines.toLocaleString("en")} lines: peak RSS (1,000 lines: ${(r.baselineRssBytes / 1048576).toFixed(1)} MB)`,
          value: `${(r.rssBytes / 1048576).toFixed(1)} MB`,
          target: "< 150 MB",
          pass: r.pass.memory,
        },
      ];
    },
  },
  {
    name: "journal",
    async run() {
      const rows = await runJournalBench({ postgres: true });
      await reportJournalBench(rows);
      // A first recover() warms the JIT, so the measured runs compare the journals, not their order.
      await runRecoveryBench({ synchronous: "normal", commands: 300 });
      const recovery = [
        await runRecoveryBench({ synchronous: "normal" }),
        await runRecoveryBench({ synchronous: "full" }),
      ];
      await reportRecoveryBench(recovery);
      const memory = Math.round(rows.find((m) => m.store.toLowerCase().includes("memory"))?.median_us ?? NaN);
      const fsync = rows.find((m) => m.store.includes("fsync"));
      const floor = Math.round(rows.find((m) => m.store.includes("(floor)"))?.median_us ?? NaN);
      const verdicts: Verdict[] = [];
      for (const r of rows.filter((x) => x.target.startsWith("median"))) {
        verdicts.push({
          bench: "journal",
          measure: `${r.store}, leases on: median / p95 µs per command (memory same run: ${memory} µs; SQLite alone: ${floor} µs)`,
          value: `${Math.round(r.median_us)} / ${Math.round(r.p95_us)}`,
          target: "≤ 100 / ≤ 300",
          pass: r.median_us <= 100 && r.p95_us <= 300,
          why: `SQLite's own write transaction (no client code) costs ${floor} µs in this run and the journal's work beside it ${memory} µs with the memory store: ${floor + memory} µs together`,
        });
      }
      for (const r of rows) {
        if (r.wall_per_command_us === undefined) continue;
        verdicts.push({
          bench: "journal",
          measure: `${r.store}, leases on: wall ÷ commands µs (one fsync on this disk, same run: ${fsync ? Math.round(fsync.median_us) : "?"} µs)`,
          value: String(Math.round(r.wall_per_command_us)),
          target: "≤ 500",
          pass: r.wall_per_command_us <= 500,
        });
      }
      for (const r of recovery) {
        verdicts.push({
          bench: "journal",
          measure: `recover() of ${r.commands} commands, leases on, local work (${r.journal})`,
          value: `${Math.round(r.localWorkMs)} ms`,
          target: "≤ 1000 ms",
          pass: r.localWorkMs <= 1000,
        });
      }
      return verdicts;
    },
  },
  {
    name: "fleet",
    async run() {
      const r = await runFleetBench();
      await reportFleetBench(r);
      return fleetVerdicts(r).map((v) => ({ bench: "fleet", ...v }));
    },
  },
];

async function main(): Promise<void> {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith("-"));
  const selected = wanted.length ? benches.filter((b) => wanted.includes(b.name)) : benches;
  if (wanted.length && selected.length !== wanted.length) {
    process.stderr.write(`unknown bench; known: ${benches.map((b) => b.name).join(", ")}\n`);
    process.exit(2);
  }
  const verdicts: Verdict[] = [];
  for (const bench of selected) {
    process.stdout.write(`\n### ${bench.name}\n`);
    try {
      verdicts.push(...(await bench.run()));
    } catch (error) {
      verdicts.push({
        bench: bench.name,
        measure: "run",
        value: error instanceof Error ? error.message : String(error),
        target: "completes",
        pass: false,
      });
    }
  }
  printTable(
    verdicts.map(({ why: _why, ...v }) => ({ ...v, pass: v.pass ? "yes" : "NO" })),
    { title: "summary (targets from the issues)" },
  );
  const missed = verdicts.filter((v) => !v.pass);
  if (missed.length > 0) {
    printTable(
      missed.map((v) => ({
        bench: v.bench,
        value: v.value,
        target: v.target,
        why: v.why ?? "no known cause: treat it as a regression until a run shows otherwise",
      })),
      { title: "missed targets, and why" },
    );
  }
  await writeResult("summary", { at: new Date().toISOString(), node: process.version, verdicts });
  process.exit(verdicts.every((v) => v.pass) ? 0 : 1);
}

void main();
