/**
 * Bundles the package. `npm run bundle` after `npm run generate`.
 * - dist/index   ← src/index.ts       ESM + CJS, .d.ts + .d.cts  (the client SDK)
 * - dist/pacing  ← src/pacing.ts      the advanced pacing entry (reseller-api/pacing)
 * - dist/emulator← emulator/public.ts ESM + CJS, .d.ts + .d.cts  (reseller-api/emulator, with the server)
 * - dist/otel    ← otel/index.ts      OpenTelemetry spans and metrics (reseller-api/otel; @opentelemetry/api is an optional peer)
 * - dist/stores/{memory,sqlite,postgres,redis} ← stores/*  (reseller-api/stores/…; optional peers)
 * - dist/cli     ← emulator/cli.ts    ESM only, with a shebang    (bin: reseller-emulator)
 * - dist/reseller← cli/main.ts        ESM only, with a shebang    (bin: reseller, the operator CLI)
 * - dist/{cli,reseller}.bundled.json  what each bin bundles (name, version, licence), from esbuild's metafile
 * `dependencies` and `peerDependencies` stay external; dev-only runtime code the emulator uses
 * (e.g. hono) is bundled, so installing the package never needs devDependencies.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, sep } from "node:path";
import { defineConfig, type Options } from "tsup";

/**
 * The operator CLI imports the SDK through the package's public entries only; in the bundle those
 * imports point at the built entry files next to it (one copy of the SDK, one class per error, and the
 * optional store drivers load only when the chosen journal needs them).
 */
const SDK_ENTRIES: Record<string, string> = {
  "../src/index": "./index.js",
  "../emulator/public": "./emulator.js",
  "../stores/memory-journal": "./stores/memory.js",
  "../stores/sqlite-journal": "./stores/sqlite.js",
  "../stores/pg-journal": "./stores/postgres.js",
};
const sdkAsExternal: NonNullable<Options["esbuildPlugins"]>[number] = {
  name: "sdk-entries-external",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/(src|emulator|stores)\// }, (args) => {
      const target = SDK_ENTRIES[args.path];
      if (!args.importer.includes("/cli/")) return undefined;
      if (!target)
        return {
          errors: [
            {
              text: `cli/ may import only the public entries (${Object.keys(SDK_ENTRIES).join(", ")}), not ${args.path}`,
            },
          ],
        };
      return { path: target, external: true };
    });
  },
};

/**
 * esbuild marks where each source module starts with a `// core/errors.ts` line; those name files
 * that are not in the package, so they are dropped after the build (there are no source maps to shift).
 */
function stripModuleMarkers(only: (file: string) => boolean, dir = "dist"): void {
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (statSync(file).isDirectory()) stripModuleMarkers(only, file);
    else if (/\.(?:js|cjs)$/.test(name) && only(file)) {
      const text = readFileSync(file, "utf8");
      const stripped = text
        .replace(/^\/\/ (?:[\w-]+\/)+[\w.-]+\.ts\n/gm, "")
        .replace(/;\/\/ (?:[\w-]+\/)+[\w.-]+\.ts$/gm, ";");
      if (stripped !== text) writeFileSync(file, stripped);
    }
  }
}

/**
 * Supply chain: what a bin bundles is invisible to the user's `npm audit` (it is not in their
 * lockfile), so each bin gets a machine-readable list next to it — `dist/<bin>.bundled.json`, every
 * npm package whose code esbuild put into the bundle, with its version and licence — written from
 * esbuild's own metafile at build time, so it cannot drift from what ships.
 */
