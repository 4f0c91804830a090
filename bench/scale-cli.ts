// The operator CLI against a journal with history (issue 27): the built `reseller` bin as a child
// process, as an operator runs it — total time, time to the first output row, peak RSS (the CLI's
// own summary event), and `commands show` by Idempotency-Key; and the time until a 10-line
// `renew FILE` sends its first renewal on a 100k-domain account.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCliChild } from "./lib/cli-child";
import { createEmulator, seedDomains, serveEmulator, startEmulatorServer } from "../emulator/public";

const REPO = fileURLToPath(new URL("..", import.meta.url));

/** The package built once into node_modules/.cache (resolves its dependencies like an install). */
export function buildCli(): { bin: string; cleanup(): void } {
  // A bin built already (same sources) skips the build: SCALE_RESELLER_BIN=/path/to/reseller.js.
  const given = process.env.SCALE_RESELLER_BIN;
  if (given) return { bin: given, cleanup: () => undefined };
  const cache = join(REPO, "node_modules", ".cache");
  mkdirSync(cache, { recursive: true });
  const out = mkdtempSync(join(cache, "reseller-scale-bench-"));
  const r = spawnSync("npx", ["tsup", "--out-dir", out], { cwd: REPO, encoding: "utf8", timeout: 600_000 });
  if (r.status !== 0) throw new Error(`tsup failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return { bin: join(out, "reseller.js"), cleanup: () => rmSync(out, { recursive: true, force: true }) };
}

export interface CliRun {
  code: number | null;
  wallMs: number;
  firstLineMs: number;
  lines: number;
  maxRssBytes: number;
  stderr: string;
}

export async function runCli(bin: string, args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  const run = await runCliChild([bin, ...args, "--json"], { RESELLER_JOURNAL: "", ...env });
  const summary = run.stderr
    .split("\n")
    .reverse()
    .find((l) => l.includes('"type":"summary"'));
  const maxRssBytes = summary ? ((JSON.parse(summary) as { maxRssBytes?: number }).maxRssBytes ?? NaN) : NaN;
  return { ...run, maxRssBytes };
}

/** An emulator account whose 2,000 domains are the CLI job's rows (names in a file, UUIDs returned). */
export async function jobAccount(dir: string, rows = 2000) {
  const server = await startEmulatorServer({ host: "127.0.0.1", port: 0, defaultRateLimit: 10_000 });
  const key = server.emulator.control.createKey({ environment: "test", rate_limit_per_minute: 10_000 });
  const { names } = seedDomains(server.emulator, { token: key.token, count: rows, prefix: "scalejob" });
  const byName = new Map(server.emulator.control.domains(key.token).map((d) => [d.name, d.uuid]));
  const namesFile = join(dir, "job-names.txt");
  writeFileSync(namesFile, names.join("\n") + "\n");
  return {
    server,
    key,
    namesFile,
    uuids: names.map((n) => byName.get(n)!.toLowerCase()),
    env: { RESELLER_API_TOKEN: key.token, RESELLER_API_BASE_URL: server.baseUrl },
  };
}

export interface CliFigures {
  renewMs: number;
  firstRowMs: number;
  peakRssMb: number;
  showMs: number;
}

/** One 2,000-line `renew FILE --dry-run --no-quotes` on `journal`: total, first row, peak RSS. */
export async function cliRenew(
  bin: string,
  account: { namesFile: string; env: Record<string, string>; rows?: number },
  journal: string,
): Promise<Omit<CliFigures, "showMs">> {
  const renew = await runCli(
    bin,
    ["renew", account.namesFile, "--dry-run", "--no-quotes", "--journal", journal],
    account.env,
  );
  if (renew.code !== 0 || renew.lines < (account.rows ?? 2000))
    throw new Error(`renew --dry-run exited ${renew.code} after ${renew.lines} rows:\n${renew.stderr.slice(-2000)}`);
  return { renewMs: renew.wallMs, firstRowMs: renew.firstLineMs, peakRssMb: renew.maxRssBytes / 1048576 };
}

/** One `commands show <key>` on `journal`: its wall time, ms. */
export async function cliShowMs(
  bin: string,
  account: { env: Record<string, string> },
  journal: string,
  showKey: string,
): Promise<number> {
  const show = await runCli(bin, ["commands", "show", showKey, "--journal", journal], account.env);
  if (show.code !== 0) throw new Error(`commands show exited ${show.code}:\n${show.stderr.slice(-2000)}`);
  return show.wallMs;
}

/**
 * A 10-line `renew FILE` (real renewals, --no-wait) on an account of `domains` domains: ms from the
 * process start until the emulator received its first renewal. Timed where the request arrives: the
 * request log's `at` keeps whole seconds only (the API's timestamp format).
 */
export async function firstRenewalMs(bin: string, dir: string, domains = 100_000): Promise<number> {
  const emulator = createEmulator({ defaultRateLimit: 10_000 });
  let firstRenewalAt: number | undefined;
  const served = await serveEmulator({
    handle(request, info) {
      if (firstRenewalAt === undefined && request.method === "POST" && request.url.endsWith("/renew"))
        firstRenewalAt = performance.now();
      return emulator.handle(request, info);
    },
  });
  try {
    const key = emulator.control.createKey({ environment: "test", rate_limit_per_minute: 10_000 });
    emulator.control.deposit(key.public_key_id, 100 * 10_000_00);
    const { names } = seedDomains(emulator, { token: key.token, count: domains, prefix: "big" });
    const file = join(dir, "ten.txt");
    // Ten names spread over the account (the last one is the newest: a listing would reach it last).
    writeFileSync(
      file,
      Array.from({ length: 10 }, (_, i) => names[Math.floor(((i + 1) * names.length) / 10) - 1]).join("\n") + "\n",
    );
    const started = performance.now();
    const run = await runCli(bin, ["renew", file, "--no-wait", "--journal", join(dir, "ten.sqlite")], {
      RESELLER_API_TOKEN: key.token,
      RESELLER_API_BASE_URL: served.baseUrl,
    });
    if (run.code !== 0) throw new Error(`renew FILE exited ${run.code}:\n${run.stderr.slice(-2000)}`);
    if (firstRenewalAt === undefined) throw new Error("renew FILE sent no renewal");
    return firstRenewalAt - started;
  } finally {
    await served.close();
    await emulator.close();
  }
}
