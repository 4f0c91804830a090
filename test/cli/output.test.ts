/**
 * How the CLI talks to people and to scripts: the live progress line in a real pseudo-terminal
 * (util-linux `script`), and — when not on a TTY — JSON lines only, with no control character on
 * either stream. Runs cli/main.ts through `node --import tsx` against the in-process --emulator.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { REPO, cli, jsonLines, runCli, tempDir } from "./harness";

const SCRIPT = "/usr/bin/script";
const tmp = tempDir("reseller-cli-out-");
afterAll(() => tmp.cleanup());

// eslint-disable-next-line no-control-regex -- the point is to find control characters
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/;

describe("CLI output", () => {
  it("on a TTY: one live progress line (done/total, rate, ETA, 429s, retries, unknown) and a summary table", () => {
    if (!existsSync(SCRIPT)) throw new Error("This test needs util-linux `script`: apt-get install -y util-linux");
    const cmd = [process.execPath, ...cli(), "--emulator", "renew", "--expiring-within", "400d"].join(" ");
    const r = spawnSync(SCRIPT, ["-qfec", cmd, "/dev/null"], {
      cwd: REPO,
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, TERM: "xterm", NO_COLOR: "1" },
    });
    expect(r.status, r.stdout).toBe(0);
    const out = r.stdout;
    expect(out).toMatch(
      /renew [0-3]\/3 \d+% · ETA (\d+(ms|s)|\d+m\d\ds|done) · 429s 0 · unknown 0 · retries 0 · \d+\.\d\/s/,
    );
    expect(out).toContain("\x1b[2K"); // the line is redrawn in place, not appended
    expect(out).toMatch(/example\.kz → \d{4}-\d\d-\d\d {2}done {2}renewed/);
    expect(out).toMatch(/outcome.*rows.*meaning/);
    expect(out).toMatch(/renew: 3 rows in \d+s, \d+ requests, 0×429, 0 retries · exit 0/);
    // Finished: the final frame shows 3/3.
    expect(out).toMatch(/renew 3\/3 100%/);
  });

  it("not on a TTY: results as JSON lines on stdout, one JSON event per state change on stderr, no control characters", async () => {
    const file = join(tmp.dir, "names.txt");
    const names = Array.from({ length: 120 }, (_, i) => `free-${i}.kz`);
    const lines = [
      "# availability for the spring campaign",
      ...names.slice(0, 60),
      "",
      "bad name.kz",
      "free-3.kz",
      "oops.xyz",
      ...names.slice(60),
    ];
    writeFileSync(file, lines.join("\n") + "\n");
    const r = await runCli(cli(), ["--emulator", "check", "--file", file], {});
    expect(r.code).toBe(1); // some rows rejected (bad input), none unknown
    expect(CONTROL.test(r.stdout.replace(/\n/g, ""))).toBe(false);
    expect(CONTROL.test(r.stderr.replace(/\n/g, ""))).toBe(false);
    const results = jsonLines(r.stdout);
    expect(results).toHaveLength(123);
    const invalid = results.filter((x) => x.kind === "invalid");
    expect(invalid.map((x) => [x.line, x.message])).toEqual([
      [63, expect.stringContaining("is not a domain name")],
      [64, expect.stringContaining("duplicate of line 5")],
      [65, expect.stringContaining("unknown zone .xyz")],
    ]);
    expect(results.filter((x) => x.kind === "done" && x.data.available === true)).toHaveLength(120);
    const events = jsonLines(r.stderr);
    expect(events.every((e) => typeof e.type === "string" && typeof e.at === "string")).toBe(true);
    expect(events.filter((e) => e.type === "row")).toHaveLength(123);
    const summary = events.find((e) => e.type === "summary")!;
    expect(summary).toMatchObject({
      job: "check",
      exitCode: 1,
      counts: { done: 120, invalid: 3 },
      total: 123,
      count429: 0,
    });
    // Batched as the API allows: 120 names in 50 + 50 + 20, plus the context call.
    expect(summary.requests).toBe(4);
  });

  it("--help on every command, with the exit codes and the try-it session on the root", async () => {
    const root = await runCli(cli(), ["--help"], {});
    expect(root.code).toBe(0);
    expect(root.stdout).toContain("reseller --emulator renew --expiring-within 400d --dry-run");
    expect(root.stdout).toMatch(/Exit codes:[\s\S]*0 {4}all done[\s\S]*130 {2}interrupted/);
    for (const cmd of [
      ["context"],
      ["domains", "list"],
      ["check"],
      ["renew"],
      ["register"],
      ["commands", "list"],
      ["commands", "show"],
      ["commands", "notes"],
      ["recover"],
    ]) {
      const r = await runCli(cli(), [...cmd, "--help"], {});
      expect(r.code, cmd.join(" ")).toBe(0);
      expect(r.stdout).toContain(`Usage: reseller ${cmd.join(" ")}`);
    }
    const renew = await runCli(cli(), ["renew", "--help"], {});
    expect(renew.stdout).toContain("--no-wait");
    expect(renew.stdout).toContain("--dry-run");
    expect(renew.stdout).toContain("--on-error");
  });
});
