/**
 * The simulation's command line (run from the bundle, see bundle.ts; `npm run simulate -- …`):
 * `[--runs N] [--jobs N] [--max-seconds S] [--seed S] [--path P] [--scenario JSON] [--journal memory|sqlite|postgres] [--no-shrink] [--json] [--twice K] [--only TEXT] [--regressions] [--directed]`
 * (`--jobs N`, default os.availableParallelism(): the runs spread over N child processes, see jobs.ts;
 * `--max-seconds S`: no new run after S seconds, the count made is reported.)
 * (`--directed` first runs one scenario per await with a crash aimed at it, see directedScenarios.)
 * (`--only` shrinks the first run whose violation mentions TEXT, e.g. `--only InvalidTransitionError`.)
 *
 * Runs N simulated schedules (default 200) from seed S and prints the number of runs, the runs that
 * broke an invariant and how often each path was reached. A failure prints its seed and the shortest
 * failing path fast-check found; `--seed S --path P` replays exactly that run and prints its trace.
 */
import { REQUIRED_PATHS } from "./invariants";
import fc from "fast-check";
import { availableParallelism } from "node:os";
import { runJobs, type ShardLine } from "./jobs";
import {
  scenarioArbitrary,
  shrinkFailure,
  simulate,
  type Scenario,
  type SimJournal,
  type SimulateOptions,
  type SimulationReport,
} from "./scenario";
import { runScenario } from "./world";
import { REGRESSIONS } from "./regressions";
import { endPostgresTier, startTierServer } from "./postgres-tier";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

export function formatCoverage(coverage: Map<string, number>): string {
  const required = REQUIRED_PATHS.map((p) => `  ${String(coverage.get(p) ?? 0).padStart(7)}  ${p}`);
  const other = [...coverage.keys()]
    .filter((k) => !(REQUIRED_PATHS as readonly string[]).includes(k))
    .sort()
    .map((k) => `  ${String(coverage.get(k)).padStart(7)}  ${k}`);
  return ["paths (required):", ...required, "paths (other):", ...other].join("\n");
}

async function main(): Promise<void> {
  // The PostgreSQL tier: one server for the whole command (its job processes inherit the address).
  const tier = arg("journal") === "postgres" ? await startTierServer() : undefined;
  try {
    await simulateCommand();
  } finally {
    await endPostgresTier();
    await tier?.stop();
  }
}

