/**
 * Which journal a job writes through (G1), as an operator types it: every value that would silently
 * start a new, empty journal — an empty --journal or RESELLER_JOURNAL, a postgres URL missing a
 * slash, a scheme-less `user:pw@host/db`, a libpq string, a file in a folder that does not exist — is
 * refused before anything is sent (exit code 2), printed redacted, and creates nothing; so a finished
 * job is never renewed a second time through a fresh journal.
 */
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chooseJournal } from "../../cli/stores";
import { cli, jsonLines, runCli, seedDomains, startEmulator, tempDir, type EmulatorProcess } from "./harness";

/** The built CLI (it runs from any working directory). */
const CLI = cli();

let emu: EmulatorProcess;
let names: string[];
const tmp = tempDir("reseller-cli-journal-choice-");
const env = (extra: Record<string, string | undefined> = {}) => ({
  RESELLER_API_TOKEN: emu.token,
  RESELLER_API_BASE_URL: emu.baseUrl,
  RESELLER_JOURNAL: undefined,
  XDG_STATE_HOME: join(tmp.dir, "state"),
  ...extra,
});
const renewEffects = async () =>
  (await emu.control<{ kind: string }[]>("GET", "/effects")).filter((e) => e.kind === "domain.renew").length;

let input: string;
let done: string;

beforeAll(async () => {
  emu = await startEmulator(["--window-ms", "1000", "--rate-limit", "600"]);
  names = await seedDomains(emu, 3, "jchoice");
  input = join(tmp.dir, "renew.txt");
  writeFileSync(input, names.join("\n") + "\n");
  // A finished job: every domain renewed once, in its own journal.
  done = join(tmp.dir, "done.sqlite");
  const first = await runCli(CLI, ["--journal", done, "renew", input], env());
  expect(first.code, first.stderr).toBe(0);
}, 120_000);
afterAll(async () => {
  await emu?.stop();
  tmp.cleanup();
});

/** Refused before any request: exit 2, one cli_usage error, no renewal, nothing created in `cwd`. */
async function refused(args: string[], extra: Record<string, string | undefined>, secret?: string) {
  const cwd = tempDir("reseller-cli-journal-cwd-");
  try {
    const before = await renewEffects();
    const r = await runCli(
      CLI,
      args,
      env({ XDG_STATE_HOME: join(cwd.dir, "state"), ...extra }),
      undefined,
      undefined,
      cwd.dir,
    );
    expect(r.code, r.stderr).toBe(2);
    const events = jsonLines(r.stderr);
    const error = events.find((e) => e.type === "error")!;
    expect(error).toMatchObject({ code: "cli_usage", exitCode: 2 });
    expect(events.filter((e) => e.type === "context")).toEqual([]);
    expect(r.stdout).toBe("");
    expect(await renewEffects()).toBe(before);
    expect(readdirSync(cwd.dir)).toEqual([]);
    if (secret) expect(r.stdout + r.stderr).not.toContain(secret);
    return error.message as string;
  } finally {
    cwd.cleanup();
  }
}

describe("an empty journal value", () => {
  for (const [label, args, extra] of [
    ['--journal ""', ["--journal", "", "renew", "INPUT"], {}],
    ['--journal " "', ["--journal", " ", "renew", "INPUT"], {}],
    ['RESELLER_JOURNAL=""', ["renew", "INPUT"], { RESELLER_JOURNAL: "" }],
    ['RESELLER_JOURNAL=" "', ["renew", "INPUT"], { RESELLER_JOURNAL: " " }],
  ] as [string, string[], Record<string, string>][]) {
    it(`G1: ${label} is a usage error, never the default journal: a finished job is not renewed again`, async () => {
      const message = await refused(
        args.map((a) => (a === "INPUT" ? input : a)),
        extra,
      );
      expect(message).toMatch(/empty/);
      expect(message).toContain(join("reseller", "journal.sqlite"));
    });
  }
});

describe("a value shaped like a connection string that is no postgres:// URL", () => {
  const password = "AppPgPass9876";
  for (const value of [
    `postgres:/app:${password}@127.0.0.1:55432/reseller`,
    `postgresql:app:${password}@127.0.0.1/reseller`,
    `app:${password}@127.0.0.1:55432/reseller`,
    `host=127.0.0.1 port=55432 dbname=reseller user=app password=${password}`,
    `postgres://app:${password}@[bad/reseller`,
  ]) {
    it(`G1: ${value.replace(password, "…")} is refused (exit 2), redacted, and creates no folder`, async () => {
      for (const [args, extra] of [
        [["--journal", value, "renew", input], {}],
        [["renew", input], { RESELLER_JOURNAL: value }],
        [["commands", "list"], { RESELLER_JOURNAL: value }],
      ] as [string[], Record<string, string>][]) {
        const message = await refused(args, extra, password);
        expect(message).toContain("postgres://");
        expect(message).toMatch(/nothing was created/);
        // Says what is wrong with the value, never that postgres:// were no journal of this CLI.
        expect(message).not.toMatch(/no journal this CLI opens/);
      }
    });
  }

  it("G1: a libpq string is told how to write it as a postgres:// URL; an unparseable URL, what to check", () => {
    expect(() => chooseJournal(`host=db user=app password=${password}`, {}, false)).toThrow(
      /libpq key=value connection string .*take a postgres:\/\/ URL instead.*U:W@H:P\/D after postgres:\/\/.*@ → %40.*PGPASSWORD/,
    );
    expect(() => chooseJournal(`postgres://app:${password}@db:99999/reseller`, {}, false)).toThrow(
      /the postgres:\/\/ URL .* does not parse\. Check its host and port \(1 to 65535\).*@ → %40.*PGPASSWORD/,
    );
  });
});

