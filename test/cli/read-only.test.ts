/**
 * Read-only commands leave no trace, output never shows the token, and a journal that cannot be
 * opened is one clear message: `context`, `domains list` and the dry runs create no journal file (the
 * default one, nor a relative RESELLER_JOURNAL in the working directory); `check --dry-run
 * --token-file` prints neither the token nor its bare secret part (JSON and text, stdout and stderr);
 * the SQLite store's refusal is stated once, in the CLI's terms, with exit code 4.
 */
import { EventEmitter } from "node:events";
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../cli/main";
import type { Runtime } from "../../cli/job-session";
import { openFailure } from "../../cli/sqlite-open";
import { SetupError } from "../../cli/errors";
import { InvalidOptionsError } from "../../src/index";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import { cli, jsonLines, runCli, startEmulator, tempDir, type EmulatorProcess } from "./harness";

/** The built CLI (it runs from any working directory). */
const CLI = cli();

let emu: EmulatorProcess;
const tmp = tempDir("reseller-cli-read-only-");

beforeAll(async () => {
  emu = await startEmulator(["--window-ms", "1000", "--rate-limit", "600"]);
});
afterAll(async () => {
  await emu?.stop();
  tmp.cleanup();
});

/** Every file and folder under `dir`, relative to it. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((p) => relative(dir, join(dir, p)))
    .sort();
}

describe("read-only commands create no file", () => {
  it("G1: context and domains list create no journal file — not the default one, not a relative RESELLER_JOURNAL in the working directory", async () => {
    for (const [args, journal] of [
      [["context"], undefined],
      [["domains", "list"], undefined],
      [["--json", "context"], "commands.sqlite"],
      [["domains", "list", "--expiring-within", "400d"], "commands.sqlite"],
      [["--journal", "journal.sqlite", "context"], undefined],
    ] as [string[], string | undefined][]) {
      const cwd = tempDir("reseller-cli-cwd-");
      try {
        const r = await runCli(
          CLI,
          args,
          {
            RESELLER_API_TOKEN: emu.token,
            RESELLER_API_BASE_URL: emu.baseUrl,
            RESELLER_JOURNAL: journal,
            // The default journal lives under XDG_STATE_HOME: here, inside the working directory.
            XDG_STATE_HOME: join(cwd.dir, "state"),
          },
          undefined,
          undefined,
          cwd.dir,
        );
        expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
        expect(jsonLines(r.stdout).length, args.join(" ")).toBeGreaterThan(0);
        expect(tree(cwd.dir), args.join(" ")).toEqual([]);
        // The notice says that this command opened no journal.
        const notices = jsonLines(r.stderr)
          .filter((e) => e.type === "notice")
          .map((e) => String(e.message));
        expect(
          notices.some((m) => m === "journal: none (this command only reads)"),
          args.join(" "),
        ).toBe(true);
        // context names the journal jobs would use — as that, not as one it opened.
        if (args.includes("context")) {
          const [info] = jsonLines(r.stdout);
          expect(info, args.join(" ")).not.toHaveProperty("journal");
          expect(String(info.jobs_journal), args.join(" ")).toMatch(/journal\.sqlite|commands\.sqlite/);
        }
      } finally {
        cwd.cleanup();
      }
    }
  }, 120_000);

  it("G1: renew and register --dry-run and check --dry-run create no journal file where none exists", async () => {
    const cwd = tempDir("reseller-cli-cwd-");
    const input = tempDir("reseller-cli-input-");
    try {
      const names = join(input.dir, "names.txt");
      writeFileSync(names, "example.kz\n");
      const orders = join(input.dir, "orders.csv");
      writeFileSync(orders, "external_id,domain,period,nameservers\nro-1,readonly-dry.kz,1,\n");
      for (const args of [
        ["renew", names, "--dry-run"],
        ["renew", "--expiring-within", "400d", "--dry-run", "--no-quotes"],
        ["register", orders, "--dry-run"],
        ["check", "a.kz", "--dry-run"],
      ]) {
        const r = await runCli(
          CLI,
          args,
          {
            RESELLER_API_TOKEN: emu.token,
            RESELLER_API_BASE_URL: emu.baseUrl,
            RESELLER_JOURNAL: undefined,
            XDG_STATE_HOME: join(cwd.dir, "state"),
          },
          undefined,
          undefined,
          cwd.dir,
        );
        expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
        expect(tree(cwd.dir), args.join(" ")).toEqual([]);
      }
    } finally {
      cwd.cleanup();
      input.cleanup();
    }
  }, 120_000);
});

/** Runs `reseller …` in this process with stdout and stderr as terminals (text) or pipes (JSON). */
async function runInProcess(argv: string[], tty: boolean, env: NodeJS.ProcessEnv = {}) {
  let out = "";
  let err = "";
  const stdout = Object.assign(new PassThrough(), { isTTY: tty, columns: 200 });
  const stderr = Object.assign(new PassThrough(), { isTTY: tty, columns: 200 });
  stdout.on("data", (d: Buffer) => (out += d.toString()));
  stderr.on("data", (d: Buffer) => (err += d.toString()));
  const rt: Runtime = {
    stdout,
    stderr,
    stdin: Object.assign(Readable.from([]), { isTTY: true }),
    env: { NO_COLOR: "1", ...env },
    proc: Object.assign(new EventEmitter(), {
      exit: (code: number) => {
        throw new Error(`exit ${code}`);
      },
    }) as unknown as NodeJS.Process,
  };
  const code = await main(argv, rt);
  return { code, stdout: out, stderr: err };
}

