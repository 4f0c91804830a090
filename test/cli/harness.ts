/**
 * CLI test harness: the real `reseller-emulator` in a child process on a loopback port, the CLI in
 * child processes (both the built bins, as a user runs them), and the emulator's /_emulator control
 * API for domains, faults, effects and the request log.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import { afterAll, beforeAll } from "vitest";

export const REPO = fileURLToPath(new URL("../..", import.meta.url));

/** What the package is built from: every source folder tsup reads, its config and package.json. */
const BUILD_INPUTS = [
  "cli",
  "core",
  "emulator",
  "generated",
  "journal",
  "middleware",
  "otel",
  "pacing",
  "recovery",
  "runner",
  "runtime",
  "src",
  "stores",
];
const CACHE = join(REPO, "node_modules", ".cache");
const BUILD_PREFIX = "reseller-built-";

function sourcesHash(): string {
  const hash = createHash("sha256");
  const add = (path: string) =>
    hash
      .update(path)
      .update("\0")
      .update(readFileSync(join(REPO, path)))
      .update("\0");
  const walk = (dir: string) => {
    for (const e of readdirSync(join(REPO, dir), { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else add(rel);
    }
  };
  for (const dir of BUILD_INPUTS) walk(dir);
  add("tsup.config.ts");
  add("package.json");
  return hash.digest("hex").slice(0, 16);
}

let built: string | undefined;

/**
 * The package built by tsup (the config `npm run bundle` uses) into node_modules/.cache, so its bins
 * resolve their dependencies as an installed package's do. Built once per state of the sources and
 * reused by every test file until they change (a build takes ~15 s on two cores; a bin starts in a
 * third of the time `node --import tsx` needs). Returns the folder.
 */
function builtPackage(): string {
  if (built !== undefined) return built;
  const dir = join(CACHE, BUILD_PREFIX + sourcesHash());
  if (!existsSync(join(dir, "reseller.js"))) {
    mkdirSync(CACHE, { recursive: true });
    const out = mkdtempSync(join(CACHE, "reseller-building-"));
    const r = spawnSync("npx", ["tsup", "--out-dir", out], { cwd: REPO, encoding: "utf8", timeout: 600_000 });
    if (r.status !== 0) {
      rmSync(out, { recursive: true, force: true });
      throw new Error(`tsup failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
    }
    // Builds of older sources go; a test process building the same sources at once keeps its own.
    for (const old of readdirSync(CACHE))
      if (old.startsWith(BUILD_PREFIX) && join(CACHE, old) !== dir)
        rmSync(join(CACHE, old), { recursive: true, force: true });
    try {
      renameSync(out, dir);
    } catch {
      rmSync(out, { recursive: true, force: true });
    }
  }
  built = dir;
  return dir;
}

/** The operator CLI's command line: the built `reseller` bin, run by this Node.js. */
export function cli(): string[] {
  return [join(builtPackage(), "reseller.js")];
}

/** The built `reseller` bin (its folder holds the other built entries and bins). */
export function buildBin(): { bin: string } {
  return { bin: join(builtPackage(), "reseller.js") };
}

export interface EmulatorProcess {
  baseUrl: string;
  controlUrl: string;
  token: string;
  keyId: string;
  control<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  stop(): Promise<void>;
}

export async function startEmulator(args: string[] = []): Promise<EmulatorProcess> {
  const child = spawn(process.execPath, [join(builtPackage(), "cli.js"), ...args], {
    cwd: REPO,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf("\n");
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    child.once("exit", (code) => reject(new Error(`reseller-emulator exited ${code}: ${stderr}`)));
  });
  const info = JSON.parse(line) as {
    baseUrl: string;
    controlUrl: string;
    keys: { token: string; environment: string; public_key_id: string }[];
  };
  const key = info.keys.find((k) => k.environment === "test")!;
  const control = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(info.controlUrl + path, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${key.token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`control ${method} ${path}: ${res.status} ${await res.text()}`);
    return (res.status === 204 ? undefined : ((await res.json()) as { data: T }).data) as T;
  };
  return {
    baseUrl: info.baseUrl,
    controlUrl: info.controlUrl,
    token: key.token,
    keyId: key.public_key_id,
    control,
    stop: () => stopChild(child),
  };
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

export interface CliRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves when `predicate(stdout, stderr)` holds (checked on every chunk). */
  until(predicate: (stdout: string, stderr: string) => boolean, timeoutMs?: number): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * @param exec the runtime that runs `command` (default this Node.js; Bun, Deno, Node.js 22 from
 *   test/runtimes/binaries.ts); `cwd` where it runs (default the repository).
 */
export function spawnCli(
  command: string[],
  args: string[],
  env: NodeJS.ProcessEnv,
  stdin?: string,
  exec: string = process.execPath,
  cwd: string = REPO,
): CliRun {
  const child = spawn(exec, [...command, ...args], {
    cwd,
    env: { ...process.env, ...env, NO_COLOR: "1" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  const waiters = new Set<() => void>();
  const poke = () => {
    for (const w of waiters) w();
  };
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
    poke();
  });
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
    poke();
  });
  if (stdin !== undefined) child.stdin.end(stdin);
  else child.stdin.end();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => {
      poke();
      resolve({ code, signal });
    }),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    until(predicate, timeoutMs = 60_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (predicate(out, err)) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve();
          } else if (child.exitCode !== null || child.signalCode !== null) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(new Error(`the CLI exited before the condition held:\n${out.slice(-2000)}\n${err.slice(-2000)}`));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting:\n${out.slice(-2000)}\n${err.slice(-2000)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

export async function runCli(
  command: string[],
  args: string[],
  env: NodeJS.ProcessEnv,
  stdin?: string,
  exec?: string,
  cwd?: string,
) {
  const run = spawnCli(command, args, env, stdin, exec, cwd);
  const { code, signal } = await run.exited;
  return { code, signal, stdout: run.stdout(), stderr: run.stderr() };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read whatever fields a JSON line has
type JsonObject = Record<string, any>;

export function jsonLines(text: string): JsonObject[] {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => {
      try {
        return JSON.parse(l) as JsonObject;
      } catch {
        throw new Error(`not a JSON line: ${JSON.stringify(l.slice(0, 200))}`);
      }
    });
}

export function tempDir(prefix: string): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface EmulatorFixture {
  /** The emulator process (set before the file's first test). */
  emu: EmulatorProcess;
  tmp: { dir: string; cleanup(): void };
  /** The CLI's environment against it: its token and base URL, no journal variable. */
  env: () => Record<string, string | undefined>;
}

/** One `reseller-emulator` process and one temp folder for a test file: started before its tests, stopped after. */
export function useEmulatorProcess(args: readonly string[], tmpPrefix: string): EmulatorFixture {
  const fx: EmulatorFixture = {
    emu: undefined as unknown as EmulatorProcess,
    tmp: tempDir(tmpPrefix),
    env: () => ({
      RESELLER_API_TOKEN: fx.emu.token,
      RESELLER_API_BASE_URL: fx.emu.baseUrl,
      RESELLER_JOURNAL: undefined,
    }),
  };
  beforeAll(async () => {
    fx.emu = await startEmulator([...args]);
  });
  afterAll(async () => {
    await fx.emu?.stop();
    fx.tmp.cleanup();
  });
  return fx;
}

/** Creates `count` domains named `${prefix}NNN.kz` expiring in `days` days; returns their names. */
export async function seedDomains(emu: EmulatorProcess, count: number, prefix: string, days = 10): Promise<string[]> {
  const expires = new Date(Date.now() + days * 86_400_000).toISOString();
  const names = Array.from({ length: count }, (_, i) => `${prefix}${String(i + 1).padStart(3, "0")}.kz`);
  for (let i = 0; i < names.length; i += 20) {
    await Promise.all(
      names
        .slice(i, i + 20)
        .map((name) => emu.control("POST", "/domains", { token: emu.token, name, expires_at: expires })),
    );
  }
  return names;
}

/**
 * A support ticket whose outcome could not be read, left in needs_manual_check in the SQLite journal
 * `file` (as a run that gave up on it leaves it): what `commands list|notes|resolve` work on.
 */
export async function recordManualTicket(
  file: string,
  ticket: { id: string; idempotencyKey: string; body: unknown; reason: string; ageMs: number },
): Promise<void> {
  const journal = createSqliteJournal({ filename: file });
  await journal.record({
    id: ticket.id,
    environment: "live",
    apiKeyId: "A".repeat(24),
    operationId: "tickets.create",
    method: "POST",
    path: "/tickets",
    query: "",
    body: new TextEncoder().encode(JSON.stringify(ticket.body)),
    idempotencyKey: ticket.idempotencyKey,
    fingerprint: "0".repeat(64),
    externalId: null,
    lockKey: null,
    createdAt: Date.now() - ticket.ageMs,
  });
  for (const state of ["sending", "unknown", "reconciling"] as const) await journal.transition(ticket.id, state);
  await journal.transition(ticket.id, "needs_manual_check", {
    manualCheck: { reason: ticket.reason, requestIds: ["req-1"] },
  });
  await journal.close();
}
