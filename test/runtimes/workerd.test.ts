// Cloudflare workerd (npm workerd): the Worker of docs/guides/runtimes.md, verbatim, bundled as a
// user's bundler would, serving on loopback and renewing through the emulator on loopback (C12: a
// 429 before the first answer is paused out inside the Worker too).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Plugin } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatorServer } from "../../emulator/server";
import { ROOT, runtimeBinary } from "./binaries";
import { startSmokeEmulator } from "./smoke";
import { acceptsConnections, freePort, spawnLogged, stopProcess, type Spawned } from "../support/process";
import { build } from "esbuild";

function workerBlock(): string {
  const guide = readFileSync(join(ROOT, "docs/guides/runtimes.md"), "utf8");
  const m = /<!-- worker:begin -->\s*```js\n([\s\S]*?)```\s*<!-- worker:end -->/.exec(guide);
  if (!m) throw new Error("docs/guides/runtimes.md has no worker block");
  return m[1];
}

/** The package's entries, as the published package maps them, from this checkout's source. */
const ENTRIES: Record<string, string> = {
  "reseller-api": "src/index.ts",
  "reseller-api/stores/memory": "stores/memory-journal.ts",
};
const packageFromSource: Plugin = {
  name: "reseller-api-from-source",
  setup(b) {
    b.onResolve({ filter: /^reseller-api(\/.*)?$/ }, (args) =>
      ENTRIES[args.path] ? { path: join(ROOT, ENTRIES[args.path]) } : { errors: [{ text: `no entry ${args.path}` }] },
    );
  },
};

let dir: string;
let server: EmulatorServer;
let workerd: Spawned | undefined;
const DATES = ["2026-11-17", "2024-09-23"] as const;
const ports: Record<string, number> = {};

beforeAll(async () => {
  const bin = runtimeBinary("workerd");
  dir = mkdtempSync(join(tmpdir(), "reseller-workerd-"));
  server = await startSmokeEmulator(dir);
  writeFileSync(join(dir, "worker.js"), workerBlock());
  await build({
    entryPoints: [join(dir, "worker.js")],
    outfile: join(dir, "worker.mjs"),
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    external: ["node:*"],
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "import"],
    plugins: [packageFromSource],
    logLevel: "error",
  });
  // The compatibility date of this workerd release, without nodejs_compat.
  for (const date of DATES) ports[date] = await freePort();
  const token = server.emulator.control.keys().find((k) => k.environment === "test")!.token;
  const service = (date: string) => `(name = "worker-${date}", worker = (
    modules = [ (name = "worker.mjs", esModule = embed "worker.mjs") ],
    compatibilityDate = "${date}",
    bindings = [
      (name = "RESELLER_API_BASE_URL", text = ${JSON.stringify(server.baseUrl)}),
      (name = "RESELLER_API_TOKEN", text = ${JSON.stringify(token)}),
    ],
    globalOutbound = "loopback",
  ))`;
  writeFileSync(
    join(dir, "config.capnp"),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    ${DATES.map(service).join(",\n    ")},
    # Outbound traffic may reach loopback only: the emulator.
    (name = "loopback", network = (allow = ["local"])),
  ],
  sockets = [
    ${DATES.map((d) => `(name = "http-${d}", address = "127.0.0.1:${ports[d]}", http = (), service = "worker-${d}")`).join(",\n    ")},
  ],
);
`,
  );
  workerd = spawnLogged(bin, ["serve", join(dir, "config.capnp"), "--verbose"], { cwd: dir });
  // Ready when it accepts connections (a request would run the Worker, and renew).
  for (const date of DATES) {
    for (let i = 0; i < 300 && !(await acceptsConnections(ports[date])); i++) {
      if (workerd.child.exitCode !== null) throw new Error(`workerd exited:\n${workerd.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}, 120_000);

afterAll(async () => {
  if (workerd) await stopProcess(workerd.child.pid, workerd.exited, "SIGTERM");
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("workerd: the Workers guide's Worker against the emulator on loopback", () => {
  it.each(DATES)(
    "A5, F1, C12: compatibility date %s — the Worker renews (context, list, renew, 202 wait), pausing on a 429 first",
    async (date) => {
      const contexts = () => server.emulator.control.requests().filter((r) => r.path.endsWith("/context"));
      const before = contexts().length;
      server.emulator.control.addFault({
        method: "GET",
        path: "/context",
        kind: "proxy_429_date",
        times: 1,
        retry_after_seconds: 1,
      });
      const res = await fetch(`http://127.0.0.1:${ports[date]}/`);
      const text = await res.text();
      expect(text, workerd?.output()).toMatch(/^[a-z0-9.-]+: renewed$/);
      expect(
        contexts()
          .slice(before)
          .map((r) => r.status),
      ).toEqual([429, 200]);
      expect(server.emulator.control.effects().filter((e) => e.kind === "domain.renew")).toHaveLength(1);
    },
  );
});
