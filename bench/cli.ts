// Operator CLI bench. Two targets, each against a baseline measured in the same run:
//  1. pacing: a 600-domain `reseller renew --expiring-within 30d --no-wait` job against the emulator over loopback with a
//     scaled window (L = 60 per W = 3000 ms) finishes within ⌈N/L⌉ windows + 5 % (baseline: the
//     ideal ⌈N/L⌉·W), with 0 × 429 (the CLI's own count and the emulator's request log agree).
//  2. memory: peak RSS of `reseller check --dry-run` over a 100,000-line input stays under 150 MB;
//     the same command over 1,000 lines is the baseline (ratio printed), and the time to the first
//     result line shows that the input is streamed (a big file does not delay the first row).
// The CLI runs as a child process: the built bin (tsup, the package's own config, built once here into
// node_modules/.cache so it resolves dependencies like an installed package), as an operator runs it.
// Import runCliBench() from bench/main.ts; run directly (`tsx bench/cli.ts`) for a CLI.
import { runCliChild, type CliChild } from "./lib/cli-child";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, createWriteStream } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startEmulatorServer } from "../emulator/public";
import { printTable } from "./lib/table";
import { writeResult } from "./lib/results";
import { runWhenDirect } from "./lib/direct";

const REPO = fileURLToPath(new URL("..", import.meta.url));

