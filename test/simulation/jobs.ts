/**
 * `--jobs N`: the drawn runs of one seed spread over N child processes of the same bundle. Child i
 * makes the runs whose index ≡ i (mod N) — every child draws the seed's whole sequence, which is cheap,
 * and runs only its share — so the set of runs, each run and the first failing index are the same for
 * any N. The parent adds the reports up and shrinks the first failure itself, from its index.
 */
import { spawn } from "node:child_process";
import type { SimulationReport } from "./scenario";

/** What a child prints as its last stdout line (`--shard i/N --json`). */
export interface ShardLine {
  runs: number;
  violations: number;
  byInvariant: Record<string, number>;
  examples: Record<string, string[]>;
  coverage: Record<string, number>;
  firstFailing?: number;
}

/** The arguments of the parent, minus the ones it decides for each child. */
function childArgs(argv: string[], index: number, count: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--jobs" || a === "--twice") i += 1;
    else if (a === "--json" || a === "--directed") continue;
    else out.push(a);
  }
  // The directed runs are not drawn: the first child makes them, once.
  if (index === 0 && argv.includes("--directed")) out.push("--directed");
  return [...out, "--shard", `${index}/${count}`, "--json", "--no-shrink"];
}

/** Runs the N children, reports progress on stderr every `progressMs`, and adds their reports up. */
export async function runJobs(argv: string[], count: number, progressMs = 15_000): Promise<SimulationReport> {
  const bundle = process.argv[1];
  const done = new Array<number>(count).fill(0);
  const bad = new Array<number>(count).fill(0);
  const started = performance.now();
  const timer = setInterval(() => {
    const runs = done.reduce((a, b) => a + b, 0);
    const seconds = (performance.now() - started) / 1000;
    console.error(
      `progress: ${runs} schedules in ${seconds.toFixed(0)} s (${(runs / seconds).toFixed(1)}/s), ${bad.reduce((a, b) => a + b, 0)} with a violation`,
    );
  }, progressMs);
  try {
    const lines = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        runChild(bundle, childArgs(argv, i, count), (runs, violations) => {
          done[i] = runs;
          bad[i] = violations;
        }),
      ),
    );
    return merge(lines);
  } finally {
    clearInterval(timer);
  }
}

function runChild(
  bundle: string,
  args: string[],
  onProgress: (runs: number, violations: number) => void,
): Promise<ShardLine> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundle, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => {
      const text = d.toString();
      for (const m of text.matchAll(/^shard-progress (\d+) (\d+)$/gm)) onProgress(Number(m[1]), Number(m[2]));
      for (const m of text.matchAll(/^violation at .*$/gm)) console.error(m[0]);
      stderr += text.replace(/^shard-progress .*\n?/gm, "");
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const last = stdout.trim().split("\n").pop() ?? "";
      if (!last.startsWith("{")) return void reject(new Error(`a simulation child exited with ${code}:\n${stderr}`));
      resolve(JSON.parse(last) as ShardLine);
    });
  });
}

function merge(lines: ShardLine[]): SimulationReport {
  const report: SimulationReport = {
    runs: 0,
    violations: 0,
    byInvariant: new Map(),
    examples: new Map(),
    coverage: new Map(),
  };
  for (const l of lines) {
    report.runs += l.runs;
    report.violations += l.violations;
    for (const [k, v] of Object.entries(l.byInvariant)) report.byInvariant.set(k, (report.byInvariant.get(k) ?? 0) + v);
    for (const [k, v] of Object.entries(l.examples))
      report.examples.set(k, [...(report.examples.get(k) ?? []), ...v].slice(0, 3));
    for (const [k, v] of Object.entries(l.coverage)) report.coverage.set(k, (report.coverage.get(k) ?? 0) + v);
    if (l.firstFailing !== undefined && !(l.firstFailing >= (report.firstFailing ?? Infinity)))
      report.firstFailing = l.firstFailing;
  }
  return report;
}
