/**
 * Operator mistakes and leaks (cli/main.ts through `node --import tsx`, against `reseller-emulator` over
 * loopback, as a user runs it): a journal URL typo creates nothing, a token inside an input file or a
 * ticket's text is never printed back, a register header that names the wrong columns (or none) is a
 * usage error, `recover` exits 3 while manual checks wait, piped stderr is JSON only, domain filters
 * are exact and checked, read-only journal commands never create a journal, and the summary's
 * counters agree.
 */
import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { promisify } from "node:util";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import {
  REPO,
  cli,
  jsonLines,
  recordManualTicket,
  runCli,
  seedDomains,
  startEmulator,
  tempDir,
  type EmulatorProcess,
} from "./harness";

/** The built CLI (it runs from any working directory). */
const CLI = cli();

let emu: EmulatorProcess;
const tmp = tempDir("reseller-cli-mistakes-");
let n = 0;
const journal = () => join(tmp.dir, `journal-${++n}.sqlite`);
const env = (extra: Record<string, string> = {}) => ({
  RESELLER_API_TOKEN: emu.token,
  RESELLER_API_BASE_URL: emu.baseUrl,
  RESELLER_JOURNAL: undefined,
  XDG_STATE_HOME: join(tmp.dir, "state"),
  ...extra,
});
const file = (name: string, text: string | Buffer) => {
  const path = join(tmp.dir, name);
  writeFileSync(path, text);
  return path;
};
/** The JSON events of stderr (the JSON-stderr test checks that there is nothing else). */
const events = (stderr: string) =>
  jsonLines(
    stderr
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .join("\n"),
  );

beforeAll(async () => {
  emu = await startEmulator(["--window-ms", "1000", "--rate-limit", "600"]);
});
afterAll(async () => {
  await emu?.stop();
  tmp.cleanup();
});

describe("a journal value with another URL scheme", () => {
  for (const url of ["postgress://app:Hunter2Pw@db.example/j", "pg://app:Hunter2Pw@db/j", "MySQL://u:Hunter2Pw@h/db"]) {
    it(`CLI: ${url.replace("Hunter2Pw", "…")} is a usage error naming the accepted forms, redacted, and creates nothing`, async () => {
      const cwd = tempDir("reseller-cli-cwd-");
      try {
        for (const [args, extra] of [
          [["--journal", url, "renew", "--expiring-within", "30d", "--dry-run"], {}],
          [["commands", "list"], { RESELLER_JOURNAL: url }],
        ] as [string[], Record<string, string>][]) {
          const r = await runCli(
            CLI,
            args,
            env({ XDG_STATE_HOME: join(cwd.dir, "state"), ...extra }),
            undefined,
            undefined,
            cwd.dir,
          );
          expect(r.code, r.stderr).toBe(2);
          const [error] = jsonLines(r.stderr);
          expect(error).toMatchObject({ type: "error", code: "cli_usage", exitCode: 2 });
          expect(error.message).toMatch(/file path/);
          expect(error.message).toContain("postgres://");
          expect(error.message).toContain("postgresql://");
          expect(error.message).toContain("[REDACTED]");
          expect(r.stdout + r.stderr).not.toContain("Hunter2Pw");
          expect(readdirSync(cwd.dir)).toEqual([]);
        }
      } finally {
        cwd.cleanup();
      }
    });
  }
});

describe("a token inside an input file", () => {
  it("A4: a token, its secret part or anything token-shaped inside an input file is never printed back", async () => {
    const secret = emu.token.split(".")[1];
    const other = `rsl_live_${"Q".repeat(24)}.${"z".repeat(64)}`;
    const input = file("tokens.txt", [emu.token, secret, other, `${secret}.kz`].join("\n") + "\n");
    const tokenFile = file("token", emu.token + "\n");
    chmodSync(tokenFile, 0o600);
    const runs = [
      await runCli(CLI, ["renew", "--dry-run", input, "--journal", journal()], env()),
      // The token from --token-file (the environment has none): the session's token is the one redacted.
      await runCli(
        CLI,
        ["--token-file", tokenFile, "renew", "--dry-run", input, "--journal", journal()],
        env({ RESELLER_API_TOKEN: "" }),
      ),
      await runCli(CLI, ["check", "--file", input, "--journal", journal()], env()),
      await runCli(CLI, ["check", "--dry-run", "--file", input], env()),
    ];
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(1);
      const rows = jsonLines(r.stdout);
      expect(rows.length).toBeGreaterThanOrEqual(4);
      for (const text of [r.stdout, r.stderr]) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain(other.slice(0, 30));
        expect(text).not.toContain("rsl_live_");
        expect(text).not.toContain("rsl_test_");
      }
      expect(rows[0].subject).toBe("[REDACTED]");
      expect(jsonLines(r.stderr).find((e) => e.type === "row" && e.line === 1)?.subject).toBe("[REDACTED]");
    }
  });
});

