/**
 * Bundles the package. `npm run bundle` after `npm run generate`.
 * - dist/index   ← src/index.ts       ESM + CJS, .d.ts + .d.cts  (the client SDK)
 * - dist/pacing  ← src/pacing.ts      the advanced pacing entry (reseller-api/pacing)
 * - dist/emulator← emulator/public.ts ESM + CJS, .d.ts + .d.cts  (reseller-api/emulator, with the server)
 * - dist/otel    ← otel/index.ts      OpenTelemetry spans and metrics (reseller-api/otel; @opentelemetry/api is an optional peer)
 * - dist/stores/{memory,sqlite,postgres,redis} ← stores/*  (reseller-api/stores/…; optional peers)
 * - dist/cli     ← emulator/cli.ts    ESM only, with a shebang    (bin: reseller-emulator)
 * `dependencies` and `peerDependencies` stay external; dev-only runtime code the emulator uses
 * (e.g. hono) is bundled, so installing the package never needs devDependencies.
 */
import { defineConfig } from "tsup";

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
    clean: ["!cli.js"],
  },
  {
    ...shared,
    entry: { cli: "emulator/cli.ts" },
    format: ["esm"],
    dts: false,
    clean: false,
    splitting: false,
    banner: { js: "#!/usr/bin/env node" },
  },
]);
