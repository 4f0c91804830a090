/**
 * A1/A4: set-up mistakes are said in the CLI's words — what the CLI user can do, never an SDK option
 * the CLI has not — and each names the real cause: plain http:// to a remote host, a base path that
 * is wrong (the suggestion is the origin's API path, not the wrong path with it appended), an https://
 * URL to a port that serves plain HTTP, a --token-file that is a directory.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, jsonLines, runCli, startEmulator, tempDir, type EmulatorProcess } from "./harness";

let emu: EmulatorProcess;
const tmp = tempDir("reseller-cli-messages-");
const env = () => ({ RESELLER_API_TOKEN: emu.token, RESELLER_API_BASE_URL: emu.baseUrl, RESELLER_JOURNAL: undefined });
const errorOf = (stderr: string) => jsonLines(stderr).find((e) => e.type === "error")!;

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu?.stop();
  tmp.cleanup();
});

describe("base URL and token file mistakes", () => {
  it("A1: --base-url http:// to a remote host says to use https:// (or a local server), not an SDK option", async () => {
    const r = await runCli(cli(), ["--base-url", "http://no-such-host.invalid/api/reseller/v1", "context"], env());
    expect(r.code, r.stderr).toBe(2);
    const message = String(errorOf(r.stderr).message);
    expect(message).not.toContain("allowInsecureHttp");
    expect(message).toContain("https://no-such-host.invalid/api/reseller/v1");
    expect(message).toContain("--base-url");
  });

  it("A1: a base URL with a wrong path suggests the origin's /api/reseller/v1, not the wrong path with it appended", async () => {
    const origin = new URL(emu.baseUrl).origin;
    const r = await runCli(cli(), ["--base-url", `${origin}/wrong/path`, "context"], env());
    expect(r.code, r.stderr).toBe(2);
    const message = String(errorOf(r.stderr).message);
    expect(message).toContain(`${origin}/api/reseller/v1`);
    expect(message).not.toContain("/wrong/path/api/reseller/v1");
  });

  it("A1: https:// to a port that serves plain HTTP says so, not that a certificate is untrusted", async () => {
    const r = await runCli(cli(), ["--base-url", emu.baseUrl.replace("http://", "https://"), "context"], env());
    expect(r.code, r.stderr).toBe(4);
    const message = String(errorOf(r.stderr).message);
    expect(message).toMatch(/plain HTTP/);
    expect(message).not.toMatch(/certificate is not trusted/);
  });

  it("A4: --token-file naming a directory says it is a directory (no chmod advice)", async () => {
    const dir = join(tmp.dir, "adir");
    mkdirSync(dir, { mode: 0o755 });
    const r = await runCli(cli(), ["--token-file", dir, "context"], { ...env(), RESELLER_API_TOKEN: undefined });
    expect(r.code, r.stderr).toBe(2);
    const message = String(errorOf(r.stderr).message);
    expect(message).toContain(`${dir} is a directory`);
    expect(message).not.toContain("chmod 600 " + dir);
  });
});