describe("what register reads", () => {
  const HEADER = "external_id,domain,period,nameservers";
  const usage = (r: { code: number | null; stderr: string }) => {
    expect(r.code, r.stderr).toBe(2);
    const events = jsonLines(r.stderr);
    expect(events.filter((e) => e.type === "context")).toEqual([]); // refused before any request
    const error = events.find((e) => e.type === "error")!;
    expect(error).toMatchObject({ code: "cli_usage", exitCode: 2 });
    return error.message as string;
  };

  it("CLI: a CSV whose first line is not the order header is a usage error that says what the header must be", async () => {
    const zip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 6, 0]), Buffer.alloc(64, 1)]);
    const cases: [string, string | Buffer, RegExp][] = [
      ["other-columns.csv", "foo,bar\n", /lacks external_id and domain/],
      ["names.csv", "first.kz\nsecond.kz\nthird.kz\n", /got "first\.kz"/],
      ["semicolons.csv", "external_id;domain;period\ncrm-1;a.kz;1\n", /delimiter must be a comma.*semicolons/],
      ["tabs.tsv", "external_id\tdomain\ncrm-1\ta.kz\n", /delimiter must be a comma.*tabs/],
      ["book.xlsx", zip, /not UTF-8 text/],
    ];
    for (const [name, text, why] of cases) {
      const message = usage(
        await runCli(CLI, ["register", "--dry-run", file(name, text), "--journal", journal()], env()),
      );
      expect(message, name).toMatch(why);
      if (!message.includes("not UTF-8")) expect(message, name).toContain(`header ${HEADER}`);
    }
    // Binary stdin, and a header of other columns on stdin.
    expect(
      usage(await runCli(CLI, ["register", "--dry-run", "--journal", journal()], env(), "\u0000\u0001\u0002PK")),
    ).toMatch(/stdin is not UTF-8 text/);
    expect(
      usage(await runCli(CLI, ["register", "--dry-run", "-", "--journal", journal()], env(), "foo,bar\n")),
    ).toContain(HEADER);
  });

  it("CLI: an empty FILE is a usage error for register and renew", async () => {
    for (const [command, name, text] of [
      ["register", "empty.csv", ""],
      ["register", "blank.jsonl", "\n\n# nothing today\n"],
      ["renew", "empty.txt", ""],
    ]) {
      const message = usage(await runCli(CLI, [command, file(name, text), "--journal", journal()], env()));
      expect(message).toContain(`${name} is empty`);
    }
  });

  it("CLI: a CSV with the header (any order, optional columns left out) and JSON lines, from a file or stdin, still register", async () => {
    const csv = `# exported today\ndomain,external_id\nhdr-ok-1.kz,hdr-1\n`;
    const jsonl = `{"external_id":"hdr-2","domain":"hdr-ok-2.kz"}\n`;
    for (const [args, stdin] of [
      [["register", "--dry-run", file("ok.csv", csv)], undefined],
      [["register", "--dry-run", file("ok.jsonl", jsonl)], undefined],
      [["register", "--dry-run", "-"], csv],
      [["register", "--dry-run"], jsonl],
    ] as [string[], string | undefined][]) {
      const r = await runCli(CLI, [...args, "--journal", journal()], env(), stdin);
      expect(r.code, r.stderr).toBe(0);
      const rows = jsonLines(r.stdout);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ kind: "dry_run" });
    }
  });
});

