// The first hour of a package user, run for real: `npm pack`, install the tarball into an empty
// project, type-check the README quickstart with TypeScript 5.9 and the newest TypeScript (strict,
// nodenext and bundler), run it against `npx reseller-emulator`, run the CommonJS sample, and check
// that killing npx frees the emulator's port and that a missing driver names the package to install.
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { dirname, join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, background, packAndInstall, readmeBlock, sh, waitFor, type Background, type Installed } from "./support";
import { acceptsConnections } from "../support/process";

const TSC = {
  "5.9": join(ROOT, "node_modules", "typescript", "bin", "tsc"),
  latest: join(ROOT, "node_modules", "typescript-latest", "bin", "tsc"),
};

// The versions users get from npm today (the devDependencies typescript and typescript-latest).
const TS_VERSION = { "5.9": "5.9.3", latest: "7.0.2" } as const;

let app: Installed;

/** Makes `typescript` (and `npx tsc`) in the app this checkout's copy of that version, as `npm install typescript` would. */
function useTypeScript(version: keyof typeof TSC): void {
  const pkg = join(app.dir, "node_modules", "typescript");
  const bin = join(app.dir, "node_modules", ".bin", "tsc");
  rmSync(pkg, { force: true, recursive: true });
  rmSync(bin, { force: true });
  mkdirSync(dirname(bin), { recursive: true });
  symlinkSync(dirname(dirname(TSC[version])), pkg, "dir");
  symlinkSync(join("..", "typescript", "bin", "tsc"), bin);
}
const started: Background[] = [];

beforeAll(async () => {
  app = await packAndInstall();
  writeFileSync(join(app.dir, "renew.ts"), readmeBlock("quickstart"));
  writeFileSync(join(app.dir, "run.ts"), readmeBlock("quickstart-run"));
  writeFileSync(join(app.dir, "check.cjs"), readmeBlock("quickstart-cjs"));
  // Every published entry, so each .d.ts is compiled without skipLibCheck.
  writeFileSync(
    join(app.dir, "entries.ts"),
    [
      'import * as client from "reseller-api";',
      'import * as pacing from "reseller-api/pacing";',
      'import * as emulator from "reseller-api/emulator";',
      'import * as memory from "reseller-api/stores/memory";',
      'import * as sqlite from "reseller-api/stores/sqlite";',
      'import * as postgres from "reseller-api/stores/postgres";',
      'import * as redis from "reseller-api/stores/redis";',
      'import * as otel from "reseller-api/otel";',
      "export const all = [client, pacing, emulator, memory, sqlite, postgres, redis, otel];",
      'export const db: sqlite.SqliteDatabase = sqlite.createSqliteJournal({ filename: ":memory:" }).database;',
      "export const defaults: number = client.DEFAULT_PACING.windowMs;",
      // exactOptionalPropertyTypes (the bundler variant): an option left out by a condition is `undefined`.
      "export const fromConfig = (fast: boolean, log?: client.EventHandler) =>",
      '  client.createResellerClient({ baseUrl: "http://127.0.0.1:1/api/reseller/v1", token: "rsl_test_x",',
      "    pacing: fast ? { maxConcurrency: 8, windowMs: undefined } : undefined, onEvent: log ? log : undefined,",
      "    journal: fast ? undefined : memory.createMemoryJournal({ clock: undefined }), fleet: undefined });",
      "export const telemetry = (traces?: boolean) => otel.otelTelemetry({ traces, metrics: undefined });",
      "",
    ].join("\n"),
  );
}, 600_000);

afterAll(async () => {
  for (const b of started) if (b.child.exitCode === null) b.child.kill("SIGKILL");
});

function portOf(file: string): number {
  return Number(new URL(JSON.parse(readFileSync(file, "utf8")).baseUrl).port);
}

async function startEmulator(file: string): Promise<{ npx: Background; port: number }> {
  const npx = background("npx", ["--no-install", "reseller-emulator", "--print-to", file], app.dir);
  started.push(npx);
  await waitFor(`the emulator to write ${file} (${npx.output()})`, () =>
    existsSync(join(app.dir, file)) ? true : undefined,
  );
  return { npx, port: portOf(join(app.dir, file)) };
}

