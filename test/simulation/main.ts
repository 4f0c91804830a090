/**
 * `npm run simulate -- [--runs N] [--seed S] [--path P] [--journal memory|sqlite] [--no-shrink]`
 *
 * Runs N simulated schedules (default 200) from seed S and prints the number of runs, the runs that
 * broke an invariant and how often each path was reached. A failure prints its seed and the shortest
 * failing path fast-check found; `--seed S --path P` replays exactly that run and prints its trace.
 */
import { REQUIRED_PATHS } from "./invariants";
import { simulate } from "./scenario";

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
  const seed = Number(arg("seed") ?? 20);
  const path = arg("path");
  const runs = path ? 1 : Number(arg("runs") ?? 200);
  const journal = arg("journal") as "memory" | "sqlite" | undefined;
  const started = performance.now();
  const report = await simulate({ seed, runs, path, journal, shrink: !process.argv.includes("--no-shrink") });
  const seconds = (performance.now() - started) / 1000;
  console.log(formatCoverage(report.coverage));
  console.log(`schedules: ${report.runs} in ${seconds.toFixed(1)} s (${(report.runs / seconds).toFixed(1)}/s), seed ${seed}${path ? `, path ${path}` : ""}`);
  console.log(`violations: ${report.violations} run(s)`);
  for (const [name, n] of report.byInvariant) console.log(`  ${n} run(s): ${name}`);
  if (report.failure) {
    const f = report.failure;
    console.log(`\nshortest failing run: npm run simulate -- --seed ${f.seed} --path ${f.path}`);
    console.log(JSON.stringify(f.scenario));
    for (const v of f.result.violations) console.log(`  ✗ ${v.invariant}: ${v.detail} (t=${new Date(v.at).toISOString()})`);
    if (path) console.log(`trace (${f.result.trace.length} steps):\n  ${f.result.trace.join("\n  ")}`);
  }
  process.exitCode = report.violations > 0 ? 1 : 0;
}

await main();