describe("a renewal stuck in processing: recover's exit code and the summary's counters", () => {
  let j: string;
  let first: Awaited<ReturnType<typeof runCli>>;
  let second: Awaited<ReturnType<typeof runCli>>;
  beforeAll(async () => {
    const [name] = await seedDomains(emu, 1, "stuck3rd", 5);
    const input = file("stuck.txt", name + "\n");
    await emu.control("POST", "/faults", {
      method: "POST",
      path: "/domains/{domainUuid}/renew",
      kind: "stuck_processing",
      times: 1,
    });
    j = journal();
    const args = ["renew", input, "--journal", j, "--window-ms", "1000", "--request-timeout", "1s"];
    first = await runCli(CLI, args, env()); // the send times out; its retry meets 409: unknown
    second = await runCli(CLI, args, env()); // still 409: needs_manual_check
  }, 120_000);

  it("CLI: after a 409 the summary's unknownOutcomes is the number of unknown rows (counts.unknown)", () => {
    expect(first.code, first.stderr).toBe(3);
    expect(jsonLines(first.stdout)[0]).toMatchObject({ kind: "unknown", message: expect.stringContaining("409") });
    const summary = jsonLines(first.stderr).find((e) => e.type === "summary")!;
    expect(summary.counts).toEqual({ unknown: 1 });
    expect(summary.unknownOutcomes).toBe(summary.counts.unknown);
    expect(typeof summary.unknownOutcomeEvents).toBe("number");
  });

  it("CLI: recover exits 3 while a command of the key waits for a manual check, and says how many", async () => {
    expect(second.code, second.stderr).toBe(3);
    expect(jsonLines(second.stdout)[0]).toMatchObject({ kind: "manual" });
    for (let run = 0; run < 2; run++) {
      const r = await runCli(CLI, ["recover", "--journal", j, "--window-ms", "1000"], env());
      expect(r.code, r.stderr).toBe(3);
      const summary = events(r.stderr).find((e) => e.type === "summary")!;
      expect(summary).toMatchObject({ job: "recover", manual: 0, needsManualCheck: 1 });
    }
    // Once support answered and the command is resolved, nothing waits: exit 0.
    const [cmd] = jsonLines((await runCli(CLI, ["commands", "list", "--journal", j], {})).stdout);
    const resolved = await runCli(
      CLI,
      ["commands", "resolve", cmd.id, "--as", "failed", "--note", "support: not renewed", "--journal", j],
      {},
    );
    expect(resolved.code, resolved.stderr).toBe(0);
    const after = await runCli(CLI, ["recover", "--journal", j, "--window-ms", "1000"], env());
    expect(after.code, after.stderr).toBe(0);
    expect(events(after.stderr).find((e) => e.type === "summary")).toMatchObject({ needsManualCheck: 0 });
  });
});

describe("stderr is JSON lines when it is not a terminal", () => {
  it("CLI: context, domains list and recover (also with --emulator) print their notices as JSON events", async () => {
    const j = journal();
    for (const args of [
      ["--emulator", "context"],
      ["--emulator", "--journal", j, "context"],
      ["--emulator", "domains", "list"],
      ["--emulator", "recover"],
      ["context", "--journal", j],
      ["domains", "list", "--journal", j],
      ["recover", "--journal", j],
      ["commands", "list", "--journal", j],
      ["commands", "notes", "--journal", j],
    ]) {
      const r = await runCli(CLI, args, env());
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
      const lines = jsonLines(r.stderr); // throws on any line that is not JSON
      const notices = lines.filter((e) => e.type === "notice").map((e) => e.message as string);
      expect(
        notices.some((m) => m.startsWith("journal: ")),
        args.join(" "),
      ).toBe(true);
      if (args[0] === "--emulator")
        expect(
          notices.some((m) => m.startsWith("emulator: in-process")),
          args.join(" "),
        ).toBe(true);
    }
  });
});

