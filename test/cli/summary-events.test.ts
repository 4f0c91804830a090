/**
 * I7: the job summary counts what happened. A send that timed out (the server did it but never
 * answered) and that the client then settled by itself — a retry with the same key — is a send that
 * ended without a known outcome: `unknownOutcomeEvents` counts it, while the row is `done`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, jsonLines, runCli, seedDomains, useEmulatorProcess } from "./harness";

const fx = useEmulatorProcess(["--window-ms", "1000", "--rate-limit", "600"], "reseller-cli-summary-");
const { tmp, env } = fx;

describe("the summary's counters", () => {
  it("I7: a timed-out send later settled by the client counts in unknownOutcomeEvents; unknownOutcomes stays counts.unknown", async () => {
    const [name] = await seedDomains(fx.emu, 1, "timedout");
    const input = join(tmp.dir, "timedout.txt");
    writeFileSync(input, name + "\n");
    await fx.emu.control("POST", "/faults", {
      method: "POST",
      path: "/domains/{domainUuid}/renew",
      kind: "timeout_after",
      times: 1,
    });
    const r = await runCli(
      cli(),
      ["renew", input, "--journal", join(tmp.dir, "j.sqlite"), "--window-ms", "1000", "--request-timeout", "1s"],
      env(),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(jsonLines(r.stdout).map((x) => x.kind)).toEqual(["done"]);
    const summary = jsonLines(r.stderr).find((e) => e.type === "summary")!;
    expect(summary.unknownOutcomes).toBe(0);
    expect(summary.unknownOutcomeEvents).toBe(1);
  }, 60_000);
});