describe("the --token-file token is never printed", () => {
  it("A4: check --dry-run with --token-file redacts the token and its bare secret part on stdout and stderr, as JSON and as text", async () => {
    const secret = emu.token.slice(emu.token.indexOf(".") + 1);
    expect(secret.length).toBe(64);
    const tokenFile = join(tmp.dir, "token");
    writeFileSync(tokenFile, emu.token + "\n");
    chmodSync(tokenFile, 0o600);
    // An input file a person pasted the secret part into: as a line, inside a name, after a comment.
    const names = join(tmp.dir, "names.txt");
    writeFileSync(names, `ok.kz\n${secret}\n${secret}.kz\nx${secret}y\n`);
    const argv = ["--token-file", tokenFile, "check", "--dry-run", "--file", names];
    for (const tty of [false, true]) {
      const r = await runInProcess(argv, tty);
      const printed = r.stdout + r.stderr;
      expect(r.code, printed).toBe(1); // the pasted lines are invalid names
      expect(printed).toContain("ok.kz");
      expect(printed).toContain("[REDACTED]");
      expect(printed, tty ? "text" : "JSON").not.toContain(secret);
      expect(printed).not.toContain(emu.token);
    }
    // The same through the real process (stdout and stderr piped: JSON lines).
    const r = await runCli(CLI, argv, { RESELLER_API_TOKEN: "", RESELLER_API_BASE_URL: "" });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout + r.stderr).toContain("[REDACTED]");
    expect(r.stdout + r.stderr).not.toContain(secret);
  }, 60_000);

  it("A4: commands list with --token-file (a command that never reads the token) does not print its secret part either", async () => {
    const secret = emu.token.slice(emu.token.indexOf(".") + 1);
    const tokenFile = join(tmp.dir, "token-2");
    writeFileSync(tokenFile, emu.token + "\n");
    chmodSync(tokenFile, 0o600);
    // A journal path that quotes the secret (a pasted mistake): the set-up error names the path.
    const r = await runInProcess(
      ["--token-file", tokenFile, "commands", "list", "--journal", join(tmp.dir, secret)],
      false,
    );
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain("[REDACTED]");
    expect(r.stdout + r.stderr).not.toContain(secret);
  });
});

