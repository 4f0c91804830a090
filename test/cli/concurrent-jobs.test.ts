/**
 * B1/G1: two jobs on one SQLite journal would each pace the key's window alone (HTTP 429) and settle
 * each other's commands (`unknown` rows). A second job on a journal a running job holds is refused
 * before anything is sent (exit code 4, naming the pid); a lock left by a killed job is taken over.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, jsonLines, runCli, seedDomains, spawnCli, useEmulatorProcess } from "./harness";

const fx = useEmulatorProcess(["--window-ms", "3000", "--rate-limit", "30"], "reseller-cli-concurrent-");
const { tmp, env } = fx;

describe("two jobs on one journal", () => {
  it("B1: a second job started while the first runs is refused (exit 4, names the pid), sends nothing, and no request is throttled", async () => {
    const journal = join(tmp.dir, "shared.sqlite");
    const a = join(tmp.dir, "a.txt");
    const b = join(tmp.dir, "b.txt");
    writeFileSync(a, (await seedDomains(fx.emu, 16, "conca")).join("\n") + "\n");
    writeFileSync(b, (await seedDomains(fx.emu, 8, "concb")).join("\n") + "\n");
    const first = spawnCli(cli(), ["--journal", journal, "--window-ms", "3000", "renew", a], env());
    await first.until((_, err) => err.includes('"type":"row"'));
    const second = await runCli(cli(), ["--journal", journal, "--window-ms", "3000", "renew", b], env());
    expect(second.code, second.stderr).toBe(4);
    const error = jsonLines(second.stderr).find((e) => e.type === "error")!;
    expect(error.code).toBe("cli_setup");
    expect(error.message).toContain(`Another reseller job (pid ${first.child.pid}`);
    expect(error.message).toContain(journal);
    expect(second.stdout).toBe("");
    const { code } = await first.exited;
    const renewed = (await fx.emu.control<{ kind: string }[]>("GET", "/effects")).filter(
      (e) => e.kind === "domain.renew",
    );
    expect(renewed).toHaveLength(16); // the first job's domains, once each; none of the second's
    expect(code, first.stderr()).toBe(0);
    expect(jsonLines(first.stdout()).map((r) => r.kind)).toEqual(Array(16).fill("done"));
    expect(jsonLines(first.stderr()).filter((e) => e.type === "rate-limited")).toEqual([]);
    expect(existsSync(`${journal}.lock`)).toBe(false);
    // Once the first is done, the second runs.
    const again = await runCli(cli(), ["--journal", journal, "--window-ms", "3000", "renew", b], env());
    expect(again.code, again.stderr).toBe(0);
  }, 120_000);

  it("B1: a lock left by a job that was killed (its pid gone) is taken over", async () => {
    const journal = join(tmp.dir, "stale.sqlite");
    writeFileSync(
      `${journal}.lock`,
      JSON.stringify({
        pid: 2 ** 22 + 12345,
        host: (await import("node:os")).hostname(),
        startedAt: "2026-01-01T00:00:00Z",
      }),
    );
    const r = await runCli(cli(), ["--journal", journal, "recover"], env());
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(`${journal}.lock`)).toBe(false);
  });

  it("B1: commands that only read (commands list, a dry run) are not refused while a job runs; the dry run says a job holds the journal", async () => {
    const journal = join(tmp.dir, "busy.sqlite");
    const dryRun = ["--journal", journal, "renew", "--expiring-within", "30d", "--dry-run"];
    const alone = await runCli(cli(), dryRun, env());
    expect(alone.code, alone.stderr).toBe(0);
    expect(alone.stderr).not.toContain("Another reseller job");
    writeFileSync(
      `${journal}.lock`,
      JSON.stringify({
        pid: process.pid,
        host: (await import("node:os")).hostname(),
        startedAt: "2026-01-01T00:00:00Z",
      }),
    );
    const list = await runCli(cli(), ["--journal", journal, "commands", "list"], env());
    expect(list.code, list.stderr).toBe(4); // no such journal yet: not the lock
    expect(list.stderr).not.toContain("Another reseller job");
    const dry = await runCli(cli(), dryRun, env());
    expect(dry.code, dry.stderr).toBe(0);
    // Said before its first request: its sends share the key's window with that job (C3).
    const events = jsonLines(dry.stderr);
    const busy = events.findIndex((e) => e.type === "notice" && String(e.message).startsWith("Another reseller job"));
    expect(busy, dry.stderr).toBeGreaterThanOrEqual(0);
    expect(events[busy].message).toContain(
      `(pid ${process.pid}, started 2026-01-01T00:00:00Z) is using the journal ${journal}`,
    );
    expect(events[busy].message).toContain("This dry run is not refused");
    expect(busy).toBeLessThan(events.findIndex((e) => e.type === "context"));
    const real = await runCli(cli(), ["--journal", journal, "recover"], env());
    expect(real.code).toBe(4);
    expect(real.stderr).toContain(`Another reseller job (pid ${process.pid}`);
  });
});
