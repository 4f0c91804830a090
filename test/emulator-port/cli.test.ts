// The `reseller-emulator` bin as a child process: one JSON line on stdout, keys that work over the port,
// usage errors with exit 2, a clean exit 0 on SIGTERM.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { parseCliArgs, UsageError } from "../../emulator/cli";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CLI = join(ROOT, "emulator", "cli.ts");

interface Started {
  child: ChildProcess;
  line: string;
  info: {
    baseUrl: string;
    controlUrl: string;
    keys: {
      token: string;
      environment: string;
      public_key_id: string;
      scopes: string[];
      rate_limit_per_minute: number;
    }[];
  };
  stdout: () => string;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children = new Set<ChildProcess>();
afterEach(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  children.clear();
});

function run(args: string[]) {
  // `node --import tsx`, not the tsx wrapper: the wrapper SIGKILLs a child that does not acknowledge a
  // relayed signal within 30 ms, which a loaded machine misses.
  const child = spawn(process.execPath, ["--import", "tsx", CLI, ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, exit, stdout: () => stdout, stderr: () => stderr };
}

async function start(args: string[]): Promise<Started> {
  const r = run(args);
  const deadline = Date.now() + 30_000;
  while (!r.stdout().includes("\n")) {
    if (r.child.exitCode !== null) throw new Error(`cli exited ${r.child.exitCode}: ${r.stderr()}`);
    if (Date.now() > deadline) throw new Error(`cli printed no line within 30 s: ${r.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const line = r.stdout().slice(0, r.stdout().indexOf("\n"));
  return { ...r, line, info: JSON.parse(line) as Started["info"] };
}

describe("parseCliArgs", () => {
  it("accepts every documented flag", () => {
    expect(
      parseCliArgs([
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--window-ms",
        "60000",
        "--replay-ttl-ms",
        "86400000",
        "--rate-limit",
        "120",
        "--seed",
        "seed.json",
      ]),
    ).toMatchObject({
      help: false,
      host: "127.0.0.1",
      port: 0,
      windowMs: 60_000,
      replayTtlMs: 86_400_000,
      defaultRateLimit: 120,
      seedFile: "seed.json",
    });
    expect(parseCliArgs([])).toMatchObject({ help: false, port: undefined, defaultRateLimit: undefined });
    expect(parseCliArgs(["--help"]).help).toBe(true);
  });

  it.each([
    [["--port", "abc"], /--port must be an integer/],
    [["--port", "70000"], /--port must be between 0 and 65535/],
    [["--port", "-1"], /--port/],
    [["--rate-limit", "0"], /--rate-limit must be between 1 and 10000/],
    [["--rate-limit", "10001"], /--rate-limit must be between 1 and 10000/],
    [["--rate-limit", "1.5"], /--rate-limit must be an integer/],
    [["--window-ms", "0"], /--window-ms/],
    [["--replay-ttl-ms", "soon"], /--replay-ttl-ms/],
    [["--bogus"], /bogus/],
    [["positional"], /positional|Unexpected argument/i],
    [["--host", ""], /--host/],
    [["--port"], /--port/],
  ])("C1/usage: %j is rejected with a clear UsageError", (argv, message) => {
    expect(() => parseCliArgs(argv)).toThrow(UsageError);
    expect(() => parseCliArgs(argv)).toThrow(message);
  });
});

describe("reseller-emulator (child process)", () => {
  const tmp = mkdtempSync(join(tmpdir(), "reseller-cli-"));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it("A5: prints exactly one JSON line; the test key gets 200 on GET /context; SIGTERM exits 0", async () => {
    const s = await start(["--port", "0"]);
    expect(s.info.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/reseller\/v1$/);
    expect(s.info.controlUrl).toBe(s.info.baseUrl.replace("/api/reseller/v1", "/_emulator"));
    const test = s.info.keys.find((k) => k.environment === "test")!;
    const live = s.info.keys.find((k) => k.environment === "live")!;
    expect(test.token).toMatch(/^rsl_test_[A-Za-z0-9]{24}\.[A-Za-z0-9_-]{64}$/);
    expect(live.token).toMatch(/^rsl_live_[A-Za-z0-9]{24}\.[A-Za-z0-9_-]{64}$/);
    expect(test.rate_limit_per_minute).toBe(120);
    expect(test.token.slice(9, 33)).toBe(test.public_key_id);
    expect(test.scopes.length).toBeGreaterThan(0);

    const response = await fetch(`${s.info.baseUrl}/context`, { headers: { authorization: `Bearer ${test.token}` } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      data: { environment: string; credential: { rate_limit_per_minute: number } };
    };
    expect(body.data.environment).toBe("test");
    expect(body.data.credential.rate_limit_per_minute).toBe(120);

    s.child.kill("SIGTERM");
    const exit = await s.exit;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(s.stdout()).toBe(s.line + "\n"); // nothing else ever reaches stdout
    expect(s.stderr()).not.toContain(test.token); // A4: the token is printed once, on stdout, never logged
    await expect(fetch(`${s.info.baseUrl}/context`)).rejects.toThrow("fetch failed");
  });

  it("C1: --rate-limit and --seed shape the keys; SIGINT also exits 0", async () => {
    const seedFile = join(tmp, "seed.json");
    writeFileSync(seedFile, JSON.stringify({ keys: [{ environment: "test", rate_limit_per_minute: 7 }] }));
    const s = await start(["--seed", seedFile, "--rate-limit", "50"]);
    expect(s.info.keys).toHaveLength(1);
    expect(s.info.keys[0]).toMatchObject({ environment: "test", rate_limit_per_minute: 7 });
    const response = await fetch(`${s.info.baseUrl}/context`, {
      headers: { authorization: `Bearer ${s.info.keys[0].token}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-ratelimit-limit")).toBe("7");
    s.child.kill("SIGINT");
    expect(await s.exit).toEqual({ code: 0, signal: null });
  });

  it.each([
    [["--port", "abc"], /--port must be an integer/],
    [["--rate-limit", "0"], /--rate-limit/],
    [["--seed", "/nonexistent/seed.json"], /--seed: cannot read/],
  ])("usage error %j → exit 2, message on stderr, nothing on stdout", async (args, message) => {
    const r = run(args);
    const exit = await r.exit;
    expect(exit.code).toBe(2);
    expect(r.stderr()).toMatch(message);
    expect(r.stdout()).toBe("");
  });

  it.each([
    [["--bogus"], /Unknown option '--bogus'/],
    [["--port", "abc"], /--port must be an integer/],
    [["--host", "8.8.8.8"], /--host 8\.8\.8\.8: not an address of this machine/],
    [["--host", "203.0.113.77"], /not an address of this machine/],
  ])("A5: usage error %j is one line on stderr — no help text, no warning before it", async (args, message) => {
    const r = run(args);
    expect((await r.exit).code).toBe(2);
    const lines = r
      .stderr()
      .split("\n")
      .filter((l) => l !== "");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(lines[0]).toMatch(/^reseller-emulator: .*--help/);
    expect(r.stderr()).not.toContain("Usage:");
    expect(r.stdout()).toBe("");
  });

  it("--help prints the usage and exits 0 without starting a server", async () => {
    const r = run(["--help"]);
    expect((await r.exit).code).toBe(0);
    expect(r.stdout()).toMatch(/^Usage: reseller-emulator/);
    expect(r.stdout()).toContain("--rate-limit");
  });

  it("usage error: a seed file that is not JSON → exit 2", async () => {
    const bad = join(tmp, "bad.json");
    writeFileSync(bad, "{ not json");
    const r = run(["--seed", bad]);
    expect((await r.exit).code).toBe(2);
    expect(r.stderr()).toMatch(/not valid JSON/);
  });
});