describe("a journal that cannot be opened", () => {
  it("G1: a folder given as the journal is one cli_setup error (exit 4) stating the cause and the fix once, in --journal terms", async () => {
    const dir = join(tmp.dir, "a-folder");
    mkdirSync(dir, { recursive: true });
    const r = await runCli(CLI, ["recover", "--journal", dir], {
      RESELLER_API_TOKEN: emu.token,
      RESELLER_API_BASE_URL: emu.baseUrl,
    });
    expect(r.code, r.stderr).toBe(4);
    const [error] = jsonLines(r.stderr).filter((e) => e.type === "error");
    expect(error).toMatchObject({ code: "cli_setup", exitCode: 4 });
    expect(error.message).toBe(
      `Cannot open the SQLite journal ${dir} (EISDIR): it is a folder: pass a file inside it, e.g. --journal ${dir}/journal.sqlite.`,
    );
  }, 60_000);

  it("G1: the store's InvalidOptionsError becomes one SetupError: the file and code once, no SDK option names, no second fix", () => {
    const notDb = join(tmp.dir, "not-a-db.sqlite");
    writeFileSync(notDb, "this is not a SQLite database, only text long enough to have a header\n".repeat(20));
    chmodSync(notDb, 0o600);
    // [file, the cause and fix, how often the message names the file (the folder's fix quotes it)]
    const cases: [string, RegExp, number][] = [
      [join(tmp.dir, "b-folder"), /\(EISDIR\): it is a folder: pass a file inside it, e\.g\. --journal /, 2],
      [
        notDb,
        /\(SQLITE_NOTADB\): it is not a SQLite database \(another file\?\): pass the journal's own file with --journal, or a new path\.$/,
        1,
      ],
    ];
    mkdirSync(cases[0][0], { recursive: true });
    for (const [file, fix, mentions] of cases) {
      let storeError: unknown;
      try {
        createSqliteJournal({ filename: file, driver: "better-sqlite3" });
      } catch (e) {
        storeError = e;
      }
      expect((storeError as { name?: string }).name).toBe("InvalidOptionsError");
      const error = openFailure(storeError, file, { name: "node", version: "20.0.0" });
      expect(error).toBeInstanceOf(SetupError);
      expect(error.code).toBe("cli_setup");
      expect(error.message.startsWith(`Cannot open the SQLite journal ${file} (`)).toBe(true);
      expect(error.message).toMatch(fix);
      expect(error.message.split(file).length - 1, error.message).toBe(mentions);
      expect(error.message).not.toMatch(/cannot be opened|filename|Check that its folder|\.\./);
    }
  });
});

describe("a journal Deno may not open", () => {
  it("G1: Deno's refusal, raw or as the store's InvalidOptionsError, is one SetupError naming the exact flags once", () => {
    const file = "/srv/jobs/journal.sqlite";
    const raw = Object.assign(
      new Error('Requires write access to "/srv/jobs/journal.sqlite", run again with the --allow-write flag'),
      {
        name: "NotCapable",
      },
    );
    const store = new InvalidOptionsError(
      "The journal /srv/jobs/journal.sqlite cannot be opened: Deno was not given access to its folder. Run with --allow-read=/srv/jobs --allow-write=/srv/jobs (SQLite also writes the -wal and -shm files beside it), or pass a filename in a folder it may use.",
      "filename",
    );
    for (const error of [raw, store]) {
      const e = openFailure(error, file, { name: "deno", version: "2.2.0" });
      expect(e).toBeInstanceOf(SetupError);
      expect(e.message).toBe(
        "Cannot open the SQLite journal /srv/jobs/journal.sqlite: Deno was not allowed to read and write the journal's folder (the file, its -wal and -shm): add --allow-read=/srv/jobs --allow-write=/srv/jobs (or run with -A).",
      );
    }
  });
});

describe("where the default journal is", () => {
  it("G1: commands list without a journal names the default path and where it comes from — XDG_STATE_HOME, or ~/.local/state when it is not set", async () => {
    const home = tempDir("reseller-cli-home-");
    try {
      for (const [xdg, path, from] of [
        [join(home.dir, "xdg"), join(home.dir, "xdg", "reseller", "journal.sqlite"), "under XDG_STATE_HOME)"],
        [
          "",
          join(home.dir, ".local", "state", "reseller", "journal.sqlite"),
          "under ~/.local/state: XDG_STATE_HOME is not set)",
        ],
      ]) {
        const r = await runCli(CLI, ["commands", "list"], {
          HOME: home.dir,
          XDG_STATE_HOME: xdg,
          RESELLER_JOURNAL: undefined,
        });
        expect(r.code, r.stderr).toBe(4);
        const [error] = jsonLines(r.stderr);
        expect(error.message).toContain(`No journal at ${path}:`);
        expect(error.message).toContain(`(this is the default path, ${from}`);
        expect(tree(home.dir)).toEqual([]);
      }
    } finally {
      home.cleanup();
    }
  }, 60_000);
});
