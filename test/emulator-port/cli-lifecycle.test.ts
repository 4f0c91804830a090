// The emulator as a user runs it: the JSON line written to a file (--print-to), and a server that
// stops when whatever started it goes away — a shell job, a test runner killed with SIGKILL — so a
// script's `kill $!` never leaves the port taken. startEmulatorServer() has the CLI's default keys.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startEmulatorServer } from "../../emulator/server";
import { acceptsConnections } from "../support/process";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CLI = join(ROOT, "emulator", "cli.ts");
/** One process, no wrapper: `node --import tsx` runs the CLI's TypeScript directly. */
const NODE_CLI = ["--import", "tsx", CLI];
const tmp = mkdtempSync(join(tmpdir(), "reseller-cli-life-"));
const children: ChildProcess[] = [];
const pids: number[] = [];

afterEach(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      /* already gone */
    }
  }
  children.length = 0;
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function spawnTracked(cmd: string, args: string[]) {
  const child = spawn(cmd, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  child.stdout.on("data", (b: Buffer) => (out += b.toString()));
  child.stderr.on("data", (b: Buffer) => (out += b.toString()));
  const exited = new Promise<void>((r) => child.on("exit", () => r()));
  return { child, exited, output: () => out };
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function portFrom(file: string, output: () => string): Promise<number> {
  await until(`${file} (${output()})`, () => (existsSync(file) ? true : undefined));
  return Number(new URL(JSON.parse(readFileSync(file, "utf8")).baseUrl).port);
}

const freed = (port: number) =>
  until(`port ${port} to be freed`, async () => ((await acceptsConnections(port)) ? undefined : true), 15_000);

describe("reseller-emulator lifecycle", () => {
  it("--print-to writes exactly the stdout JSON line to the file", async () => {
    const file = join(tmp, "print.json");
    const p = spawnTracked(process.execPath, [...NODE_CLI, "--print-to", file]);
    await portFrom(file, p.output);
    const line = await until("the stdout line", () => (p.output().includes("}\n") ? p.output() : undefined));
    expect(readFileSync(file, "utf8")).toBe(line.slice(0, line.indexOf("\n") + 1));
    expect(JSON.parse(readFileSync(file, "utf8")).keys.map((k: { environment: string }) => k.environment)).toEqual([
      "test",
      "live",
    ]);
    p.child.kill("SIGTERM");
    await p.exited;
  });

  it("--print-to a file that cannot be written → exit 2 with the reason, and the port is released", async () => {
    const p = spawnTracked(process.execPath, [...NODE_CLI, "--print-to", join(tmp, "no-such-dir", "x.json")]);
    await p.exited;
    expect(p.child.exitCode).toBe(2);
    expect(p.output()).toMatch(/--print-to: cannot write .*no-such-dir/);
  });

  it("a shell job: SIGKILL to the shell that started it stops the server and frees the port", async () => {
    const file = join(tmp, "shell.json");
    const sh = spawnTracked("sh", ["-c", `"${process.execPath}" ${NODE_CLI.join(" ")} --print-to "${file}" & wait`]);
    const port = await portFrom(file, sh.output);
    expect(await acceptsConnections(port)).toBe(true);
    sh.child.kill("SIGKILL");
    await freed(port);
  });

  it("a test runner that dies: SIGKILL to the node process that spawned it stops the server", async () => {
    const file = join(tmp, "runner.json");
    const runner = spawnTracked(process.execPath, [
      "-e",
      `const c = require("node:child_process").spawn(process.execPath, ${JSON.stringify([...NODE_CLI, "--print-to", file])}, { stdio: "ignore" });
       console.log("pid " + c.pid); setInterval(() => {}, 1000);`,
    ]);
    const port = await portFrom(file, runner.output);
    pids.push(Number(/pid (\d+)/.exec(runner.output())![1]));
    runner.child.kill("SIGKILL");
    await freed(port);
  });

  it("--keep-alive: the server outlives the process that started it", async () => {
    const file = join(tmp, "keep.json");
    const runner = spawnTracked(process.execPath, [
      "-e",
      `const c = require("node:child_process").spawn(process.execPath, ${JSON.stringify([...NODE_CLI, "--print-to", file, "--keep-alive"])}, { stdio: "ignore" });
       console.log("pid " + c.pid); setInterval(() => {}, 1000);`,
    ]);
    const port = await portFrom(file, runner.output);
    const pid = Number(/pid (\d+)/.exec(runner.output())![1]);
    pids.push(pid);
    runner.child.kill("SIGKILL");
    await runner.exited;
    await new Promise((r) => setTimeout(r, 1000)); // four parent checks
    expect(await acceptsConnections(port)).toBe(true);
    process.kill(pid, "SIGTERM");
    await freed(port);
  });

  it("A3: startEmulatorServer() has the CLI's default keys: one test and one live key with every scope", async () => {
    const server = await startEmulatorServer();
    try {
      const keys = server.emulator.control.keys();
      expect(keys.map((k) => k.environment)).toEqual(["test", "live"]);
      expect(keys[0].scopes).toEqual(keys[1].scopes);
      expect(keys[0].scopes).toContain("domains.write");
      const response = await fetch(`${server.baseUrl}/context`, {
        headers: { authorization: `Bearer ${keys[0].token}` },
      });
      expect(response.status).toBe(200);
    } finally {
      await server.close();
    }
    const seeded = await startEmulatorServer({ seed: { keys: [{ environment: "live" }] } });
    try {
      expect(seeded.emulator.control.keys().map((k) => k.environment)).toEqual(["live"]);
    } finally {
      await seeded.close();
    }
  });
});
