// G1/D3/D4/D7/I5/I6/H2: the shared Journal suite (test/stores/journal-suite.ts, with its lease and
// history parts) on each runtime's own SQLite, run by vitest under that runtime's binary.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, runtimeBinary, type RuntimeKey } from "./binaries";

const dir = mkdtempSync(join(tmpdir(), "reseller-runtime-suites-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const VITEST = join(ROOT, "node_modules/vitest/vitest.mjs");
const CASES: { name: string; key: RuntimeKey; driver: string; argv: string[] }[] = [
  { name: "Node.js 22", key: "node22", driver: "node:sqlite", argv: ["--no-warnings", VITEST] },
  { name: "Bun", key: "bun", driver: "bun:sqlite", argv: ["--bun", VITEST] },
  { name: "Deno", key: "deno", driver: "node:sqlite", argv: ["run", "--allow-all", "--no-prompt", VITEST] },
];

interface JsonReport {
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  testResults: { assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[];
}

describe("the shared journal suite on each runtime's SQLite", () => {
  for (const c of CASES) {
    it(`G1, D4, D7, I5, I6: every journal rule holds with ${c.driver} under ${c.name}`, async () => {
      const bin = runtimeBinary(c.key);
      const report = join(dir, `${c.key}.json`);
      // The outer run's VITEST_* variables would make the inner vitest think it is a worker.
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST")));
      const args = [
        ...c.argv,
        "run",
        "--config",
        "test/runtimes/vitest.runtime.config.ts",
        "--reporter=json",
        `--outputFile=${report}`,
      ];
      let output = "";
      try {
        await promisify(execFile)(bin, args, {
          cwd: ROOT,
          env: { ...env, RESELLER_SQLITE_DRIVER: c.driver, NO_COLOR: "1" },
          maxBuffer: 64 * 1024 * 1024,
          timeout: 240_000,
        });
      } catch (error) {
        const e = error as { stdout?: string; stderr?: string; message: string };
        output = `${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`;
      }
      let json: JsonReport;
      try {
        json = JSON.parse(readFileSync(report, "utf8")) as JsonReport;
      } catch {
        throw new Error(`vitest under ${c.name} wrote no report:\n${output}`);
      }
      const failed = json.testResults
        .flatMap((f) => f.assertionResults)
        .filter((a) => a.status !== "passed")
        .map((a) => `${a.fullName}: ${a.status} ${a.failureMessages.join("\n").slice(0, 400)}`);
      expect(failed).toEqual([]);
      expect(json.numFailedTests).toBe(0);
      expect(json.numPassedTests).toBe(json.numTotalTests);
      expect(json.numTotalTests).toBeGreaterThanOrEqual(37); // the whole shared suite ran, not a subset
    }, 300_000);
  }
});
