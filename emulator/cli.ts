// `reseller-emulator`: the reference emulator on a loopback port. stdout carries exactly one JSON line
// (where to connect and which keys to use) so scripts can read it; everything else goes to stderr.
// No shebang here: tsup adds it to dist/cli.js.
import { readFileSync, realpathSync, renameSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { currentParentage, onParentExit } from "./parent-watch";
import { isEmulatorControlError } from "./control-error";
import { startEmulatorServer, type EmulatorServerOptions } from "./server";
import type { EmulatorSeed } from "./types";

const USAGE = `Usage: reseller-emulator [options]

Starts the Reseller API emulator and prints one JSON line to stdout:
  {"baseUrl": ..., "controlUrl": ..., "keys": [{"token", "environment", "public_key_id", "scopes", "rate_limit_per_minute"}, ...]}

Options:
  --host HOST            interface to bind (default 127.0.0.1; loopback only is recommended)
  --port PORT            TCP port, 0 = ephemeral (default 0)
  --window-ms MS         fixed rate-limit window length (default 60000)
  --replay-ttl-ms MS     how long an Idempotency-Key replays its first response (default 86400000 = 24 h)
  --rate-limit N         default requests per window for new keys, 1..10000 (default 120)
  --seed FILE            JSON seed file ({"keys": [...], "domains": [...]}); replaces the default keys
  --print-to FILE        also write the JSON line to FILE (written whole, then renamed into place)
  --keep-alive           keep running after the process that started this one exits
  --help                 show this help

SIGTERM / SIGINT stop the server and exit 0. So does the exit of the process that started it (a
shell job, npx, a test runner), unless --keep-alive is given. Exit status 2: a bad option, seed
file, address or port, reported in one line on stderr; 1: an unexpected failure.`;

export class UsageError extends Error {
  override name = "UsageError";
}

export interface CliOptions extends EmulatorServerOptions {
  help: boolean;
  seedFile?: string;
  printTo?: string;
  keepAlive: boolean;
}

function integer(flag: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw.trim())) throw new UsageError(`${flag} must be an integer, got ${JSON.stringify(raw)}`);
  const value = Number(raw.trim());
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`${flag} must be between ${min} and ${max}, got ${raw}`);
  }
  return value;
}

/**
 * An IP address this machine does not have can never be bound: refused here, in one line, before
 * the server would print its non-loopback warning and then fail to listen (two lines for one mistake).
 * Host names and the wildcard addresses are left to the bind.
 */
function checkLocalAddress(host: string): void {
  const bare = host.replace(/^\[|\]$/g, "");
  if (isIP(bare) === 0 || bare === "0.0.0.0" || bare === "::") return;
  const own = Object.values(networkInterfaces())
    .flat()
    .map((i) => i?.address);
  if (bare.startsWith("127.") || bare === "::1" || own.includes(bare)) return;
  throw new UsageError(
    `--host ${host}: not an address of this machine, so nothing can listen there: use 127.0.0.1 (the default), or an address one of its interfaces has`,
  );
}

/** Parses and validates argv (without node and script); throws UsageError on bad input. */
export function parseCliArgs(argv: readonly string[]): CliOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        host: { type: "string" },
        port: { type: "string" },
        "window-ms": { type: "string" },
        "replay-ttl-ms": { type: "string" },
        "rate-limit": { type: "string" },
        seed: { type: "string" },
        "print-to": { type: "string" },
        "keep-alive": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const v = parsed.values;
  if (v.host?.trim() === "") throw new UsageError("--host must not be empty");
  if (v.seed?.trim() === "") throw new UsageError("--seed must name a file");
  if (v["print-to"]?.trim() === "") throw new UsageError("--print-to must name a file");
  if (v.host !== undefined) checkLocalAddress(v.host.trim());
  return {
    help: v.help === true,
    host: v.host?.trim(),
    port: integer("--port", v.port, 0, 65535),
    windowMs: integer("--window-ms", v["window-ms"], 1, 2 ** 31 - 1),
    replayTtlMs: integer("--replay-ttl-ms", v["replay-ttl-ms"], 1, Number.MAX_SAFE_INTEGER),
    defaultRateLimit: integer("--rate-limit", v["rate-limit"], 1, 10_000),
    seedFile: v.seed,
    printTo: v["print-to"],
    keepAlive: v["keep-alive"] === true,
  };
}