describe("domains list filters", () => {
  it("CLI: --zone kz lists .kz domains only, never .com.kz (the zones are separate, as in --zones)", async () => {
    const expires = new Date(Date.now() + 20 * 86_400_000).toISOString();
    for (const name of ["zonecheck.kz", "zonecheck.com.kz", "zonecheck.org.kz"])
      await emu.control("POST", "/domains", { token: emu.token, name, expires_at: expires });
    const names = async (zone: string) => {
      const r = await runCli(CLI, ["domains", "list", "--zone", zone, "--journal", journal()], env());
      expect(r.code, r.stderr).toBe(0);
      return jsonLines(r.stdout)
        .map((d) => d.name as string)
        .filter((name) => name.startsWith("zonecheck."));
    };
    expect(await names("kz")).toEqual(["zonecheck.kz"]);
    expect(await names(".KZ")).toEqual(["zonecheck.kz"]);
    expect(await names("com.kz")).toEqual(["zonecheck.com.kz"]);
  });

  it("CLI: --status and --zone with a value that does not exist are usage errors listing the accepted values", async () => {
    for (const [flag, value, accepted] of [
      ["--status", "bogus", "active, expired, pending, suspended"],
      ["--zone", "bogus", "kz, com.kz, org.kz, net.kz"],
      ["--zone", "com", "kz, com.kz"],
    ]) {
      const r = await runCli(CLI, ["domains", "list", flag, value, "--journal", journal()], env());
      expect(r.code, r.stderr).toBe(2);
      const events = jsonLines(r.stderr);
      expect(events.filter((e) => e.type === "context" || e.type === "notice")).toEqual([]);
      expect(events.find((e) => e.type === "error")).toMatchObject({
        code: "cli_usage",
        message: expect.stringContaining(accepted),
      });
      expect(r.stdout).toBe("");
    }
    const help = await runCli(CLI, ["domains", "list", "--help"], {});
    expect(help.stdout.replace(/\s+/g, " ")).toContain("active, expired, pending, suspended");
  });
});

describe("--no-quotes", () => {
  it("CLI: renew (and register) --no-quotes without --dry-run is a usage error, and nothing is sent", async () => {
    const [name] = await seedDomains(emu, 1, "noquotes", 5);
    const before = (await emu.control<{ method: string; path: string }[]>("GET", "/requests")).length;
    for (const [command, input] of [
      ["renew", file("noquotes.txt", name + "\n")],
      ["register", file("noquotes.csv", "external_id,domain\nnq-1,noquotes-new.kz\n")],
    ]) {
      const r = await runCli(CLI, [command, "--no-quotes", input, "--journal", journal()], env());
      expect(r.code, r.stderr).toBe(2);
      expect(jsonLines(r.stderr).find((e) => e.type === "error")).toMatchObject({
        code: "cli_usage",
        message: expect.stringContaining("--dry-run"),
      });
      expect(r.stdout).toBe("");
    }
    expect((await emu.control<unknown[]>("GET", "/requests")).length).toBe(before);
    const dry = await runCli(
      CLI,
      ["renew", "--no-quotes", "--dry-run", file("noquotes2.txt", name + "\n"), "--journal", journal()],
      env(),
    );
    expect(dry.code, dry.stderr).toBe(0);
    expect(jsonLines(dry.stdout)[0]).toMatchObject({ kind: "dry_run" });
  });
});

describe("read-only journal commands on a journal file that does not exist", () => {
  it("CLI: commands list, show, notes, resolve and prune name the missing file (cli_setup) and create nothing; renew creates the journal", async () => {
    const dir = join(tmp.dir, "no-journal-here");
    const missing = join(dir, "journal.sqlite");
    for (const args of [
      ["commands", "list"],
      ["commands", "list", "--all"],
      ["commands", "show", "c0000000-0000-4000-8000-000000000001"],
      ["commands", "notes"],
      ["commands", "resolve", "c0000000-0000-4000-8000-000000000001", "--as", "failed", "--note", "x"],
      ["commands", "prune", "--older-than", "30d"],
      ["commands", "prune", "--dry-run"],
    ]) {
      for (const [extra, envExtra] of [
        [["--journal", missing], {}],
        [[], { RESELLER_JOURNAL: missing }],
        [[], { XDG_STATE_HOME: dir }], // the default path
      ] as [string[], Record<string, string>][]) {
        const r = await runCli(CLI, [...args, ...extra], {
          RESELLER_JOURNAL: undefined,
          XDG_STATE_HOME: join(tmp.dir, "state"),
          ...envExtra,
        });
        expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(4);
        const error = jsonLines(r.stderr).find((e) => e.type === "error")!;
        expect(error.code).toBe("cli_setup");
        expect(error.message).toContain(envExtra.XDG_STATE_HOME ? join(dir, "reseller", "journal.sqlite") : missing);
        expect(error.message).toMatch(/does not exist/);
        expect(r.stdout).toBe("");
        expect(existsSync(dir)).toBe(false);
      }
    }
    // A job that may send still starts a new journal (a --dry-run does not: read-only.test.ts) —
    // in a folder that exists (a missing folder is a typo: journal-choice.test.ts).
    mkdirSync(dir);
    const renew = await runCli(CLI, ["renew", "--expiring-within", "1d", "--journal", missing], env());
    expect(renew.code, renew.stderr).toBe(0);
    expect(existsSync(missing)).toBe(true);
  });
});