function bundledPackagesList(bin: string, file: string): NonNullable<Options["esbuildPlugins"]>[number] {
  return {
    name: "bundled-packages-list",
    setup(build) {
      build.initialOptions.metafile = true;
      build.onEnd((result) => {
        if (!result.metafile) return;
        const packages = new Map<string, { name: string; version: string; license: string; repository?: string }>();
        for (const input of Object.keys(result.metafile.inputs)) {
          const parts = input.split(/[\\/]/);
          const at = parts.lastIndexOf("node_modules");
          if (at < 0) continue;
          const name = parts[at + 1]?.startsWith("@") ? `${parts[at + 1]}/${parts[at + 2]}` : parts[at + 1];
          if (!name) continue;
          const dir = [...parts.slice(0, at + 1), ...name.split("/")].join(sep);
          const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
            version: string;
            license?: string | { type?: string };
            repository?: string | { url?: string };
          };
          const license =
            typeof manifest.license === "string" ? manifest.license : (manifest.license?.type ?? "UNKNOWN");
          const repository = typeof manifest.repository === "string" ? manifest.repository : manifest.repository?.url;
          // Two copies of one version (nested node_modules) are one entry.
          packages.set(`${name}@${manifest.version}`, {
            name,
            version: manifest.version,
            license,
            ...(repository ? { repository } : {}),
          });
        }
        const list = [...packages.values()].sort(
          (a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version),
        );
        const out = build.initialOptions.outdir ?? "dist";
        if (!existsSync(out)) mkdirSync(out, { recursive: true });
        writeFileSync(
          join(out, file),
          JSON.stringify({ bin, format: "reseller-api bundled packages v1", packages: list }, null, 2) + "\n",
        );
      });
    },
  };
}

const shared = {
  outDir: "dist",
  platform: "node",
  target: "node20",
  tsconfig: "tsconfig.json",
  // The output is not minified, so stack traces already read like the source; maps would double the package.
  sourcemap: false,
} as const;

export default defineConfig([
  {
    ...shared,
    entry: {
      index: "src/index.ts",
      pacing: "src/pacing.ts",
      emulator: "emulator/public.ts",
      otel: "otel/index.ts",
      // One entry per store so each optional peer (better-sqlite3, pg, ioredis) stays optional.
      "stores/memory": "stores/memory-journal.ts",
      "stores/sqlite": "stores/sqlite-journal.ts",
      "stores/postgres": "stores/pg-journal.ts",
      "stores/redis": "stores/redis-window-store.ts",
    },
    format: ["esm", "cjs"],
    // Shared chunks: an error class (DomainLockedError…) must be one class across entries, or
    // `instanceof` fails when a store and the client come from different bundles.
    splitting: true,
    // tsup emits index.d.ts for ESM and index.d.cts for CJS ("type": "module"), as package.json exports expect.
    dts: true,
    // import.meta.url in the emulator must keep working in the CJS build.
    shims: true,
    // Both configs run in parallel: this one cleans dist/ but leaves the CLI build's files alone.
    clean: ["!cli.js", "!reseller.js", "!*.bundled.json"],
    // The configs build in parallel: each strips only its own files.
    onSuccess: async () =>
      stripModuleMarkers((file) => ![join("dist", "cli.js"), join("dist", "reseller.js")].includes(file)),
  },
  {
    ...shared,
    entry: { cli: "emulator/cli.ts" },
    format: ["esm"],
    dts: false,
    clean: false,
    splitting: false,
    banner: { js: "#!/usr/bin/env node" },
    esbuildPlugins: [bundledPackagesList("reseller-emulator", "cli.bundled.json")],
    onSuccess: async () => stripModuleMarkers((file) => file === join("dist", "cli.js")),
  },
  {
    ...shared,
    entry: { reseller: "cli/main.ts" },
    format: ["esm"],
    dts: false,
    clean: false,
    splitting: false,
    // commander and cli-table3 are CommonJS and require() Node built-ins; an ESM bundle needs a require.
    banner: {
      js: '#!/usr/bin/env node\nimport { createRequire as __cliRequire } from "node:module";\nconst require = __cliRequire(import.meta.url);',
    },
    // The CLI's own libraries are devDependencies bundled here, so SDK users never install them.
    noExternal: ["commander", "cli-table3", "csv-parse", "log-update"],
    esbuildPlugins: [sdkAsExternal, bundledPackagesList("reseller", "reseller.bundled.json")],
    onSuccess: async () => stripModuleMarkers((file) => file === join("dist", "reseller.js")),
  },
]);
