/**
 * `npm run bench:generate` — the codegen pipeline's speed and determinism (owner: generator/pipeline).
 *
 * Runs the full `npm run generate` (lint:spec → emit → typecheck) N times, prints each run, the median
 * and whether generated/ hashed identically after every run, then times each step once so the slow
 * one is visible. The typecheck step alone is the baseline (the floor no generator change can beat);
 * the target is a median ≤ 6 s on the 2-core dev box. Writes bench/results/generate.json.
 * Exits 1 when a run fails or the output is not byte-identical between runs.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { printTable, writeResult } from "./lib";
import { median } from "./lib/stats";

const ROOT = resolve(import.meta.dirname, "..");
const RUNS = Number(process.env.BENCH_GENERATE_RUNS ?? 3);
const TARGET_MS = 6000;
const bin = (name: string) => join(ROOT, "node_modules/.bin", name);

/** Runs a command in the repo root and returns its wall time; throws with its output on failure. */
function timed(command: string, args: readonly string[]): number {
  const started = performance.now();
  const result = spawnSync(command, args, { cwd: ROOT, encoding: "utf8" });
  const ms = performance.now() - started;
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  return ms;
}

/** SHA-256 over generated/'s file names and bytes, in name order. */
function hashGenerated(): string {
  const dir = join(ROOT, "generated");
  const hash = createHash("sha256");
  for (const name of readdirSync(dir).sort())
    hash
      .update(`${name}\0`)
      .update(readFileSync(join(dir, name)))
      .update("\0");
  return hash.digest("hex");
}

const runs: { run: number; ms: number; hash: string }[] = [];
for (let run = 1; run <= RUNS; run++) {
  const ms = timed("npm", ["run", "--silent", "generate"]);
  runs.push({ run, ms: Math.round(ms), hash: hashGenerated() });
}
// For comparison only: a typecheck of generated/ alone (what `generate` would cost if the whole-project
// typecheck moved to `build`/CI). The temporary tsconfig lives in .tmp/ (gitignored).
mkdirSync(join(ROOT, ".tmp"), { recursive: true });
const generatedOnly = join(ROOT, ".tmp/tsconfig.bench-generated.json");
writeFileSync(generatedOnly, JSON.stringify({ extends: "../tsconfig.json", include: ["../generated"] }));
const steps = [
  {
    step: "lint:spec (redocly lint)",
    ms: timed(bin("redocly"), ["lint", "spec/openapi.yaml", "--config", "spec/redocly.yaml", "--format", "stylish"]),
  },
  { step: "emit (tsx generator/main.ts)", ms: timed(bin("tsx"), ["generator/main.ts"]) },
  { step: "typecheck (tsc --noEmit) = baseline", ms: timed(bin("tsc"), ["-p", "tsconfig.json", "--noEmit"]) },
  { step: "(alt) typecheck generated/ only", ms: timed(bin("tsc"), ["-p", generatedOnly, "--noEmit"]) },
].map((s) => ({ ...s, ms: Math.round(s.ms) }));
rmSync(generatedOnly, { force: true });

const medianMs = Math.round(median(runs.map((r) => r.ms)));
const deterministic = new Set(runs.map((r) => r.hash)).size === 1 && hashGenerated() === runs[0].hash;
const baselineMs = steps[2].ms;

printTable(
  runs.map((r) => ({ run: r.run, ms: r.ms, "sha256(generated/)": r.hash.slice(0, 16) })),
  {
    title: `npm run generate × ${RUNS}`,
  },
);
printTable(steps, { title: "one pass per step" });
printTable(
  [
    { metric: "median generate", value: `${medianMs} ms` },
    { metric: "target", value: `≤ ${TARGET_MS} ms → ${medianMs <= TARGET_MS ? "met" : "MISSED"}` },
    { metric: "ratio to typecheck baseline", value: `${(medianMs / baselineMs).toFixed(2)}×` },
    { metric: "lint + emit + typecheck generated/ only", value: `${steps[0].ms + steps[1].ms + steps[3].ms} ms` },
    { metric: "deterministic (same hash every run)", value: deterministic ? "yes" : "NO" },
  ],
  { title: "summary" },
);

const path = await writeResult("generate", {
  runs,
  median_ms: medianMs,
  target_ms: TARGET_MS,
  target_met: medianMs <= TARGET_MS,
  steps,
  baseline: { name: "typecheck", ms: baselineMs },
  generated_only_pipeline_ms: steps[0].ms + steps[1].ms + steps[3].ms,
  ratio_to_baseline: Number((medianMs / baselineMs).toFixed(3)),
  deterministic,
  generated_sha256: runs[0].hash,
});
console.log(`wrote ${path}`);
if (!deterministic) {
  console.error("generated/ differed between runs: the generator is not deterministic");
  process.exitCode = 1;
}
