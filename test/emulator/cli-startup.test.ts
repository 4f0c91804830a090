// `reseller-emulator` as a user starts it. Start-up errors caused by the user's input — an address
// that is not this machine's, a seed entry the emulator refuses — are one line on stderr and exit 2,
// never a stack trace. And started through `npx` / `npm exec` by a script or a Node process that then
// exits, it stops: npm waits for its child, so it is re-parented and lives on, and watching only the
// parent (or npm) would keep the port taken forever.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createEmulator, isEmulatorControlError } from "../../emulator/index";
import { acceptsConnections } from "../support/process";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CLI = join(ROOT, "emulator", "cli.ts");
const tmp = mkdtempSync(join(tmpdir(), "reseller-emu-start-"));
const pids: number[] = [];
const children: ChildProcess[] = [];

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      /* already gone */
    }
  }
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", CLI, ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
  child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

/** Polls `probe` until it returns a value; the bound is generous and only turns a hang into a failure. */
async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

const noStack = (stderr: string) => expect(stderr).not.toMatch(/^\s+at /m);

describe("reseller-emulator start-up errors: one line, exit 2", () => {
  it("--host an address this machine does not have: says so and names 127.0.0.1, not the port", async () => {
    // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): documentation only, never an interface address.
    const { code, stdout, stderr } = await run(["--host", "192.0.2.1"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain(
      "reseller-emulator: --host 192.0.2.1: not an address of this machine, so nothing can listen there: use 127.0.0.1",
    );
    expect(stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(stderr).not.toMatch(/pass another port/);
    noStack(stderr);
  });

  it('A3: --seed with a key whose environment is "prod": names the file, the entry and the allowed values', async () => {
    const file = join(tmp, "seed.json");
    writeFileSync(file, JSON.stringify({ keys: [{ environment: "test" }, { environment: "prod", token: "abc" }] }));
    const { code, stdout, stderr } = await run(["--seed", file]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toBe(`reseller-emulator: --seed ${file}: keys[1]: environment must be test or live, got "prod".\n`);
    noStack(stderr);
  });

  it("--seed with a domain entry that is not an object: names the entry, no stack", async () => {
    const file = join(tmp, "seed-domains.json");
    writeFileSync(file, JSON.stringify({ keys: [{ environment: "test" }], domains: [null] }));
    const { code, stderr } = await run(["--seed", file]);
    expect(code).toBe(2);
    expect(stderr).toBe(`reseller-emulator: --seed ${file}: domains[0]: must be an object, got null.\n`);
  });

  it("A3: createEmulator({ seed }) names the refused entry too, as an EmulatorControlError", () => {
    let caught: unknown;
    try {
      createEmulator({ seed: { keys: [{ environment: "live" }, { environment: "prod" as never }] } });
    } catch (error) {
      caught = error;
    }
    expect(isEmulatorControlError(caught)).toBe(true);
    expect((caught as Error).message).toBe('seed.keys[1]: environment must be test or live, got "prod".');
  });
});

/**
 * What `npx reseller-emulator …` builds: the starter (a shell script or a Node process) → npm, titled
 * `npm exec reseller-emulator`, with npm_command=exec in the environment → `sh -c` → the emulator. npm
 * waits for its child. The starter exits once the emulator is listening; the emulator's pid comes from
 * the shell (`$!`).
 */
function startLikeNpx(name: string, flags: string[], viaShell: boolean) {
  const file = join(tmp, `${name}.json`);
  const pidFile = join(tmp, `${name}.pid`);
  const emulatorArgs = ["--import", "tsx", CLI, "--print-to", file, ...flags];
  const quoted = [process.execPath, ...emulatorArgs].map((a) => `'${a}'`).join(" ");
  const npm = `
    process.title = "npm exec reseller-emulator";
    const { spawn } = require("node:child_process");
    const env = { ...process.env, npm_command: "exec", npm_lifecycle_event: "npx" };
    const child = ${viaShell}
      ? spawn("sh", ["-c", ${JSON.stringify(`${quoted} & echo $! > '${pidFile}'; wait $!`)}], { stdio: "ignore", env })
      : spawn(${JSON.stringify(process.execPath)}, ${JSON.stringify(emulatorArgs)}, { stdio: "ignore", env });
    if (!${viaShell}) require("node:fs").writeFileSync(${JSON.stringify(pidFile)}, String(child.pid));
    child.on("exit", (code) => process.exit(code ?? 1));`;
  const starter = `
    const { spawn } = require("node:child_process");
    const { existsSync } = require("node:fs");
    const npm = spawn(process.execPath, ["-e", ${JSON.stringify(npm)}], { cwd: ${JSON.stringify(ROOT)}, stdio: "ignore" });
    console.log("npm " + npm.pid);
    const t = setInterval(() => { if (existsSync(${JSON.stringify(file)})) { clearInterval(t); process.exit(0); } }, 50);`;
  const child = spawn(process.execPath, ["-e", starter], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  let out = "";
  child.stdout.on("data", (b: Buffer) => (out += b.toString()));
  const exited = new Promise<void>((r) => child.on("exit", () => r()));
  return {
    exited,
    async started() {
      const npmPid = Number(await until("the npm pid", () => /npm (\d+)/.exec(out)?.[1]));
      pids.push(npmPid);
      await until(file, () => (existsSync(file) && existsSync(pidFile) ? true : undefined));
      const emulatorPid = Number(
        await until("the emulator pid", () => readFileSync(pidFile, "utf8").trim() || undefined),
      );
      pids.push(emulatorPid);
      const port = Number(new URL(JSON.parse(readFileSync(file, "utf8")).baseUrl).port);
      return { npmPid, emulatorPid, port };
    },
  };
}

describe("reseller-emulator started through npx stops when its starter exits", () => {
  for (const viaShell of [true, false])
    it(`npx-style start (npm → ${viaShell ? "sh → " : ""}emulator): the starter exits → the emulator and npm exit, the port is freed; --keep-alive survives`, async () => {
      // The --keep-alive one's starter exits first; the plain one is started after that, so by the time
      // the plain one has noticed its starter's exit, the --keep-alive one has had all of the plain
      // one's start-up and its watch intervals to (wrongly) do the same.
      const kept = startLikeNpx(`kept-${viaShell}`, ["--keep-alive"], viaShell);
      const b = await kept.started();
      await kept.exited;
      const plain = startLikeNpx(`plain-${viaShell}`, [], viaShell);
      const a = await plain.started();
      expect(await acceptsConnections(a.port)).toBe(true);
      await plain.exited; // the starter exits on its own, like a script after `npx … &`
      await until("the emulator to exit", () => (alive(a.emulatorPid) ? undefined : true));
      await until("npm (waiting for the emulator) to exit", () => (alive(a.npmPid) ? undefined : true));
      expect(await acceptsConnections(a.port)).toBe(false);
      expect(alive(b.emulatorPid)).toBe(true);
      expect(await acceptsConnections(b.port)).toBe(true);
      process.kill(b.emulatorPid, "SIGTERM");
      await until("the --keep-alive emulator to stop on SIGTERM", () => (alive(b.emulatorPid) ? undefined : true));
    });
});

describe("reseller-emulator started through the real npx", () => {
  it("a shell script runs `npx reseller-emulator … &` and exits → the emulator and npm exit", async () => {
    // A throw-away project whose bin `reseller-emulator` runs this checkout's emulator/cli.ts in the
    // same process (as dist/cli.js does), so npx builds exactly the tree a user gets.
    const project = join(tmp, "npx-project");
    const pkg = join(project, "node_modules", "reseller-emulator-here");
    mkdirSync(pkg, { recursive: true });
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "p", version: "1.0.0", dependencies: { "reseller-emulator-here": "1.0.0" } }),
    );
    writeFileSync(
      join(pkg, "package.json"),
      JSON.stringify({ name: "reseller-emulator-here", version: "1.0.0", bin: { "reseller-emulator": "bin.js" } }),
    );
    const loader = pathToFileURL(join(ROOT, "node_modules", "tsx", "dist", "loader.mjs")).href;
    writeFileSync(
      join(pkg, "bin.js"),
      `#!/usr/bin/env -S ${process.execPath} --import=${loader}\nprocess.argv[1] = ${JSON.stringify(CLI)};\nimport(${JSON.stringify(pathToFileURL(CLI).href)});\n`,
      { mode: 0o755 },
    );
    mkdirSync(join(project, "node_modules", ".bin"));
    symlinkSync("../reseller-emulator-here/bin.js", join(project, "node_modules", ".bin", "reseller-emulator"));
    const file = join(project, "emulator.json");
    const script = `npx reseller-emulator --print-to '${file}' 2>'${join(project, "emu.err")}' &\necho "npm $!"\nwhile [ ! -f '${file}' ]; do sleep 0.05; done\n`;
    const sh = spawn("sh", ["-c", script], { cwd: project, stdio: ["ignore", "pipe", "inherit"] });
    children.push(sh);
    let out = "";
    sh.stdout.on("data", (b: Buffer) => (out += b.toString()));
    const code = await new Promise<number | null>((r) => sh.on("exit", (c) => r(c)));
    expect(code).toBe(0);
    const npmPid = Number(/npm (\d+)/.exec(out)![1]);
    pids.push(npmPid);
    const port = Number(new URL(JSON.parse(readFileSync(file, "utf8")).baseUrl).port);
    await until("npm and the emulator under it to exit", () => (alive(npmPid) ? undefined : true));
    expect(await acceptsConnections(port)).toBe(false);
    expect(readFileSync(join(project, "emu.err"), "utf8")).toMatch(
      /the process that started it \(pid \d+\) exited, closing/,
    );
  });
});