async function simulateCommand(): Promise<void> {
  if (process.argv.includes("--regressions")) {
    // One JSON line per kept regression: its name and the violations it has today.
    let failed = 0;
    for (const r of REGRESSIONS) {
      const { violations } = await runScenario(r.scenario);
      if (violations.length > 0) failed += 1;
      console.log(JSON.stringify({ name: r.name, invariant: r.invariant, violations }));
    }
    process.exitCode = failed > 0 ? 1 : 0;
    return;
  }
  const given = arg("scenario");
  if (given !== undefined) {
    // One scenario as JSON (a kept regression, or one edited by hand): its violations and its trace.
    const { violations, trace } = await runScenario(JSON.parse(given) as Scenario);
    for (const v of violations) console.log(`  ✗ ${v.invariant}: ${v.detail}`);
    if (process.argv.includes("--trace")) console.log(trace.join("\n"));
    console.log(`violations: ${violations.length}`);
    process.exitCode = violations.length > 0 ? 1 : 0;
    return;
  }
  const seed = Number(arg("seed") ?? 20);
  const path = arg("path");
  const runs = path ? 1 : Number(arg("runs") ?? 200);
  const journal = arg("journal") as SimJournal | undefined;
  const twice = Number(arg("twice") ?? 0);
  // Determinism: the first K scenarios of the seed, each run twice, must give identical traces.
  let nondeterministic = 0;
  for (const scenario of twice > 0 ? fc.sample(scenarioArbitrary(journal), { seed, numRuns: twice }) : []) {
    const a = await runScenario(scenario);
    const b = await runScenario(scenario);
    if (a.trace.join("\n") !== b.trace.join("\n")) nondeterministic += 1;
  }
  const started = performance.now();
  const maxSeconds = arg("max-seconds");
  const options: SimulateOptions = {
    seed,
    runs,
    path,
    journal,
    only: arg("only"),
    directed: process.argv.includes("--directed"),
    shrink: !process.argv.includes("--no-shrink"),
    stopAt: maxSeconds === undefined ? undefined : started + Number(maxSeconds) * 1000,
  };
  const shard = arg("shard");
  if (shard !== undefined) return runShard(options, shard);
  const jobs = path ? 1 : Math.max(1, Number(arg("jobs") ?? availableParallelism()));
  let report: SimulationReport;
  if (jobs > 1) {
    report = await runJobs(process.argv.slice(2), jobs);
    if (report.violations > 0 && options.shrink) report = await shrinkFailure(report, options);
  } else report = await simulate(options);
  const seconds = (performance.now() - started) / 1000;
  if (process.argv.includes("--json")) {
    const f = report.failure;
    console.log(
      JSON.stringify({
        runs: report.runs,
        violations: report.violations,
        byInvariant: Object.fromEntries(report.byInvariant),
        coverage: Object.fromEntries(report.coverage),
        seconds,
        nondeterministic,
        failure: f && { seed: f.seed, path: f.path, violations: f.result.violations },
        firstFailing: report.firstFailing,
      }),
    );
    process.exitCode = report.violations > 0 ? 1 : 0;
    return;
  }
  if (twice > 0)
    console.log(`determinism: ${twice - nondeterministic} of ${twice} scenarios gave the same trace twice`);
  console.log(formatCoverage(report.coverage));
  console.log(
    `schedules: ${report.runs} in ${seconds.toFixed(1)} s (${(report.runs / seconds).toFixed(1)}/s), seed ${seed}${path ? `, path ${path}` : ""}, ${jobs} process(es)`,
  );
  console.log(`violations: ${report.violations} run(s)`);
  for (const [name, n] of report.byInvariant) {
    console.log(`  ${n} run(s): ${name}`);
    for (const e of report.examples.get(name) ?? []) console.log(`      e.g. ${e}`);
  }
  if (!report.failure && report.firstFailing !== undefined)
    console.log(`\nfirst failing run (not shrunk): npm run simulate -- --seed ${seed} --path ${report.firstFailing}`);
  if (report.failure) {
    const f = report.failure;
    console.log(`\nshortest failing run: npm run simulate -- --seed ${f.seed} --path ${f.path}`);
    console.log(JSON.stringify(f.scenario));
    for (const v of f.result.violations)
      console.log(`  ✗ ${v.invariant}: ${v.detail} (t=${new Date(v.at).toISOString()})`);
    if (path) console.log(`trace (${f.result.trace.length} steps):\n  ${f.result.trace.join("\n  ")}`);
  }
  process.exitCode = report.violations > 0 ? 1 : 0;
}

/** One child of `--jobs`: its share of the runs, progress on stderr, its report as one JSON line. */
async function runShard(options: SimulateOptions, spec: string): Promise<void> {
  const [index, count] = spec.split("/").map(Number);
  const report = await simulate({
    ...options,
    shard: { index, count },
    onRun: (runs, violations) => {
      if (runs % 50 === 0) console.error(`shard-progress ${runs} ${violations}`);
    },
    onViolation: (index, violations) => {
      const what = violations.map((v) => `${v.invariant}: ${v.detail}`).join("; ");
      console.error(`violation at --seed ${options.seed} --path ${index}: ${what}`);
    },
  });
  const line: ShardLine = {
    runs: report.runs,
    violations: report.violations,
    byInvariant: Object.fromEntries(report.byInvariant),
    examples: Object.fromEntries(report.examples),
    coverage: Object.fromEntries(report.coverage),
    firstFailing: report.firstFailing,
  };
  console.log(JSON.stringify(line));
}

await main();
