/**
 * One smoke suite for every runtime of the matrix: the emulator runs in the test process on
 * loopback (it survives the kill), the client runs as a bundled program under the runtime's binary
 * in an empty folder. Steps: the README quickstart with a 429 before the first answer (C12 pause),
 * then SIGKILL mid-renew and recover() in a new process on the same SQLite file (G1/G4).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulatorServer, type EmulatorServer } from "../../emulator/server";
import { ROOT, runtimeBinary, type RuntimeKey } from "./binaries";
import { spawnLogged, stopProcess } from "../support/process";

/** Bundles `entry` into `outfile` as a user's bundler would (ESM, the package's source inlined). */
export async function bundle(entry: string, outfile: string, platform: "node" | "neutral"): Promise<void> {
  await build({
    entryPoints: [join(ROOT, entry)],
    outfile,
    bundle: true,
    format: "esm",
    platform,
    target: "es2022",
    logLevel: "error",
    ...(platform === "neutral" ? { external: ["node:*"], mainFields: ["module", "main"], conditions: ["worker"] } : {}),
  });
}

export async function startSmokeEmulator(dir: string): Promise<EmulatorServer> {
  const server = await startEmulatorServer({
    withDefaultKeys: true,
    operationPolicy: { pendingMs: 50, processingMs: 50 },
  });
  const keys = server.emulator.control.keys();
  writeFileSync(
    join(dir, "emulator.json"),
    JSON.stringify({ baseUrl: server.baseUrl, controlUrl: server.controlUrl, keys }),
  );
  return server;
}

/** The last line of stdout as JSON; the whole output in the error when there is none. */
export function lastJson(stdout: string, context: string): Record<string, unknown> {
  const line = stdout.trim().split("\n").at(-1) ?? "";
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    throw new Error(`${context} printed no JSON line:\n${stdout}`);
  }
}

export type Argv = (bin: string, script: string) => string[];

export function runWith(
  key: RuntimeKey,
  argv: Argv,
  dir: string,
  mode: string,
): Promise<{ code: number | null; out: string }> {
  const bin = runtimeBinary(key);
  return new Promise((resolve) => {
    const child = spawn(bin, argv(bin, join(dir, "smoke.mjs")), {
      cwd: dir,
      env: { ...process.env, RESELLER_SMOKE_MODE: mode, RESELLER_SMOKE_DIR: dir, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString()));
    child.stderr.on("data", (b: Buffer) => (out += b.toString()));
    child.on("exit", (code) => resolve({ code, out }));
  });
}

/** The smoke suite for one runtime; `driver` is the SQLite "auto" must pick there. */
export function defineSmokeSuite(name: string, key: RuntimeKey, argv: Argv, driver: string): void {
  describe(`${name}: the client end to end against the emulator on loopback`, () => {
    let dir: string;
    let server: EmulatorServer;
    beforeAll(async () => {
      runtimeBinary(key); // a missing runtime fails here, saying how to get it
      dir = mkdtempSync(join(tmpdir(), `reseller-${key}-`));
      await bundle("test/runtimes/app/smoke.ts", join(dir, "smoke.mjs"), "node");
      server = await startSmokeEmulator(dir);
    });
    afterAll(async () => {
      await server?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it(`A5, G1, F1, C12: the README quickstart renews once on ${name}, with ${driver}, pausing on a 429 first`, async () => {
      server.emulator.control.addFault({
        method: "GET",
        path: "/context",
        kind: "proxy_429_date",
        times: 1,
        retry_after_seconds: 1,
      });
      const { code, out } = await runWith(key, argv, dir, "quickstart");
      expect(lastJson(out, name), out).toEqual({ said: expect.stringMatching(/^[a-z0-9.-]+: renewed$/), driver });
      expect(code).toBe(0);
      const context = server.emulator.control.requests().filter((r) => r.path.endsWith("/context"));
      expect(context.map((r) => r.status)).toEqual([429, 200]); // C12: paused, then sent once more
      expect(server.emulator.control.effects().filter((e) => e.kind === "domain.renew")).toHaveLength(1);
    });

    it(`G1, G4: SIGKILL while a renew hangs after the server committed; recover() on ${name} settles it, one renewal`, async () => {
      server.emulator.control.addFault({
        method: "POST",
        path: "/domains/{domainUuid}/renew",
        kind: "timeout_after",
        times: 1,
      });
      const bin = runtimeBinary(key);
      const child = spawnLogged(bin, argv(bin, join(dir, "smoke.mjs")), {
        cwd: dir,
        env: { ...process.env, RESELLER_SMOKE_MODE: "crash", RESELLER_SMOKE_DIR: dir, NO_COLOR: "1" },
      });
      const renewed = () => server.emulator.control.effects().filter((e) => e.idempotency_key === "crash-renewal-1");
      for (let i = 0; i < 600 && renewed().length === 0 && child.child.exitCode === null; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(renewed(), child.output()).toHaveLength(1);
      await stopProcess(child.child.pid, child.exited, "SIGKILL");
      const { code, out } = await runWith(key, argv, dir, "recover");
      expect(lastJson(out, name), out).toMatchObject({
        before: expect.stringMatching(/^(recorded|sending)$/),
        after: "completed",
        driver,
      });
      expect(code).toBe(0);
      expect(renewed()).toHaveLength(1); // G4: recovered by asking, never by renewing again
    });
  });
}