/** Reads a seed file; a missing file or bad JSON is a usage error, not a crash. */
export function readSeed(file: string): EmulatorSeed {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new UsageError(`--seed: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let seed: unknown;
  try {
    seed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--seed: ${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (seed === null || typeof seed !== "object" || Array.isArray(seed)) {
    throw new UsageError(`--seed: ${file} must contain a JSON object like {"keys": [...], "domains": [...]}`);
  }
  const { keys, domains } = seed as Record<string, unknown>;
  if (keys !== undefined && !Array.isArray(keys)) throw new UsageError(`--seed: "keys" must be an array`);
  if (domains !== undefined && !Array.isArray(domains)) throw new UsageError(`--seed: "domains" must be an array`);
  return seed;
}

/** Starts the server, prints the JSON line, and stops on SIGTERM/SIGINT. Returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  // Read before the server starts, so a parent that dies during start-up is still noticed.
  const parentage = currentParentage();
  let options: CliOptions;
  try {
    options = parseCliArgs(argv);
    if (options.help) {
      process.stdout.write(USAGE + "\n");
      return 0;
    }
  } catch (error) {
    if (error instanceof UsageError) {
      // One line on stderr (as the help text promises); the options are one --help away.
      process.stderr.write(`reseller-emulator: ${error.message} (reseller-emulator --help lists the options)\n`);
      return 2;
    }
    throw error;
  }

  const { help: _help, seedFile, printTo, keepAlive, ...serverOptions } = options;
  let seed: EmulatorSeed | undefined;
  try {
    seed = seedFile === undefined ? undefined : readSeed(seedFile);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`reseller-emulator: ${error.message}\n`);
      return 2;
    }
    throw error;
  }

  // A non-loopback --host: serveEmulator() prints the warning (for the CLI and for code alike).
  let server: Awaited<ReturnType<typeof startEmulatorServer>>;
  try {
    server = await startEmulatorServer({ ...serverOptions, seed, withDefaultKeys: seed === undefined });
  } catch (error) {
    // A refused seed entry or an address it cannot bind: the user's input, so one line and no stack.
    if (!isEmulatorControlError(error)) throw error;
    const message =
      seedFile !== undefined && error.message.startsWith("seed.")
        ? `--seed ${seedFile}: ${error.message.slice("seed.".length)}`
        : error.message;
    process.stderr.write(`reseller-emulator: ${message}\n`);
    return 2;
  }
  const keys = server.emulator.control.keys().map((key) => ({
    token: key.token,
    environment: key.environment,
    public_key_id: key.public_key_id,
    scopes: key.scopes,
    rate_limit_per_minute: key.rate_limit_per_minute,
  }));
  const line = JSON.stringify({ baseUrl: server.baseUrl, controlUrl: server.controlUrl, keys }) + "\n";
  if (printTo !== undefined) {
    try {
      // Whole or not at all: a script polling for the file never reads half a line.
      writeFileSync(`${printTo}.tmp-${process.pid}`, line, { mode: 0o600 });
      renameSync(`${printTo}.tmp-${process.pid}`, printTo);
    } catch (error) {
      await server.close();
      process.stderr.write(`reseller-emulator: --print-to: cannot write ${printTo}: ${(error as Error).message}\n`);
      return 2;
    }
  }
  process.stdout.write(line);
  process.stderr.write(`reseller-emulator: listening on ${server.baseUrl} (control ${server.controlUrl})\n`);

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (why: string) => {
      if (stopping) return;
      stopping = true;
      process.stderr.write(`reseller-emulator: ${why}, closing\n`);
      server.close().then(
        () => resolve(0),
        (error: unknown) => {
          process.stderr.write(`reseller-emulator: close failed: ${String(error)}\n`);
          resolve(1);
        },
      );
    };
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
    if (!keepAlive) onParentExit((pid) => stop(`the process that started it (pid ${pid}) exited`), parentage);
  });
}

function isEntry(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  // `tsx emulator/cli.ts`, `node dist/cli.js` and the npm bin symlink all resolve to this module's file;
  // an import (tests, bundles) does not.
  let self: string | undefined;
  try {
    self = typeof import.meta.url === "string" ? fileURLToPath(import.meta.url) : undefined;
  } catch {
    self = undefined;
  }
  const byName = /(?:^|[\\/])(?:cli(?:\.(?:ts|js|mjs|cjs))?|reseller-emulator)$/.test(script);
  if (self === undefined) return byName;
  try {
    return realpathSync(script) === realpathSync(self);
  } catch {
    return byName;
  }
}

if (isEntry()) {
  main(process.argv.slice(2)).then(
    // Exit explicitly: a timer left by the emulator must not keep a stopped server's process alive.
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(
        `reseller-emulator: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
