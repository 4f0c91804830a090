// J1: every shell line of the guides (both languages) that starts one of the package's commands runs:
// `npx <bin>` / `<bin>` for each package.json bin, and `npm run <script>` for scripts that run a bin's
// source. A command that exits must exit 0 (and print every `--flag` its comment promises); a command
// that keeps running must print its JSON line, answer on its baseUrl, and stop cleanly on SIGTERM.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulatorServer, type EmulatorServer } from "../../emulator/public";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import { binEntries, repoRoot } from "../../docs/.vitepress/package-entries";
import { allBlocks } from "./guide-blocks";

interface ShellCommand {
  line: string;
  where: string[];
  /** Looks like one of ours (`npx reseller…`) but package.json has no such bin or script. */
  unknown?: boolean;
}

const bins = new Map(binEntries().map((b) => [b.name, b.source]));
const scripts = (
  JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { scripts: Record<string, string> }
).scripts;

/** The command's argv as this checkout runs it (no build needed), or undefined if it is not ours. */
function translate(words: string[]): string[] | undefined {
  const [first, second, third, ...rest] = words;
  // `npx -p reseller-api <bin> …`: the package named explicitly (outside an installed project).
  if (first === "npx" && second === "-p" && third === "reseller-api") return translate(["npx", ...rest]);
  if (first === "npx" && second && bins.has(second)) return [bins.get(second)!, ...(third ? [third] : []), ...rest];
  if (bins.has(first)) return [bins.get(first)!, ...words.slice(1)];
  if (first === "npm" && second === "run" && third && scripts[third]) {
    const script = /^tsx (\S+)$/.exec(scripts[third]);
    const source = script?.[1];
    if (source && [...bins.values()].includes(source))
      return [source, ...rest.filter((w, i) => !(i === 0 && w === "--"))];
  }
  return undefined;
}

function commands(): ShellCommand[] {
  const found = new Map<string, ShellCommand>();
  for (const block of allBlocks(["sh", "bash", "shell", "console"])) {
    for (const raw of block.code.split("\n")) {
      const line = raw.replace(/^\$\s+/, "").trim();
      if (!line || line.startsWith("#")) continue;
      const head = line
        .replace(/\s+#.*$/, "")
        .replace(/\s*&$/, "")
        .replace(/\s+\d?>\s*\S+/g, "");
      const words = head.split(/\s+/);
      const ours = translate(words) !== undefined;
      const looksOurs = /^(npx\s+(-p\s+reseller-api\s+)?)?reseller/.test(head);
      if (!ours && !looksOurs) continue;
      const where = `${relative(repoRoot, block.guide.file)}:${block.line}`;
      const seen = found.get(line);
      if (seen) seen.where.push(where);
      else found.set(line, { line, where: [where], unknown: !ours });
    }
  }
  return [...found.values()];
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  stillRunning: boolean;
}

/** Runs until it exits, or until it has printed its first stdout line and `whileRunning` is done. */
function runCommand(
  argv: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  whileRunning: ((firstLine: string) => Promise<void>) | undefined,
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    // tsx resolved from here: the command runs in an empty temp dir, as a user's shell would.
    const child = spawn(
      process.execPath,
      ["--import", import.meta.resolve("tsx"), join(repoRoot, argv[0]), ...argv.slice(1)],
      {
        cwd,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, ...env, NO_COLOR: "1" },
      },
    );
    let stdout = "";
    let stderr = "";
    let checking = false;
    let stillRunning = false;
    // A hang guard only (it decides nothing): a command that neither exits nor prints a line.
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${argv.join(" ")}: no exit and no stdout line within 30 s\n${stderr}`));
    }, 30_000);
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    child.stdout.on("data", (b: Buffer) => {
      stdout += b.toString();
      const nl = stdout.indexOf("\n");
      // Only a server (known from its command line, see isServer) is checked while it runs; every
      // other command — a help printer, a job that prints results line by line — is waited for.
      if (nl < 0 || checking || !whileRunning) return;
      checking = true;
      clearTimeout(timer);
      stillRunning = true;
      whileRunning(stdout.slice(0, nl)).then(
        () => child.kill("SIGTERM"),
        (e: unknown) => {
          child.kill("SIGKILL");
          reject(e);
        },
      );
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, stillRunning });
    });
  });
}

/**
 * The emulator's bin serves until stopped and prints its JSON line first — unless its arguments ask
 * for a one-shot answer (`--help`/`-h` prints the usage and exits, as its help says). Decided from
 * the command line, never from how soon the process exits.
 */
function isServer(head: string): boolean {
  if (!/reseller-emulator|npm run emulator/.test(head)) return false;
  return !head.split(/\s+/).some((w) => w === "--help" || w === "-h");
}

const found = commands();

// Commands that talk to the API (the operator CLI) find an emulator through the usual variables.
let server: EmulatorServer;
beforeAll(async () => {
  server = await startEmulatorServer({ withDefaultKeys: true });
});
afterAll(async () => {
  await server?.close();
});

function apiEnv(cwd: string): NodeJS.ProcessEnv {
  const token = server.emulator.control.keys().find((k) => k.environment === "test")!.token;
  return {
    RESELLER_API_BASE_URL: server.baseUrl,
    RESELLER_API_TOKEN: token,
    RESELLER_JOURNAL: join(cwd, "journal.sqlite"),
    XDG_STATE_HOME: cwd,
  };
}

describe("J1: guide shell commands run", () => {
  it("the guides start the emulator from the shell at least once", () => {
    expect(found.some((c) => /reseller-emulator|npm run emulator/.test(c.line))).toBe(true);
  });

  for (const command of found) {
    it(`${command.line} (${command.where.join(", ")})`, async () => {
      expect(command.unknown, `${command.line}: package.json has no such bin or script`).toBeFalsy();
      const [, comment = ""] = /\s#\s?(.*)$/.exec(command.line) ?? [];
      const head = command.line
        .replace(/\s+#.*$/, "")
        .replace(/\s*&$/, "")
        .replace(/\s+\d?>\s*\S+/g, "");
      const argv = translate(head.split(/\s+/))!;
      const cwd = mkdtempSync(join(tmpdir(), "guide-shell-"));
      try {
        // The `commands` lines read a journal a job made before (they never create one): make it.
        await createSqliteJournal({ filename: join(cwd, "journal.sqlite") }).close();
        const server = isServer(head);
        const ran = await runCommand(
          argv,
          cwd,
          apiEnv(cwd),
          server
            ? async (firstLine) => {
                const info = JSON.parse(firstLine) as {
                  baseUrl: string;
                  keys: { token: string; environment: string }[];
                };
                const key = info.keys.find((k) => k.environment === "test") ?? info.keys[0];
                const res = await fetch(`${info.baseUrl}/context`, {
                  headers: { authorization: `Bearer ${key.token}` },
                });
                expect(res.status).toBe(200);
              }
            : undefined,
        );
        expect(ran.code, ran.stderr).toBe(0);
        if (!ran.stillRunning) {
          // A help line promises flags in its comment ("# --port, --window-ms, …"): the help must print each.
          for (const flag of comment.match(/--[a-z][\w-]*/g) ?? []) expect(ran.stdout).toContain(flag);
        }
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    });
  }
});
