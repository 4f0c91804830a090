/**
 * Packs this checkout and installs the tarball into an empty temporary project, as a user would.
 * The project gets the tarball from npm; the native driver better-sqlite3, ioredis, @opentelemetry/api and @types/node are
 * linked from this checkout's node_modules (a rebuild of better-sqlite3 would take minutes and prove
 * nothing about this package). pg is deliberately absent: the missing-driver path is tested with it.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

export const ROOT = resolve(__dirname, "../..");
const run = promisify(execFile);

export interface Installed {
  dir: string;
  tarball: string;
  /** Files in the tarball, relative to the package root. */
  files: string[];
}

export async function sh(
  cmd: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run(cmd, args, { cwd, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(" ")} failed in ${cwd}:\n${e.stdout ?? ""}\n${e.stderr ?? ""}\n${e.message}`);
  }
}

export async function packAndInstall(): Promise<Installed> {
  const work = mkdtempSync(join(tmpdir(), "reseller-pack-"));
  await sh("npm", ["run", "bundle", "--silent"], ROOT);
  const packed = await sh("npm", ["pack", "--json", "--pack-destination", work], ROOT);
  const info = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  const tarball = join(work, info[0].filename);
  const dir = join(work, "app");
  mkdirSync(dir);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "first-hour-app", private: true, type: "module" }));
  await sh("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball], dir);
  mkdirSync(join(dir, "node_modules", "@types"), { recursive: true });
  mkdirSync(join(dir, "node_modules", "@opentelemetry"), { recursive: true });
  for (const name of ["better-sqlite3", "ioredis", "@opentelemetry/api", "@types/node"]) {
    symlinkSync(join(ROOT, "node_modules", name), join(dir, "node_modules", name), "dir");
  }
  return { dir, tarball, files: info[0].files.map((f) => f.path) };
}

/** The fenced block between `<!-- NAME:begin -->` and `<!-- NAME:end -->` in the README. */
export function readmeBlock(name: string): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const m = new RegExp(`<!-- ${name}:begin -->\\s*\`\`\`\\w*\\n([\\s\\S]*?)\`\`\`\\s*<!-- ${name}:end -->`).exec(
    readme,
  );
  if (!m) throw new Error(`README.md has no ${name} block`);
  return m[1];
}

export interface Background {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

export function background(cmd: string, args: string[], cwd: string): Background {
  const child = spawn(cmd, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (b: Buffer) => (out += b.toString()));
  child.stderr.on("data", (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
  return { child, output: () => out, exited };
}

export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
