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
import { reportOutageBench, runOutageBench } from "./outage";
import { reportOverheadBench, runOverheadBench } from "./overhead";
import { reportOtelBench, runOtelBench } from "./otel";
import { reportPacingBench, runPacingBench } from "./pacing";
import { reportJournalBench, reportRecoveryBench, runJournalBench, runRecoveryBench } from "./journal";
import { fleetVerdicts, reportFleetBench, runFleetBench } from "./fleet";
import { reportMultiprocessBench, runMultiprocessBench } from "./multiprocess";
import { kB, reportSizeBench, runSizeBench } from "./size";
import { reportCliBench, runCliBench } from "./cli";
import { reportFuzz, runFuzz } from "./fuzz";

interface Verdict {
  bench: string;
  measure: string;
  value: string;
  target: string;
  pass: boolean;
}

interface Bench {
  name: string;
  run: () => Promise<Verdict[]>;
}

const benches: Bench[] = [
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
      return [
        {
          bench: "pacing",
          measure: `utilisation, 429s (vs ${others.join("; ")})`,
          value: ours ? `${(ours.utilisation * 100).toFixed(1)} %, ${ours.count429}` : "missing",
          target: "≥ 97 %, 0",
          pass: !!ours && ours.utilisation >= 0.97 && ours.count429 === 0,
        },
      ];
    },
  },
  {
    name: "overhead",
    async run() {
      const r = await runOverheadBench();
      await reportOverheadBench(r);
      const us = (ms: number) => ((ms / r.requests) * 1000).toFixed(1);
      return [
        {
          bench: "overhead",
          measure: `full stack ÷ bare openapi-fetch, GET, wall (bare ${us(r.bareMs)} µs, client ${us(r.clientMs)} µs; cpu ratio ${r.cpuRatio.toFixed(3)})`,
          value: r.ratio.toFixed(3),
          target: "≤ 1.15",
          pass: r.pass,
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
          measure: "attempts per command once the budget is spent",
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
      const recovery = [
        await runRecoveryBench({ synchronous: "normal" }),
        await runRecoveryBench({ synchronous: "full" }),
      ];
      await reportRecoveryBench(recovery);
      const memory = Math.round(rows.find((m) => m.store.toLowerCase().includes("memory"))?.median_us ?? NaN);
      const fsync = rows.find((m) => m.store.includes("fsync"));
      const verdicts: Verdict[] = [];
      for (const r of rows.filter((x) => x.target.startsWith("median"))) {
        verdicts.push({
          bench: "journal",
          measure: `${r.store}, leases on: median / p95 µs per command (memory same run: ${memory} µs)`,
          value: `${Math.round(r.median_us)} / ${Math.round(r.p95_us)}`,
          target: "≤ 100 / ≤ 300",
          pass: r.median_us <= 100 && r.p95_us <= 300,
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
    verdicts.map((v) => ({ ...v, pass: v.pass ? "yes" : "NO" })),
    { title: "summary (targets from the issues)" },
  );
  await writeResult("summary", { at: new Date().toISOString(), node: process.version, verdicts });
  process.exit(verdicts.every((v) => v.pass) ? 0 : 1);
}

void main();