describe("a postgres URL with an @ after its authority (a password with an unencoded @ / : # ?)", () => {
  for (const [label, value, parts] of [
    ["@ and /", "postgres://ops2:Xy@z:9/Secr%t@127.0.0.1:55433/reseller", ["ops2", "Xy", "z:9", "Secr"]],
    ["/", "postgres://app:12/PwTail77@127.0.0.1:55432/reseller", ["app:", "PwTail77"]],
    ["?", "postgresql://app:12?PwTail77@127.0.0.1:55432/reseller", ["app:", "PwTail77"]],
    ["#", "postgres://app:Pw#Tail77@127.0.0.1:55432/reseller", ["app:", "Tail77"]],
  ] as [string, string, string[]][]) {
    it(`H2: a password with an unencoded ${label} is refused at once (exit 2), echoing nothing of it, with the percent-encoding to use`, async () => {
      for (const [args, extra] of [
        [["--journal", value, "recover"], {}],
        [["renew", input], { RESELLER_JOURNAL: value }],
      ] as [string[], Record<string, string>][]) {
        const message = await refused(args, extra);
        expect(message).toMatch(/"@" after its host/);
        expect(message).toContain("@ → %40, / → %2F, : → %3A, # → %23, ? → %3F");
        expect(message).toContain("PGPASSWORD");
        for (const part of parts) expect(message).not.toContain(part);
      }
    });
  }
});

describe("a journal password on the command line", () => {
  const pw = "ArgvPgPass4321";
  const notices = (stderr: string) =>
    jsonLines(stderr)
      .filter((e) => e.type === "notice" && String(e.message).includes("password"))
      .map((e) => String(e.message));

  it("A4: --journal postgres://user:password@… or ?password=… runs, with one warning naming RESELLER_JOURNAL and PGPASSWORD, and no password", async () => {
    for (const url of [
      `postgres://app:${pw}@127.0.0.1:55432/reseller`,
      `postgresql://app@127.0.0.1:55432/reseller?password=${pw}&sslmode=disable`,
    ]) {
      const r = await runCli(CLI, ["--journal", url, "context"], env());
      expect(r.code, r.stderr).toBe(0);
      const warned = notices(r.stderr);
      expect(warned).toHaveLength(1);
      expect(warned[0]).toMatch(/^warning: --journal holds a database password/);
      expect(warned[0]).toContain("`ps`");
      expect(warned[0]).toContain("shell history");
      expect(warned[0]).toContain("RESELLER_JOURNAL");
      expect(warned[0]).toContain("PGPASSWORD");
      expect(r.stdout + r.stderr).not.toContain(pw);
    }
  });

  it("A4: the same URL in RESELLER_JOURNAL, or a --journal URL without a password, is not warned about", async () => {
    for (const [args, extra] of [
      [["context"], { RESELLER_JOURNAL: `postgres://app:${pw}@127.0.0.1:55432/reseller` }],
      [["--journal", "postgres://app@127.0.0.1:55432/reseller", "context"], { PGPASSWORD: pw }],
    ] as [string[], Record<string, string>][]) {
      const r = await runCli(CLI, args, env(extra));
      expect(r.code, r.stderr).toBe(0);
      expect(notices(r.stderr)).toEqual([]);
      expect(r.stdout + r.stderr).not.toContain(pw);
    }
  });
});

describe("an explicit journal in a folder that does not exist", () => {
  it("G1: --journal /no/such/dir/j.sqlite (a typo) is refused with the mkdir to run; nothing is renewed again", async () => {
    const missing = join(tmp.dir, "no-such-dir", "deeper", "j.sqlite");
    for (const [args, extra] of [
      [["--journal", missing, "renew", input], {}],
      [["renew", input], { RESELLER_JOURNAL: missing }],
      [["--journal", missing, "recover"], {}],
    ] as [string[], Record<string, string>][]) {
      const message = await refused(args, extra);
      expect(message).toContain(`mkdir -p ${join(tmp.dir, "no-such-dir", "deeper")}`);
      expect(existsSync(join(tmp.dir, "no-such-dir"))).toBe(false);
    }
  });

  it("G1: a new file in an existing folder is a new journal, and the run says so once on stderr", async () => {
    const fresh = join(tmp.dir, "fresh.sqlite");
    const r = await runCli(CLI, ["--journal", fresh, "recover"], env());
    expect(r.code, r.stderr).toBe(0);
    const notices = jsonLines(r.stderr)
      .filter((e) => e.type === "notice")
      .map((e) => String(e.message));
    expect(notices.filter((m) => m.startsWith("new journal"))).toEqual([`new journal created: ${fresh}`]);
    const again = await runCli(CLI, ["--journal", fresh, "recover"], env());
    expect(
      jsonLines(again.stderr).filter((e) => e.type === "notice" && String(e.message).startsWith("new journal")),
    ).toEqual([]);
  });

  it("G1: the default journal's folder is created on the first run (nothing to mistype)", async () => {
    const state = join(tmp.dir, "fresh-state");
    const r = await runCli(CLI, ["recover"], env({ XDG_STATE_HOME: state }));
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(state, "reseller", "journal.sqlite"))).toBe(true);
  });
});