/** Builds the package into a scratch folder and returns the `reseller` bin and a cleanup. */
function buildBin(): { bin: string; cleanup(): void } {
  const cache = join(REPO, "node_modules", ".cache");
  mkdirSync(cache, { recursive: true });
  const out = mkdtempSync(join(cache, "reseller-cli-bench-"));
  const r = spawnSync("npx", ["tsup", "--out-dir", out], { cwd: REPO, encoding: "utf8", timeout: 900_000 });
  if (r.status !== 0) throw new Error(`tsup failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return { bin: join(out, "reseller.js"), cleanup: () => rmSync(out, { recursive: true, force: true }) };
}

let CLI: string[] = [];

export interface CliBenchResult {
  domains: number;
  limit: number;
  windowMs: number;
  /** ⌈N/L⌉ · W: the ideal duration of the job. */
  idealMs: number;
  /** The job's own elapsed time (first call to last result), from its summary. */
  jobMs: number;
  /** The whole process, start-up and module loading included. */
  processMs: number;
  /** Requests the job sent (renewals, the context call, the listing pages). */
  requests: number;
  count429Cli: number;
  count429Server: number;
  renewed: number;
  rssLines: number;
  rssBytes: number;
  baselineRssBytes: number;
  firstResultMs: number;
  baselineFirstResultMs: number;
  pass: { pacing: boolean; memory: boolean };
}

/** Runs the CLI (see lib/cli-child.ts). */
function run(args: string[], env: NodeJS.ProcessEnv): Promise<CliChild> {
  return runCliChild([...CLI, ...args], env);
}

interface Summary {
  elapsedMs: number;
  count429: number;
  maxRssBytes: number;
}

function summaryOf(stderr: string): Summary {
  const line = stderr
    .split("\n")
    .reverse()
    .find((l) => l.includes('"type":"summary"'));
  if (!line) throw new Error(`no summary from the CLI:\n${stderr.slice(-2000)}`);
  return JSON.parse(line) as Summary;
}

async function writeNames(file: string, count: number): Promise<void> {
  const out = createWriteStream(file);
  for (let i = 0; i < count; i++) {
    if (!out.write(`bench-name-${String(i).padStart(6, "0")}.kz\n`))
      await new Promise<void>((r) => out.once("drain", () => r()));
  }
  await new Promise<void>((r) => out.end(() => r()));
}

export async function runCliBench(
  options: { domains?: number; limit?: number; windowMs?: number; rssLines?: number } = {},
): Promise<CliBenchResult> {
  const domains = options.domains ?? 600;
  const limit = options.limit ?? 60;
  const windowMs = options.windowMs ?? 3000;
  const rssLines = options.rssLines ?? 100_000;
  const dir = mkdtempSync(join(tmpdir(), "reseller-cli-bench-"));
  const built = buildBin();
  CLI = [built.bin];
  const server = await startEmulatorServer({ windowMs, defaultRateLimit: limit, withDefaultKeys: true });
  try {
    const control = server.emulator.control;
    const key = control.keys().find((k) => k.environment === "test")!;
    control.deposit(key.public_key_id, domains * 10_000_00); // the initial deposit covers ~220 renewals
    const expires = new Date(Date.now() + 10 * 86_400_000).toISOString();
    const names = Array.from({ length: domains }, (_, i) => `bench-${String(i).padStart(4, "0")}.kz`);
    for (const name of names) control.createDomain({ token: key.token, name, expires_at: expires });
    const env = { RESELLER_API_TOKEN: key.token, RESELLER_API_BASE_URL: server.baseUrl };

    // The job: "renew the domains that expire this month" — rows stream from the listing.
    const renew = await run(
      [
        "renew",
        "--expiring-within",
        "30d",
        "--no-wait",
        "--journal",
        join(dir, "journal.sqlite"),
        "--window-ms",
        String(windowMs),
      ],
      env,
    );
    if (renew.code !== 0) throw new Error(`renew exited ${renew.code}:\n${renew.stderr.slice(-3000)}`);
    const summary = summaryOf(renew.stderr);
    const requests = control.requests();
    const count429Server = requests.filter((r) => r.status === 429).length;
    const renewed = control.effects().filter((e) => e.kind === "domain.renew").length;
    const idealMs = Math.ceil(domains / limit) * windowMs;
    const counted = requests.filter((r) => r.counted).length;

    const big = join(dir, "names-big.txt");
    const small = join(dir, "names-small.txt");
    await writeNames(big, rssLines);
    await writeNames(small, 1000);
    const bigRun = await run(["check", "--file", big, "--dry-run"], {});
    const smallRun = await run(["check", "--file", small, "--dry-run"], {});
    if (bigRun.lines !== rssLines)
      throw new Error(`check --dry-run printed ${bigRun.lines} rows, expected ${rssLines}`);
    const rssBytes = summaryOf(bigRun.stderr).maxRssBytes;
    const baselineRssBytes = summaryOf(smallRun.stderr).maxRssBytes;

    const jobMs = summary.elapsedMs;
    return {
      domains,
      limit,
      windowMs,
      idealMs,
      jobMs,
      processMs: Math.round(renew.wallMs),
      requests: counted,
      count429Cli: summary.count429,
      count429Server,
      renewed,
      rssLines,
      rssBytes,
      baselineRssBytes,
      firstResultMs: Math.round(bigRun.firstLineMs),
      baselineFirstResultMs: Math.round(smallRun.firstLineMs),
      pass: {
        pacing: jobMs <= idealMs * 1.05 && summary.count429 === 0 && count429Server === 0 && renewed === domains,
        memory: rssBytes < 150 * 1024 * 1024,
      },
    };
  } finally {
    await server.close();
    built.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function reportCliBench(r: CliBenchResult): Promise<void> {
  const mb = (b: number) => (b / 1024 / 1024).toFixed(1);
  printTable(
    [
      {
        measure: `renew ${r.domains} (--no-wait), L=${r.limit}/${r.windowMs} ms: job time`,
        value: `${(r.jobMs / 1000).toFixed(2)} s`,
        baseline: `ideal ⌈N/L⌉·W = ${(r.idealMs / 1000).toFixed(1)} s`,
        ratio: (r.jobMs / r.idealMs).toFixed(3),
        target: "≤ 1.05",
      },
      {
        measure: `  requests sent (renewals + context + listing)`,
        value: String(r.requests),
        baseline: `⌈${r.requests}/L⌉·W = ${((Math.ceil(r.requests / r.limit) * r.windowMs) / 1000).toFixed(1)} s`,
        ratio: (r.jobMs / (Math.ceil(r.requests / r.limit) * r.windowMs)).toFixed(3),
        target: "report",
      },
      {
        measure: "  whole process (start-up included)",
        value: `${(r.processMs / 1000).toFixed(2)} s`,
        baseline: "",
        ratio: (r.processMs / r.idealMs).toFixed(3),
        target: "report",
      },
      {
        measure: "  429s (CLI count / emulator log)",
        value: `${r.count429Cli} / ${r.count429Server}`,
        baseline: "",
        ratio: "",
        target: "0 / 0",
      },
      { measure: "  renewal effects", value: String(r.renewed), baseline: String(r.domains), ratio: "", target: "= N" },
      {
        measure: `check --dry-run ${r.rssLines.toLocaleString("en")} lines: peak RSS`,
        value: `${mb(r.rssBytes)} MB`,
        baseline: `1,000 lines: ${mb(r.baselineRssBytes)} MB`,
        ratio: (r.rssBytes / r.baselineRssBytes).toFixed(2),
        target: "< 150 MB",
      },
      {
        measure: "  time to the first result line",
        value: `${r.firstResultMs} ms`,
        baseline: `1,000 lines: ${r.baselineFirstResultMs} ms`,
        ratio: (r.firstResultMs / r.baselineFirstResultMs).toFixed(2),
        target: "report",
      },
    ],
    { title: "operator CLI" },
  );
  await writeResult("cli", r);
}

runWhenDirect("cli", async () => {
  const r = await runCliBench();
  await reportCliBench(r);
  return r.pass.pacing && r.pass.memory;
});

/**
 * The CLI bulk job alone, three times (issue 28): 600 renewals at L = 60 per 3 s must each finish
 * within ⌈N/L⌉ windows + 5 %, with no 429. (The RSS check of runCliBench runs on 1,000 lines only.)
 */
export async function runCliBulkRuns(runs = 3): Promise<{ ratios: number[]; count429: number; pass: boolean }> {
  const ratios: number[] = [];
  let count429 = 0;
  let pass = true;
  for (let i = 0; i < runs; i++) {
    const r = await runCliBench({ domains: 600, limit: 60, windowMs: 3000, rssLines: 1000 });
    ratios.push(r.jobMs / r.idealMs);
    count429 += r.count429Cli + r.count429Server;
    pass &&= r.pass.pacing;
  }
  return { ratios, count429, pass };
}
