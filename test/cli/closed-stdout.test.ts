/**
 * G4: `reseller renew FILE | head -2` — stdout closed by its reader — is handled like SIGTERM: no
 * stack trace, no new rows, the rows in flight settle (none left accepted or mid-send), the summary
 * on stderr says interrupted, exit code 130; the re-run renews the rest, each domain once.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import { REPO, cli, jsonLines, runCli, seedDomains, spawnCli, useEmulatorProcess } from "./harness";

const fx = useEmulatorProcess(["--window-ms", "1000", "--rate-limit", "600"], "reseller-cli-epipe-");
const { tmp, env } = fx;

describe("a closed stdout", () => {
  it("G4: renew FILE | head -2 stops cleanly: no EPIPE stack, in-flight rows settle, exit 130; the re-run renews each domain once", async () => {
    const names = await seedDomains(fx.emu, 30, "epipe");
    const file = join(tmp.dir, "epipe.txt");
    writeFileSync(file, names.join("\n") + "\n");
    const journal = join(tmp.dir, "epipe.sqlite");
    const command = [process.execPath, ...cli()].map((a) => `'${a}'`).join(" ");
    const script = `${command} --journal '${journal}' --window-ms 1000 renew --concurrency 8 '${file}' 2>'${tmp.dir}/err.jsonl' | head -2; echo "exit=\${PIPESTATUS[0]}"`;
    const out = await new Promise<string>((resolve) => {
      const child = spawn("bash", ["-c", script], { cwd: REPO, env: { ...process.env, ...env(), NO_COLOR: "1" } });
      let text = "";
      child.stdout.on("data", (d: Buffer) => (text += d.toString()));
      child.once("exit", () => resolve(text));
    });
    const { readFileSync } = await import("node:fs");
    const stderr = readFileSync(join(tmp.dir, "err.jsonl"), "utf8");
    expect(out.trim().split("\n")).toHaveLength(3); // two results, then the exit line
    expect(out).toContain("exit=130");
    expect(stderr).not.toMatch(/EPIPE|at \w+ \(/);
    const events = jsonLines(stderr); // stderr is still JSON only
    expect(events.find((e) => e.type === "summary")).toMatchObject({ interrupted: true });
    const store = createSqliteJournal({ filename: journal });
    try {
      expect((await store.listByState(["recorded", "sending", "accepted", "unknown"])).map((c) => c.state)).toEqual([]);
    } finally {
      await store.close();
    }
    const again = await runCli(cli(), ["--journal", journal, "--window-ms", "1000", "renew", file], env());
    expect(again.code, again.stderr).toBe(0);
    const renewed = (await fx.emu.control<{ kind: string }[]>("GET", "/effects")).filter(
      (e) => e.kind === "domain.renew",
    );
    expect(renewed).toHaveLength(30);
  }, 120_000);
});

describe("Ctrl-C and SIGTERM", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`G4: the first ${signal} lets the rows in flight settle (done, not pending; none left accepted), then exits 130`, async () => {
      const names = await seedDomains(fx.emu, 40, `sig${signal.toLowerCase()}`);
      const file = join(tmp.dir, `${signal}.txt`);
      writeFileSync(file, names.join("\n") + "\n");
      const journal = join(tmp.dir, `${signal}.sqlite`);
      const run = spawnCli(
        cli(),
        ["--journal", journal, "--window-ms", "1000", "renew", "--concurrency", "8", file],
        env(),
      );
      await run.until((_, err) => (err.match(/"state":"accepted"/g) ?? []).length >= 8);
      run.child.kill(signal);
      const { code } = await run.exited;
      expect(code, run.stderr()).toBe(130);
      const events = jsonLines(run.stderr());
      const interrupt = events.find((e) => e.type === "interrupt")!;
      expect(interrupt.inFlight).toBeGreaterThan(0);
      const rows = jsonLines(run.stdout());
      expect(rows.filter((r) => r.kind !== "done")).toEqual([]);
      const store = createSqliteJournal({ filename: journal });
      try {
        expect((await store.listByState(["recorded", "sending", "accepted", "unknown"])).map((c) => c.state)).toEqual(
          [],
        );
      } finally {
        await store.close();
      }
    }, 120_000);
  }

  it("G4: a second Ctrl-C exits 130 at once and, stderr piped, says so as one JSON event: every stderr line is JSON", async () => {
    const names = await seedDomains(fx.emu, 6, "sigtwice");
    const file = join(tmp.dir, "twice.txt");
    writeFileSync(file, names.join("\n") + "\n");
    // Every renewal hangs unanswered: its row stays in flight past the first Ctrl-C.
    await fx.emu.control("POST", "/faults", {
      method: "POST",
      path: "/domains/{domainUuid}/renew",
      kind: "timeout_before",
      times: names.length,
    });
    try {
      const run = spawnCli(
        cli(),
        [
          "--journal",
          join(tmp.dir, "twice.sqlite"),
          "--window-ms",
          "1000",
          "--request-timeout",
          "120s",
          "renew",
          "--concurrency",
          "3",
          file,
        ],
        env(),
      );
      await run.until((_, err) => (err.match(/"state":"sending"/g) ?? []).length >= 3);
      run.child.kill("SIGINT");
      await run.until((_, err) => err.includes('"type":"interrupt"'));
      run.child.kill("SIGINT");
      const { code } = await run.exited;
      expect(code, run.stderr()).toBe(130);
      const events = jsonLines(run.stderr()); // throws on a line that is not JSON
      expect(events.at(-1)).toMatchObject({
        type: "exit",
        exitCode: 130,
        message: expect.stringMatching(/^Exiting now\. Nothing is lost: every write was journalled first\. /),
        resume: expect.stringContaining("Re-run the same command"),
      });
      expect(typeof events.at(-1)?.at).toBe("string");
    } finally {
      await fx.emu.control("DELETE", "/faults").catch(() => undefined);
    }
  }, 120_000);
});
