/**
 * Issue 25, item 9, decided by what the CLI does rather than how fast this machine is: a 10-line
 * FILE job on a 100,000-domain account reaches its first renewal after a fixed handful of requests
 * (the context and one filtered lookup), all inside the idle key's allowance, so the pacer adds no
 * wait before it — not after a listing of the account (≈ 1,000 pages at 120 per minute).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, jsonLines, runCli, startEmulator, tempDir, type EmulatorProcess } from "./harness";

const tmp = tempDir("reseller-cli-scale-");
const started: EmulatorProcess[] = [];
afterAll(async () => {
  for (const emu of started) await emu.stop();
  tmp.cleanup();
});

interface LoggedRequest {
  method: string;
  path: string;
  operation_id: string | null;
  public_key_id: string | null;
}

describe("a FILE job on a big account (item 9)", () => {
  it("C3/C8: 100,000 domains, 10 names — the first renewal follows the context and one filtered lookup, within the idle key's allowance", async () => {
    // The API's own defaults: 120 per 60 s, so any request beyond the allowance would wait ≈ 0.5 s.
    const emu = await startEmulator();
    started.push(emu);
    const expires = new Date(Date.now() + 10 * 86_400_000).toISOString();
    await emu.control("POST", "/domains/bulk", {
      token: emu.token,
      count: 100_000,
      prefix: "big-",
      expires_at: expires,
    });
    const names = Array.from({ length: 10 }, (_, i) => `big-${(i + 1) * 9_973}.kz`);
    const file = join(tmp.dir, "ten.txt");
    writeFileSync(file, names.join("\n") + "\n");
    const env = {
      RESELLER_API_TOKEN: emu.token,
      RESELLER_API_BASE_URL: emu.baseUrl,
      RESELLER_JOURNAL: join(tmp.dir, "big.sqlite"),
    };
    const r = await runCli(cli(), ["renew", file, "--no-wait"], env);
    expect(r.code, r.stderr).toBe(0);
    expect(jsonLines(r.stdout).filter((row) => row.kind === "accepted" || row.kind === "succeeded")).toHaveLength(10);
    const log = (await emu.control<LoggedRequest[]>("GET", "/requests")).filter((q) => q.public_key_id === emu.keyId);
    const first = log.findIndex((q) => q.operation_id === "domains.renew");
    expect(first).toBeGreaterThan(0);
    const before = log.slice(0, first);
    // The context, then one `GET /domains?name=…` for the ten names: never a walk over the account.
    expect(before.map((q) => q.operation_id)).toEqual(["context.get", "domains.list"]);
    // With the renewal itself, within the allowance (maxConcurrency = 4): no pacer wait before it.
    expect(first + 1).toBeLessThanOrEqual(4);
    expect(log.filter((q) => q.operation_id === "domains.list")).toHaveLength(1);
  }, 240_000);
});
