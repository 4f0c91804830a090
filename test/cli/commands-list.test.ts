/**
 * `reseller commands list` on a journal with history: a default that fits a terminal, --limit
 * (0 = every row), --before to page, and a list cut by the limit that always says so — a notice and
 * a summary line a script can read on stderr, or a sentence with the next page on a terminal.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import { REPO, cli, jsonLines, runCli, tempDir } from "./harness";

const tmp = tempDir("reseller-cli-list-");
afterAll(() => tmp.cleanup());

const file = join(tmp.dir, "year.sqlite");
const env = { RESELLER_JOURNAL: file };
const SETTLED = 1230;
const UNSETTLED = 20;
const MINUTE = 60_000;
/** Command i was created at START + i minutes: the newest has the highest i. */
const START = Date.now() - 400 * 86_400_000;
const idOf = (i: number) => `c${String(i).padStart(7, "0")}-0000-4000-8000-000000000000`;

beforeAll(async () => {
  const clock = { t: 0, now: () => clock.t };
  const journal = createSqliteJournal({ filename: file, clock, synchronous: "normal" });
  const enc = new TextEncoder();
  for (let i = 0; i < SETTLED + UNSETTLED; i++) {
    clock.t = START + i * MINUTE;
    const id = idOf(i);
    await journal.record({
      id,
      environment: "test",
      apiKeyId: "A".repeat(24),
      operationId: "domains.renew",
      method: "POST",
      path: `/domains/5555aaaa-0000-4000-8000-${String(i).padStart(12, "0")}/renew`,
      query: "",
      body: enc.encode('{"period":1}'),
      idempotencyKey: `rsl-cli:renew:key-${i}`,
      fingerprint: "0".repeat(64),
      externalId: null,
      lockKey: null,
      createdAt: clock.t,
    });
    clock.t += 1000;
    // Every 62nd command (20 of them) was left unknown by a crash; the rest settled.
    if (i % 62 === 61) {
      await journal.transition(id, "sending");
      await journal.transition(id, "unknown");
    } else {
      await journal.addAttempt(
        id,
        { at: clock.t, delayMs: 0, status: 200, requestId: `req-${i}` },
        { to: "succeeded", patch: { response: { status: 200, body: { data: { uuid: `op-${i}` } } } } },
      );
    }
  }
  await journal.close();
}, 60_000);

function events(stderr: string) {
  const all = jsonLines(stderr);
  return {
    notices: all.filter((e) => e.type === "notice").map((e) => String(e.message)),
    summaries: all.filter((e) => e.type === "summary"),
  };
}