describe("the packed package, installed into an empty project", () => {
  it("ships dist, the spec, docs/contract.md and a README whose relative links all resolve inside the package", () => {
    for (const f of [
      "README.md",
      "docs/contract.md",
      "spec/openapi.yaml",
      "dist/index.js",
      "dist/index.cjs",
      "dist/cli.js",
    ]) {
      expect(app.files).toContain(f);
    }
    const readme = readFileSync(join(app.dir, "node_modules/reseller-api/README.md"), "utf8");
    const links = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
      .map((m) => m[1])
      .filter((l) => !/^[a-z]+:/.test(l));
    expect(links.length).toBeGreaterThan(0);
    expect(links.filter((l) => !app.files.includes(l))).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(app.dir, "node_modules/reseller-api/package.json"), "utf8"));
    expect(pkg.repository?.url).toMatch(/^git\+https:\/\//);
    expect(pkg.homepage).toMatch(/^https:\/\//);
    expect(pkg.bugs?.url).toMatch(/^https:\/\//);
  });

  it("J2: no published comment or message points at a repository file, the contract source or a seed", () => {
    const dist = join(app.dir, "node_modules/reseller-api/dist");
    const files = (function walk(dir: string): string[] {
      return readdirSync(dir).flatMap((n) =>
        statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)],
      );
    })(dist);
    const repoPath =
      /\b(?:src|core|journal|pacing|runner|middleware|recovery|stores|emulator|generator|generated|bench|test|runtime)\/[\w./-]+\.(?:ts|md)\b/;
    const bad = /seed \d{3}|\bseeds?\/|shared\/contract|notes\/shapes|FROZEN\b/;
    // A process note ("owner: helper") in a comment — not a lease's `owner:` field.
    const processNote = /(?:\/\/|^\s*\*).*\bowner: (?:the |a )?(?:helper|lead|maintainers?|team)\b/i;
    const hits: string[] = [];
    for (const file of files) {
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (repoPath.test(line) || bad.test(line) || processNote.test(line))
            hits.push(`${relative(dist, file)}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(hits).toEqual([]);
  });

  for (const [version, tsc] of Object.entries(TSC)) {
    for (const resolution of ["nodenext", "bundler"] as const) {
      // The strictest app with bundler resolution: exactOptionalPropertyTypes (it passes `outcome.commandId`,
      // string | undefined, on) and noUncheckedIndexedAccess (it reads `page.data.data[0]`).
      it(`the quickstart and every entry type-check with TypeScript ${version}, strict${resolution === "bundler" ? " + exactOptionalPropertyTypes + noUncheckedIndexedAccess" : ""}, ${resolution} resolution, no @types of optional peers`, async () => {
        const module = resolution === "nodenext" ? "nodenext" : "preserve";
        const config = `tsconfig.${version}.${resolution}.json`;
        writeFileSync(
          join(app.dir, config),
          JSON.stringify({
            compilerOptions: {
              strict: true,
              exactOptionalPropertyTypes: resolution === "bundler",
              noUncheckedIndexedAccess: resolution === "bundler",
              module,
              moduleResolution: resolution,
              target: "es2022",
              noEmit: true,
              skipLibCheck: false,
              types: ["node"],
            },
            files: ["renew.ts", "run.ts", "entries.ts"],
          }),
        );
        expect(existsSync(join(app.dir, "node_modules/@types/better-sqlite3"))).toBe(false);
        expect(existsSync(join(app.dir, "node_modules/@types/pg"))).toBe(false);
        const out = await sh("node", [tsc, "-p", config], app.dir);
        expect(out.stdout + out.stderr).toBe("");
      }, 240_000); // a full type-check of every entry: minutes on a busy 2-core machine
    }
  }

  // The README's compile-and-run line, byte for byte, in a shell, with `typescript` in the project
  // being each version a user can get from npm (its install line is replaced by linking that version).
  for (const version of ["5.9", "latest"] as const) {
    it(`A5, G1, F1: the README's exact compile line works with TypeScript ${TS_VERSION[version]} (no tsconfig) and prints \`renewed\` against \`npx reseller-emulator\``, async () => {
      if (!existsSync(join(app.dir, "emulator.json"))) await startEmulator("emulator.json");
      const [install, compile] = readmeBlock("quickstart-compile").trim().split("\n");
      expect(install).toBe("npm install --save-dev typescript @types/node");
      useTypeScript(version);
      expect(existsSync(join(app.dir, "tsconfig.json"))).toBe(false);
      const tsc = (await sh("npx", ["--no-install", "tsc", "--version"], app.dir)).stdout.trim();
      expect(tsc).toBe(`Version ${TS_VERSION[version]}`);
      rmSync(join(app.dir, "run.js"), { force: true });
      const out = await sh("bash", ["-c", compile], app.dir);
      expect(out.stdout.trim()).toMatch(/^[a-z0-9.-]+: renewed$/);
      expect(existsSync(join(app.dir, "commands.sqlite"))).toBe(true); // G1: the journal the quickstart names
    }, 240_000);
  }

  it("the CommonJS sample loads the package with require and gets a succeeded outcome", async () => {
    if (!existsSync(join(app.dir, "emulator.json"))) await startEmulator("emulator.json");
    const out = await sh("node", ["check.cjs"], app.dir);
    expect(out.stdout.trim()).toBe("context: succeeded");
  });

  it.each(["SIGTERM", "SIGKILL"] as const)(
    "killing the npx process (%s) stops the emulator and frees its port",
    async (signal) => {
      const { npx, port } = await startEmulator(`emulator-${signal}.json`);
      expect(await acceptsConnections(port)).toBe(true);
      npx.child.kill(signal);
      await npx.exited;
      await waitFor(
        `port ${port} to be freed after ${signal} to npx`,
        async () => ((await acceptsConnections(port)) ? undefined : true),
        15_000,
      );
    },
  );

  it("a missing optional driver (pg) is a MissingDependencyError naming `npm install pg`; nothing is sent", async () => {
    let connections = 0;
    const server: Server = createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    try {
      writeFileSync(
        join(app.dir, "pg.mjs"),
        `import { createPgJournal } from "reseller-api/stores/postgres";
try {
  await createPgJournal({ connectionString: "postgres://u@127.0.0.1:${port}/db" });
  console.log("created");
} catch (e) {
  console.log(JSON.stringify({ name: e.name, code: e.code, packageName: e.packageName, message: e.message }));
}
`,
      );
      const out = JSON.parse((await sh("node", ["pg.mjs"], app.dir)).stdout);
      expect(out).toEqual({
        name: "MissingDependencyError",
        code: "missing_dependency",
        packageName: "pg",
        message:
          'reseller-api/stores/postgres needs the package "pg", which is not installed (it is an optional peer ' +
          "dependency of reseller-api). Install it: npm install pg",
      });
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });
});
