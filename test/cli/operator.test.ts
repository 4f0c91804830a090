/**
 * The operator's second pass (the built `reseller` bin, as a user runs it): wrong URLs fail fast and
 * named, scripting edges are usage errors before any network, `--emulator` never touches the real
 * journal, a manual check is closed with `commands resolve`, credentials never leak through a URL,
 * a token file or argv — and, in a real pseudo-terminal at 80 and 120 columns, nothing is wider than
 * the terminal.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import type { AddressInfo } from "node:net";
import { createServer as createTlsServer, type Server as TlsServer } from "node:tls";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, buildBin, jsonLines, recordManualTicket, runCli, seedDomains, startEmulator, tempDir } from "./harness";

const tmp = tempDir("reseller-cli-operator-");
let bin: { bin: string };
let cmd: string[];
const TOKEN = `rsl_test_${"A".repeat(24)}.${"b".repeat(64)}`;

beforeAll(() => {
  bin = buildBin();
  cmd = [bin.bin];
}, 900_000);
afterAll(() => {
  tmp.cleanup();
});

const baseEnv = (extra: Record<string, string> = {}) => ({
  RESELLER_API_TOKEN: TOKEN,
  RESELLER_JOURNAL: join(tmp.dir, "journal.sqlite"),
  ...extra,
});

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe("a wrong base URL fails at once, named, with the fix (issue item 1)", () => {
  let silent: TcpServer;
  let tls: TlsServer | undefined;
  let silentPort = 0;
  let tlsPort = 0;
  let bytesSeen = "";
  beforeAll(async () => {
    // Accepts TCP and never answers a byte: a TLS handshake to it can only time out.
    silent = createTcpServer((socket) => {
      socket.on("data", (d: Buffer) => (bytesSeen += d.toString("latin1")));
    });
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    silentPort = (silent.address() as AddressInfo).port;
    const key = join(tmp.dir, "key.pem");
    const cert = join(tmp.dir, "cert.pem");
    const made = spawnSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        key,
        "-out",
        cert,
        "-days",
        "1",
        "-subj",
        "/CN=localhost",
      ],
      { encoding: "utf8" },
    );
    if (made.status === 0) {
      tls = createTlsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (s) => s.end());
      tls.on("tlsClientError", () => undefined);
      await new Promise<void>((r) => tls!.listen(0, "127.0.0.1", r));
      tlsPort = (tls.address() as AddressInfo).port;
    }
  });
  afterAll(async () => {
    await new Promise((r) => silent.close(r));
    if (tls) await new Promise((r) => tls!.close(r));
  });

  it("refused: names ECONNREFUSED-as-words and the host:port, quotes no request id, exit 4", async () => {
    const port = await closedPort();
    const r = await runCli(
      cmd,
      ["--json", "context"],
      baseEnv({ RESELLER_API_BASE_URL: `http://127.0.0.1:${port}/api/reseller/v1` }),
    );
    expect(r.code).toBe(4);
    const [error] = jsonLines(r.stderr).filter((e) => e.type === "error");
    expect(error).toMatchObject({ code: "cli_connection", exitCode: 4 });
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(error.message).toContain("connection refused");
    expect(error.message).toContain("RESELLER_API_BASE_URL");
    expect(error.message).not.toMatch(/request [0-9a-f-]{8}/);
  });

  it("timeout: a host that accepts and never answers fails by the connect timeout, not the 60 s response timeout", async () => {
    const r = await runCli(
      cmd,
      ["--connect-timeout", "1s", "--request-timeout", "60s", "context"],
      baseEnv({ RESELLER_API_BASE_URL: `https://127.0.0.1:${silentPort}/api/reseller/v1` }),
    );
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`Cannot connect to 127.0.0.1:${silentPort}: no answer to the connection within 1000 ms`);
    expect(bytesSeen).not.toContain("/api/reseller/v1"); // a ClientHello at most: no HTTP request was sent
  });

  it("E4: a port that takes the connection and never answers HTTP ends the first request by its short first-answer limit, named, not after the call's whole deadline", async () => {
    const before = bytesSeen.length;
    const r = await runCli(
      cmd,
      ["--json", "--request-timeout", "2s", "context"],
      baseEnv({ RESELLER_API_BASE_URL: `http://127.0.0.1:${silentPort}/api/reseller/v1` }),
    );
    expect(r.code).toBe(4);
    const [error] = jsonLines(r.stderr).filter((e) => e.type === "error");
    expect(error).toMatchObject({ code: "cli_setup", exitCode: 4 });
    // Retries end with the first-answer deadline (2 × 2 s): one retry at most, never the six of a full call.
    expect(error.message).toMatch(
      new RegExp(
        `127\\.0\\.0\\.1:${silentPort} accepted the connection but sent no HTTP response within 2000 ms \\([12] attempts?\\)`,
      ),
    );
    expect(error.message).not.toMatch(/Cannot connect/); // it did connect: the request was received
    expect(bytesSeen.slice(before)).toContain("GET /api/reseller/v1/context");
  });

  it("TLS: an untrusted certificate is named as a TLS failure with the CA hint", async () => {
    if (!tls) throw new Error("This test needs the openssl binary (apt-get install -y openssl) to make a certificate");
    const r = await runCli(
      cmd,
      ["context"],
      baseEnv({ RESELLER_API_BASE_URL: `https://localhost:${tlsPort}/api/reseller/v1` }),
    );
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`Cannot connect to localhost:${tlsPort}: the TLS handshake failed`);
    expect(r.stderr).toContain("NODE_EXTRA_CA_CERTS");
  });

  it("H2: a baseUrl with a query or userinfo is refused up front (exit 2) and nothing after ? or the password is echoed", async () => {
    for (const url of [
      `https://api.example.kz/api/reseller/v1?api_key=SuperSecret123`,
      `https://ops:SuperSecret123@api.example.kz/api/reseller/v1`,
      `https://api.example.kz/api/reseller/v1#SuperSecret123`,
    ]) {
      const r = await runCli(cmd, ["context"], baseEnv({ RESELLER_API_BASE_URL: url }));
      expect(r.code, url).toBe(2);
      expect(r.stderr).toMatch(/baseUrl must not/);
      expect(r.stderr + r.stdout).not.toContain("SuperSecret123");
    }
  });
});

describe("scripting edges (item 8)", () => {
  it("a missing file and a directory are usage errors (exit 2) before any network; piped, the error is one JSON line", async () => {
    const port = await closedPort(); // had the CLI gone to the network first, this would be exit 4
    const env = baseEnv({ RESELLER_API_BASE_URL: `http://127.0.0.1:${port}/api/reseller/v1` });
    const missing = await runCli(cmd, ["renew", join(tmp.dir, "nosuchfile.txt")], env);
    expect(missing.code).toBe(2);
    const [e1] = jsonLines(missing.stderr);
    expect(e1).toMatchObject({ type: "error", code: "cli_usage", exitCode: 2 });
    expect(e1.message).toContain("no such file");
    const dir = join(tmp.dir, "a-directory");
    mkdirSync(dir, { recursive: true });
    const isDir = await runCli(cmd, ["renew", dir], env);
    expect(isDir.code).toBe(2);
    expect(jsonLines(isDir.stderr)[0].message).toContain("is a directory");
    const flag = await runCli(cmd, ["renew", "--bogus"], env);
    expect(flag.code).toBe(2);
    expect(jsonLines(flag.stderr)).toEqual([expect.objectContaining({ type: "error", code: "cli_usage" })]);
  });

  it("renew with no FILE under cron (empty stdin, not a terminal) is a usage error, not 0 rows and exit 0", async () => {
    const r = await runCli(cmd, ["--emulator", "renew"], {}, "");
    expect(r.code).toBe(2);
    expect(jsonLines(r.stderr)[0].message).toContain("stdin is empty");
  });
});

describe("--emulator and the real journal (item 7)", () => {
  it("RESELLER_JOURNAL is not touched by --emulator; --journal given explicitly is used", async () => {
    const real = join(tmp.dir, "real-journal.sqlite");
    const r = await runCli(cmd, ["--emulator", "renew", "--expiring-within", "400d"], { RESELLER_JOURNAL: real });
    expect(r.code).toBe(0);
    expect(existsSync(real)).toBe(false);
    expect(jsonLines(r.stderr).some((e) => e.type === "notice" && /journal: memory/.test(e.message))).toBe(true);
    const explicit = join(tmp.dir, "explicit.sqlite");
    const e = await runCli(cmd, ["--emulator", "--journal", explicit, "renew", "--expiring-within", "400d"], {});
    expect(e.code).toBe(0);
    expect(existsSync(explicit)).toBe(true);
  });
});

describe("credentials never leak (issue 21)", () => {
  it("a --token-file readable by group or others is refused with chmod 600 (exit 2); the secret part alone on argv is refused", async () => {
    const file = join(tmp.dir, "token");
    writeFileSync(file, TOKEN + "\n");
    chmodSync(file, 0o644);
    const r = await runCli(cmd, ["--token-file", file, "context"], {
      RESELLER_API_BASE_URL: "https://api.example.kz/api/reseller/v1",
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`chmod 600 ${file}`);
    expect(r.stderr).not.toContain("b".repeat(64));
    const secret = "Zx9".repeat(21) + "q"; // 64 base64url characters: a key's secret part
    const a = await runCli(cmd, ["--emulator", "check", secret], {});
    expect(a.code).toBe(2);
    expect(a.stderr).toContain("looks like an API token or its secret part");
    expect(a.stderr + a.stdout).not.toContain(secret);
  });

  it("H2: a postgres:// journal URL is never printed with its password, in the userinfo or the query", async () => {
    const port = await closedPort();
    const url = `postgres://ops:UserPw777@127.0.0.1:${port}/journal?password=QueryPw999&sslmode=disable`;
    const r = await runCli(cmd, ["--journal", url, "commands", "list"], {});
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(
      `postgres://ops:[REDACTED]@127.0.0.1:${port}/journal?password=[REDACTED]&sslmode=disable`,
    );
    expect(r.stderr).not.toContain("QueryPw999");
    expect(r.stderr).not.toContain("UserPw777");
  });
});

describe("closing a manual check (item 6)", () => {
  it("F4: commands list shows its age, notes exit 0 in plain words without free text, resolve closes it journalled and sends nothing", async () => {
    const file = join(tmp.dir, "manual.sqlite");
    const id = "7a1b2c3d-0000-4000-8000-000000000001";
    await recordManualTicket(file, {
      id,
      idempotencyKey: "ticket-1",
      body: { subject: "Passport AB1234567", message: "my passport is AB1234567" },
      reason: "the server keeps answering 409 (D6): the first attempt is stuck",
      ageMs: 3 * 3_600_000,
    });
    const env = { RESELLER_JOURNAL: file };
    const list = await runCli(cmd, ["commands", "list", "--state", "needs_manual_check"], env);
    expect(list.code).toBe(0);
    const [row] = jsonLines(list.stdout);
    expect(row).toMatchObject({ id, state: "needs_manual_check" });
    expect(row.age_s).toBeGreaterThanOrEqual(0);
    expect(row.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const notes = await runCli(cmd, ["commands", "notes"], env);
    expect(notes.code).toBe(0);
    const [note] = jsonLines(notes.stdout);
    expect(note.note).toContain("the server keeps answering 409: the first attempt is stuck");
    expect(note.note).not.toMatch(/\([A-J]\d+\)/);
    expect(JSON.stringify(note)).not.toContain("AB1234567");
    const withText = await runCli(cmd, ["commands", "show", id, "--include-text"], env);
    expect(withText.stdout).toContain("AB1234567");
    const resolve = await runCli(
      cmd,
      [
        "commands",
        "resolve",
        id,
        "--as",
        "completed",
        "--note",
        "support confirmed the ticket exists",
        "--reference",
        "SUP-42",
      ],
      env,
    );
    expect(resolve.code).toBe(0);
    expect(jsonLines(resolve.stdout)[0]).toMatchObject({ id, state: "completed" });
    const after = await runCli(cmd, ["commands", "list", "--state", "needs_manual_check"], env);
    expect(jsonLines(after.stdout)).toEqual([]);
    const shown = jsonLines((await runCli(cmd, ["commands", "show", id], env)).stdout)[0];
    expect(JSON.stringify(shown)).toContain("SUP-42");
    const again = await runCli(cmd, ["commands", "resolve", id, "--as", "failed", "--note", "x"], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("not needs_manual_check");
  });
});

describe("supply chain (issue 21)", () => {
  it("each bin ships a machine-readable list of what it bundles: name, version and licence, as installed", () => {
    const list = JSON.parse(readFileSync(join(dirname(bin.bin), "reseller.bundled.json"), "utf8")) as {
      bin: string;
      packages: { name: string; version: string; license: string }[];
    };
    expect(list.bin).toBe("reseller");
    for (const name of ["commander", "cli-table3", "csv-parse", "log-update"]) {
      const installed = JSON.parse(readFileSync(join(REPO, "node_modules", name, "package.json"), "utf8")) as {
        version: string;
        license: string;
      };
      expect(list.packages).toContainEqual(
        expect.objectContaining({ name, version: installed.version, license: installed.license }),
      );
    }
    expect(list.packages.every((p) => p.version && p.license && p.license !== "UNKNOWN")).toBe(true);
    const emulator = JSON.parse(readFileSync(join(dirname(bin.bin), "cli.bundled.json"), "utf8")) as {
      packages: { name: string }[];
    };
    expect(emulator.packages.map((p) => p.name)).toContain("hono");
  });
});

/** Runs the bin in a pseudo-terminal of `cols` columns; returns every visible line drawn. */
function inPty(
  cols: number,
  args: string[],
  env: Record<string, string> = {},
): { status: number | null; lines: string[]; raw: string } {
  const command = `stty cols ${cols} rows 40 2>/dev/null; ${[process.execPath, bin.bin, ...args].map((a) => `'${a}'`).join(" ")}`;
  const r = spawnSync("/usr/bin/script", ["-qfec", command, "/dev/null"], {
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, TERM: "xterm", NO_COLOR: "1", ...env },
  });
  // eslint-disable-next-line no-control-regex -- strip the terminal's escape sequences to measure what is visible
  const visible = r.stdout.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").replace(/\x1b\][^\x07]*\x07/g, "");
  return { status: r.status, raw: r.stdout, lines: visible.split(/\r\n|\n|\r/) };
}