describe("commands list on a journal with history", () => {
  it("H1: commands list prints the newest 100 by default, and a cut list says so in JSON — a notice and a summary with total, truncated and nextBefore", async () => {
    const r = await runCli(cli(), ["commands", "list", "--state", "succeeded"], env);
    expect(r.code, r.stderr).toBe(0);
    const rows = jsonLines(r.stdout);
    expect(rows).toHaveLength(100);
    const newestSettled = Array.from({ length: SETTLED + UNSETTLED }, (_, i) => i)
      .filter((i) => i % 62 !== 61)
      .reverse()
      .slice(0, 100)
      .map(idOf);
    expect(rows.map((x) => x.id)).toEqual(newestSettled);
    const { notices, summaries } = events(r.stderr);
    expect(notices.filter((m) => m.startsWith("cut at --limit 100"))).toEqual([
      expect.stringContaining(`100 of ${SETTLED} command(s) in succeeded`),
    ]);
    expect(notices.find((m) => m.startsWith("cut"))).toContain(`--before ${newestSettled[99]}`);
    expect(notices.find((m) => m.startsWith("cut"))).toContain("--limit 0");
    expect(summaries).toEqual([
      expect.objectContaining({
        job: "commands list",
        states: ["succeeded"],
        limit: 100,
        rows: 100,
        total: SETTLED,
        truncated: true,
        nextBefore: newestSettled[99],
      }),
    ]);
    // What fits is never called cut: the unsettled default lists all 20, truncated false.
    const open = await runCli(cli(), ["commands", "list"], env);
    expect(jsonLines(open.stdout)).toHaveLength(UNSETTLED);
    const opened = events(open.stderr);
    expect(opened.notices.some((m) => m.startsWith("cut"))).toBe(false);
    expect(opened.summaries).toEqual([
      expect.objectContaining({ rows: UNSETTLED, total: UNSETTLED, truncated: false, nextBefore: null }),
    ]);
  });

  it("H1: commands list --limit 0 prints every row, and --before pages through the journal without a gap or a repeat", async () => {
    const every = await runCli(cli(), ["commands", "list", "--all", "--limit", "0"], env);
    expect(every.code, every.stderr).toBe(0);
    const all = jsonLines(every.stdout).map((x) => String(x.id));
    expect(all).toHaveLength(SETTLED + UNSETTLED);
    expect(all).toEqual(Array.from({ length: SETTLED + UNSETTLED }, (_, i) => idOf(SETTLED + UNSETTLED - 1 - i)));
    expect(events(every.stderr).summaries).toEqual([
      expect.objectContaining({ limit: null, rows: all.length, total: all.length, truncated: false }),
    ]);
    // Following nextBefore: 500 + 500 + 250 rows, exactly the same list.
    const paged: string[] = [];
    const sizes: number[] = [];
    let before: string | null = null;
    for (let page = 0; page < 5; page++) {
      const args = ["commands", "list", "--all", "--limit", "500", ...(before ? ["--before", before] : [])];
      const r = await runCli(cli(), args, env);
      expect(r.code, r.stderr).toBe(0);
      const ids = jsonLines(r.stdout).map((x) => String(x.id));
      paged.push(...ids);
      sizes.push(ids.length);
      const [summary] = events(r.stderr).summaries;
      before = summary.nextBefore as string | null;
      expect(summary.truncated).toBe(before !== null);
      if (before === null) break;
      expect(before).toBe(ids[ids.length - 1]);
    }
    expect(sizes).toEqual([500, 500, 250]);
    expect(paged).toEqual(all);
    // --before a time: only commands created before it, newest first.
    const at = new Date(START + 100 * MINUTE).toISOString();
    const older = await runCli(cli(), ["commands", "list", "--all", "--before", at, "--limit", "0"], env);
    expect(older.code, older.stderr).toBe(0);
    expect(jsonLines(older.stdout).map((x) => x.id)).toEqual(all.slice(-100));
  });

  it("H1: a bad --limit or --before is a usage error (exit 2) naming the fix", async () => {
    for (const bad of ["-1", "abc", "1.5", "", "all"]) {
      const r = await runCli(cli(), ["commands", "list", `--limit=${bad}`], env);
      expect(r.code, bad).toBe(2);
      expect(r.stdout).toBe("");
      const error = jsonLines(r.stderr).find((e) => e.type === "error")!;
      expect(error.code, bad).toBe("cli_usage");
      expect(error.message).toContain("--limit takes a whole number of rows");
      expect(error.message).toContain("--limit 0 for every row");
    }
    for (const bad of ["no-such-command", "2026-02-31T25:00:00Z"]) {
      const r = await runCli(cli(), ["commands", "list", "--before", bad], env);
      expect(r.code, bad).toBe(2);
      expect(r.stdout).toBe("");
      const error = jsonLines(r.stderr).find((e) => e.type === "error")!;
      expect(error.code, bad).toBe("cli_usage");
      expect(error.message).toContain(`--before: `);
      expect(error.message).toContain("nextBefore");
      expect(error.message).toContain("2026-01-31T12:00:00Z");
    }
  });

  it("H1: on a terminal, a cut list says how many exist and how to see the rest; --help shows --limit and --before", async () => {
    const SCRIPT = "/usr/bin/script";
    if (!existsSync(SCRIPT)) throw new Error("This test needs util-linux `script`: apt-get install -y util-linux");
    const cmd = [process.execPath, ...cli(), "--journal", file, "commands", "list", "--state", "succeeded"].join(" ");
    const r = spawnSync(SCRIPT, ["-qfec", `${cmd} --limit 3`, "/dev/null"], {
      cwd: REPO,
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, TERM: "xterm", NO_COLOR: "1", COLUMNS: "200" },
    });
    expect(r.status, r.stdout).toBe(0);
    const newest = [SETTLED + UNSETTLED - 1, SETTLED + UNSETTLED - 2, SETTLED + UNSETTLED - 3].map(idOf);
    for (const id of newest) expect(r.stdout).toContain(id);
    expect(r.stdout).toContain(
      `3 of ${SETTLED} command(s) in succeeded shown (the newest); more exist: the same command with --before ${newest[2]} lists the next page, --limit 0 lists every one`,
    );
    // Every row fits: a plain count, no hint.
    const whole = spawnSync(SCRIPT, ["-qfec", `${cmd} --limit 0 --before ${idOf(10)}`, "/dev/null"], {
      cwd: REPO,
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, TERM: "xterm", NO_COLOR: "1", COLUMNS: "200" },
    });
    expect(whole.status, whole.stdout).toBe(0);
    expect(whole.stdout).toContain(`10 command(s) in succeeded created before ${idOf(10)}`);
    expect(whole.stdout).not.toContain("more exist");
    const help = await runCli(cli(), ["commands", "list", "--help"], {});
    expect(help.stdout).toMatch(/--limit <n>\s+rows at most, newest first; 0 = every row \(default: "100"\)/);
    expect(help.stdout).toContain("--before <id|time>");
  });
});
