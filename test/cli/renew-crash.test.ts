/**
 * The end-to-end test: the BUILT `reseller` bin (tsup, once in beforeAll) renews 200 domains
 * from a file of names against `reseller-emulator` over loopback with faults injected on the renewals and the polls, is
 * SIGKILLed twice mid-job, then re-run: exactly 200 renewal effects, one per domain, a clean journal;
 * and running the finished job again sends no write at all.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import { buildBin, jsonLines, seedDomains, spawnCli, startEmulator, tempDir, type EmulatorProcess } from "./harness";

const FAULTS = [
  { method: "POST", path: "/domains/{domainUuid}/renew", kind: "error_500_after", probability: 0.06, times: 15 },
  { method: "POST", path: "/domains/{domainUuid}/renew", kind: "reset_after", probability: 0.06, times: 15 },
  { method: "POST", path: "/domains/{domainUuid}/renew", kind: "timeout_after", probability: 0.04, times: 8 },
  { method: "POST", path: "/domains/{domainUuid}/renew", kind: "truncated_json", probability: 0.05, times: 10 },
  { method: "POST", path: "/domains/{domainUuid}/renew", kind: "error_503_before", probability: 0.05, times: 10 },
  { method: "POST", path: "/domains/{domainUuid}/renew", kind: "retry_after_zero", probability: 0.03, times: 5 },
  { method: "GET", path: "/operations/{operationUuid}", kind: "proxy_502_html", probability: 0.05, times: 15 },
  { method: "GET", path: "/operations/{operationUuid}", kind: "reset_before", probability: 0.05, times: 15 },
];

describe("reseller renew: 200 domains, faults, two SIGKILLs", () => {
  let bin: ReturnType<typeof buildBin>;
  let emu: EmulatorProcess;
  let tmp: ReturnType<typeof tempDir>;
  let journalFile: string;
  let env: NodeJS.ProcessEnv;
  let namesFile: string;
  // A file of names, so every run sees all 200 rows (with --expiring-within, renewed domains drop out).
  const args = () => [
    "renew",
    namesFile,
    "--journal",
    journalFile,
    "--window-ms",
    "1000",
    "--request-timeout",
    "1s",
    "--concurrency",
    "16",
  ];

  beforeAll(async () => {
    bin = buildBin();
    emu = await startEmulator(["--window-ms", "1000", "--rate-limit", "400"]);
    tmp = tempDir("reseller-cli-crash-");
    journalFile = join(tmp.dir, "journal.sqlite");
    env = { RESELLER_API_TOKEN: emu.token, RESELLER_API_BASE_URL: emu.baseUrl };
    const names = await seedDomains(emu, 200, "crash", 10);
    namesFile = join(tmp.dir, "renew.txt");
    writeFileSync(namesFile, "# this month's renewals\n" + names.join("\n") + "\n");
    for (const fault of FAULTS) await emu.control("POST", "/faults", fault);
  });

  afterAll(async () => {
    await emu?.stop();
    tmp?.cleanup();
  });

  it("G4/D2/F1: SIGKILL twice mid-job, re-run → exactly one renewal per domain, clean journal, a finished job sends no write", async () => {
    const done = (out: string) => (out.match(/"kind":"done"/g) ?? []).length;

    const first = spawnCli([bin.bin], args(), env);
    await first.until((out) => done(out) >= 40, 90_000);
    first.child.kill("SIGKILL");
    expect((await first.exited).signal).toBe("SIGKILL");

    const second = spawnCli([bin.bin], args(), env);
    await second.until((out) => done(out) >= 40, 90_000);
    second.child.kill("SIGKILL");
    expect((await second.exited).signal).toBe("SIGKILL");

    const third = spawnCli([bin.bin], args(), env);
    const r3 = await third.exited;
    expect(r3.code, third.stderr().slice(-3000)).toBe(0);
    const results = jsonLines(third.stdout());
    expect(results).toHaveLength(200);
    expect(results.every((r) => r.kind === "done" || r.kind === "already_done")).toBe(true);

    // The emulator's effect log: one renewal per domain, 200 in all (a second execution would show here).
    const effects = (await emu.control<{ kind: string; idempotency_key: string }[]>("GET", "/effects")).filter(
      (e) => e.kind === "domain.renew",
    );
    expect(effects).toHaveLength(200);
    expect(new Set(effects.map((e) => e.idempotency_key.split(":")[2])).size).toBe(200);

    // A clean journal: every renewal completed, nothing unsettled.
    const journal = createSqliteJournal({ filename: journalFile });
    try {
      const unsettled = await journal.listByState([
        "recorded",
        "sending",
        "unknown",
        "conflict",
        "reconciling",
        "accepted",
        "needs_manual_check",
      ]);
      expect(unsettled.map((r) => `${r.operationId} ${r.state}`)).toEqual([]);
      const renewals = (await journal.listByState(["completed"])).filter((r) => r.operationId === "domains.renew");
      expect(renewals).toHaveLength(200);
    } finally {
      await journal.close();
    }

    // The finished job, run again: every row already done, and not one write on the wire.
    const before = (await emu.control<unknown[]>("GET", "/requests")).length;
    const again = spawnCli([bin.bin], args(), env);
    expect((await again.exited).code).toBe(0);
    const rerun = jsonLines(again.stdout());
    expect(rerun.filter((r) => r.kind === "already_done")).toHaveLength(200);
    const requests = (await emu.control<{ method: string; path: string }[]>("GET", "/requests")).slice(before);
    expect(requests.filter((r) => r.method !== "GET")).toEqual([]);
  }, 300_000);
});