describe("an empty --token-file", () => {
  it("A4: an empty --token-file is a usage error that names the file and says it is empty", async () => {
    for (const [name, text] of [
      ["empty-token", ""],
      ["blank-token", "\n  \n"],
    ]) {
      const tokenFile = file(name, text);
      chmodSync(tokenFile, 0o600);
      const r = await runCli(
        CLI,
        ["--token-file", tokenFile, "context", "--journal", journal()],
        env({ RESELLER_API_TOKEN: "" }),
      );
      expect(r.code, r.stderr).toBe(2);
      const error = jsonLines(r.stderr).find((e) => e.type === "error")!;
      expect(error.code).toBe("cli_usage");
      expect(error.message).toContain(tokenFile);
      expect(error.message).toMatch(/is empty/);
    }
  });
});

describe("--include-text", () => {
  it("A4: --include-text prints a ticket's text but never a webhook signing secret or a token typed into it", async () => {
    const j = journal();
    const whsec = `whsec_${"k".repeat(43)}`;
    const typed = `rsl_live_${"T".repeat(24)}.${"s".repeat(64)}`;
    const id = "c0000000-0000-4000-8000-0000000000aa";
    await recordManualTicket(j, {
      id,
      idempotencyKey: "ticket-secret-1",
      body: { subject: "webhook help", message: "please help" },
      reason: "the ticket's outcome cannot be read",
      ageMs: 3_600_000,
    });
    // What a person typed into the ticket, as a journal written before the client refused tokens in
    // bodies holds it (the client now refuses to journal a token; a signing secret is plain text to it).
    const db = new Database(j);
    db.prepare("UPDATE commands SET body = ? WHERE id = ?").run(
      Buffer.from(
        JSON.stringify({
          subject: "webhook help",
          message: `please help: our secret is ${whsec} and the key ${typed}`,
        }),
      ),
      id,
    );
    db.close();
    for (const args of [
      ["commands", "show", id, "--include-text"],
      ["commands", "notes", "--include-text"],
    ]) {
      const r = await runCli(CLI, [...args, "--journal", j], { RESELLER_API_TOKEN: "" });
      expect(r.code, r.stderr).toBe(0);
      const out = r.stdout + r.stderr;
      expect(out).toContain("please help: our secret is [REDACTED]"); // the text itself is printed
      expect(out).not.toContain("k".repeat(43));
      expect(out).not.toContain("whsec_k");
      expect(out).not.toContain("T".repeat(24));
      expect(out).not.toContain("s".repeat(64));
    }
  });
});

describe("the summary's peak memory", () => {
  it("CLI: maxRssBytes is the CLI's own peak, not the memory of the (large) process that started it", async () => {
    const input = join(tmp.dir, "rss-names.txt");
    writeFileSync(input, Array.from({ length: 200 }, (_, i) => `rss-${i}.kz`).join("\n") + "\n");
    // A job runner holding 400 MB starts the CLI: getrusage would hand the child the runner's peak.
    const parent = `
      const hog = Buffer.alloc(400 * 1024 * 1024, 1);
      const r = require("node:child_process").spawnSync(process.execPath, ${JSON.stringify([...CLI, "check", "--dry-run", "--file", input])}, { encoding: "utf8", cwd: ${JSON.stringify(REPO)} });
      process.stdout.write(JSON.stringify({ parentRss: process.memoryUsage().rss, held: hog.length, status: r.status, stderr: r.stderr }));
    `;
    const { stdout: ran } = await promisify(execFile)(process.execPath, ["-e", parent], {
      maxBuffer: 64 * 1024 * 1024,
    });
    const { parentRss, status, stderr } = JSON.parse(ran) as { parentRss: number; status: number; stderr: string };
    expect(status, stderr).toBe(0);
    const summary = jsonLines(stderr).find((e) => e.type === "summary")!;
    expect(parentRss).toBeGreaterThan(400 * 1024 * 1024);
    expect(summary.maxRssBytes as number).toBeGreaterThan(0);
    expect(summary.maxRssBytes as number).toBeLessThan(parentRss / 2);
  });
});
