// Issue 20's deterministic simulation, bounded by count (a fixed seed, a fixed number of schedules):
// N fleet workers on one key with crashes at every await, journal and window-store outages, every
// emulator fault kind and time jumps past the lease and the replay TTL. 0 violations of any
// invariant, and every path the simulation exists to reach was reached at least once.
import { describe, expect, it } from "vitest";
import { runSimulation } from "./bundle";
import { REQUIRED_PATHS } from "./invariants";
import { directedScenarios } from "./scenario";

/** Fixed: the same schedules on every machine, so a coverage count can only change with the code. */
const SEED = 20;
const RUNS = 30;
/** The directed runs: one aimed crash per await of a call, a wait and recovery, on both journals. */
const DIRECTED = directedScenarios().length;

interface JsonReport {
  runs: number;
  violations: number;
  byInvariant: Record<string, number>;
  coverage: Record<string, number>;
  nondeterministic: number;
  failure?: { seed: number; path: string; violations: { invariant: string; detail: string }[] };
}

/** Runs the bundled simulation with `--json`; checks what every bounded run must show; returns the report. */
async function bounded(args: string[], replay: string): Promise<JsonReport> {
  const { stdout, stderr, code } = await runSimulation([...args, "--json"]);
  const line = stdout.trim().split("\n").pop() ?? "";
  expect(line.startsWith("{"), `${stdout}\n${stderr}`).toBe(true);
  const report = JSON.parse(line) as JsonReport;
  expect(report.nondeterministic, "a schedule replayed twice gave a different trace").toBe(0);
  const failure =
    report.failure &&
    `npm run simulate -- ${replay}--seed ${report.failure.seed} --path ${report.failure.path}\n${report.failure.violations.map((v) => `${v.invariant}: ${v.detail}`).join("\n")}`;
  expect(report.byInvariant, failure).toEqual({});
  expect(code).toBe(0);
  return report;
}

describe("deterministic simulation (npm run simulate)", () => {
  it("G1, G4, D5, D6, C3: 0 violations over a fixed set of schedules, every path reached, each schedule repeatable", async () => {
    const report = await bounded(["--seed", String(SEED), "--runs", String(RUNS), "--directed", "--twice", "2"], "");
    const paths = REQUIRED_PATHS.map((p) => `${String(report.coverage[p] ?? 0).padStart(6)}  ${p}`).join("\n");
    console.log(
      `simulation: ${report.runs} schedules from seed ${SEED}, ${report.violations} with a violation\n${paths}`,
    );
    expect(report.runs).toBe(DIRECTED + RUNS);
    expect(REQUIRED_PATHS.filter((p) => !(report.coverage[p] >= 1))).toEqual([]);
  }, 600_000);

  it("G1, G4, I5, I6: the PostgreSQL tier — the same invariants with a real PostgreSQL journal, 0 violations, repeatable", async () => {
    // The CLI starts its own server (test/support/postgres): claims, fences and versions run in it.
    const report = await bounded(
      ["--journal", "postgres", "--seed", String(SEED), "--runs", "24", "--jobs", "1", "--twice", "2"],
      "--journal postgres ",
    );
    console.log(
      `simulation (PostgreSQL tier): ${report.runs} schedules from seed ${SEED}, ${report.violations} with a violation`,
    );
    expect(report.runs).toBe(24);
    expect(report.coverage["journal unavailable"] ?? 0).toBeGreaterThan(0);
  }, 600_000);
});
