/**
 * The simulation runs from one esbuild bundle on plain `node`, not under tsx or vitest: the client
 * loads recover() and operations.wait lazily with import(), and under a loader with hooks every
 * import() is a round trip to the hooks thread — real concurrency, which would let a step start
 * before the previous one finished and make a schedule unrepeatable. Bundled, each import() of the
 * client's own modules is a resolved promise, so a run depends only on its scenario.
 */
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "esbuild";

const ROOT = resolve(new URL("../..", import.meta.url).pathname);

/**
 * Builds test/simulation/cli.ts into .tmp/simulation/ (inside the repo, so node_modules resolves), one
 * file per process so that two simulations started at once never read each other's half-written bundle.
 */
async function buildSimulation(): Promise<string> {
  const outfile = join(ROOT, `.tmp/simulation/simulate-${process.pid}.mjs`);
  await build({
    entryPoints: [join(ROOT, "test/simulation/cli.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    logLevel: "error",
  });
  return outfile;
}

/** Runs the bundled simulation with `args`; resolves with its exit code and output. */
export async function runSimulation(
  args: string[],
  options: { inherit?: boolean } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const bundle = await buildSimulation();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [bundle, ...args], {
      cwd: ROOT,
      stdio: options.inherit ? "inherit" : ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", fail);
    child.on("close", (code) => {
      rmSync(bundle, { force: true });
      done({ code, stdout, stderr });
    });
  });
}