describe("in a terminal at 80 and 120 columns (items 2–4)", () => {
  for (const cols of [80, 120]) {
    it(`${cols} columns: context, domains list and renew jobs (their row lines too) never draw a line wider than the terminal`, () => {
      if (!existsSync("/usr/bin/script"))
        throw new Error("This test needs util-linux `script`: apt-get install -y util-linux");
      for (const args of [
        ["--emulator", "context"],
        ["--emulator", "domains", "list"],
        ["--emulator", "renew", "--expiring-within", "400d"],
        // --no-wait rows carry the operation's UUID: the longest row lines a job prints.
        ["--emulator", "renew", "--expiring-within", "400d", "--no-wait"],
      ]) {
        const r = inPty(cols, args);
        expect(r.status, r.raw).toBe(0);
        const wide = r.lines.filter((l) => l.length > cols);
        expect(wide, args.join(" ")).toEqual([]);
      }
      const job = inPty(cols, ["--emulator", "renew", "--expiring-within", "400d"]);
      // The live line keeps the state first and ends with "ETA done", never "ETA 0ms".
      expect(job.raw).toMatch(/renew 3\/3 100% · ETA done/);
      expect(job.raw).not.toContain("ETA 0ms");
      const wideFlag = inPty(cols, ["--emulator", "--wide", "context"]);
      if (cols === 80) expect(wideFlag.lines.some((l) => l.length > cols)).toBe(true);
    }, 300_000);

    it(`C12: ${cols} columns: a 429 is shown as a 429 pause with its countdown, never as "window full", and counted`, async () => {
      const emu = await startEmulator(["--window-ms", "1000", "--rate-limit", "300"]);
      try {
        await seedDomains(emu, 3, `pty${cols}-`, 5);
        // A proxy's 429 with an HTTP-date Retry-After 3 s ahead, on the first renewal only.
        await emu.control("POST", "/faults", {
          method: "POST",
          path: "/domains/{domainUuid}/renew",
          kind: "proxy_429_date",
          times: 1,
          retry_after_seconds: 3,
        });
        const env = {
          RESELLER_API_TOKEN: emu.token,
          RESELLER_API_BASE_URL: emu.baseUrl,
          RESELLER_JOURNAL: join(tmp.dir, `pty-429-${cols}.sqlite`),
        };
        const r = inPty(cols, ["renew", "--expiring-within", "30d", "--no-wait"], env);
        expect(r.status, r.raw).toBe(0);
        const paused = r.lines.filter((l) => /paused \d+(ms|s): 429/.test(l));
        expect(paused.length, r.raw).toBeGreaterThan(0);
        if (cols >= 120) expect(paused.some((l) => l.includes("429: whole key paused for Retry-After"))).toBe(true);
        expect(
          r.lines.filter((l) => l.includes("window full")),
          r.raw,
        ).toEqual([]);
        // The live line (state and pause first) fits the terminal while the pause is on, and so does
        // every row line (a --no-wait row names its operation's UUID) and the summary.
        expect(r.lines.filter((l) => l.length > cols)).toEqual([]);
        const rows = r.lines.filter((l) => /^pty\d+-\d+\.kz\b/.test(l));
        expect(rows.length, r.raw).toBeGreaterThanOrEqual(3);
        expect(rows.every((l) => /\baccepted\b/.test(l))).toBe(true);
        expect(r.raw).toMatch(/429s 1/);
      } finally {
        await emu.stop();
      }
    }, 300_000);
  }
});
