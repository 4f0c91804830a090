/**
 * Client bundle size: what an application that imports only `createResellerClient` ships, built the
 * way a consumer builds it (esbuild, bundle + minify, then gzip), against openapi-fetch alone in the
 * same run. The package's ESM entries are first built from source exactly as tsup.config.ts lists
 * them (code splitting on, dependencies and peers external), so code that reaches the client entry
 * through a shared chunk (emulator, stores) is counted as a consumer would get it. `modules` is the
 * profile: the gzip bytes each source module adds to the client bundle (the bundle gzipped with and
 * without it), largest first. Target: ≤ 15 kB gzip (1 kB = 1 000 bytes).
 * Exported function only — no side effects on import (bench/main.ts runs it).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build, transform } from "esbuild";
import packageJson from "../package.json" with { type: "json" };
import tsupConfig from "../tsup.config";
import { printTable } from "./lib/table";
import { writeResult } from "./lib/results";
import { runWhenDirect } from "./lib/direct";

export interface BundleFigure {
  minBytes: number;
  gzipBytes: number;
}

export interface SizeResult {
  name: "client-size";
  /** Bundled from the package's built entries (what a consumer ships). */
  client: BundleFigure;
  /** Bundled from src/index.ts directly; client − fromSource is what the package's shared chunks add. */
  fromSource: BundleFigure;
  openapiFetch: BundleFigure;
  /** client gzip ÷ openapi-fetch gzip. */
  gzipRatio: number;
  /** Gzip bytes each source module adds to the (source-built) client bundle, largest first. */
  modules: { module: string; gzipBytes: number; minBytes: number }[];
  /** Gzip bytes of the client bundle from modules outside src/ core/ journal/ pacing/ runner/ middleware/ recovery/ generated/ runtime/ and openapi-fetch (emulator, stores…). */
  foreignGzipBytes: number;
  targetGzipBytes: number;
  pass: boolean;
}

const root = fileURLToPath(new URL("../", import.meta.url));
const TARGET_GZIP_BYTES = 15_000;
/** Folders of the client itself; anything else in the client bundle came in by mistake. */
const CLIENT_FOLDERS =
  /^(src|core|journal|pacing|runner|middleware|recovery|generated|runtime)\/|^node_modules\/openapi-fetch\//;

function figure(code: Uint8Array | string): BundleFigure {
  const bytes = typeof code === "string" ? Buffer.from(code) : code;
  return { minBytes: bytes.byteLength, gzipBytes: gzipSync(bytes).byteLength };
}

/** A consumer's bundle of `source` (an ES module importing the package), minified. */
async function consumerBundle(source: string, resolveDir: string): Promise<string> {
  const out = await build({
    stdin: { contents: source, resolveDir, loader: "ts" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "node",
    target: "node20",
    write: false,
    logLevel: "error",
    nodePaths: [join(root, "node_modules")],
  });
  return out.outputFiles[0].text;
}

/** The package's ESM entries as tsup builds them (same entry map, splitting, externals), without types. */
async function buildPackage(outdir: string): Promise<void> {
  const configs = (Array.isArray(tsupConfig) ? tsupConfig : [tsupConfig]) as { entry?: Record<string, string> }[];
  const library = configs.find((c) => c.entry && "index" in c.entry);
  if (!library?.entry) throw new Error("tsup.config.ts has no `index` entry");
  const entryPoints = Object.fromEntries(Object.entries(library.entry).map(([name, file]) => [name, join(root, file)]));
  const external = [...Object.keys(packageJson.dependencies ?? {}), ...Object.keys(packageJson.peerDependencies ?? {})];
  await build({
    entryPoints,
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external,
    logLevel: "error",
  });
  // The package declares itself free of side effects, as the real one does.
  await writeFile(join(outdir, "package.json"), JSON.stringify({ type: "module", sideEffects: false }));
}

/** Gzip bytes each module adds: the minified bundle gzipped with and without that module's code. */
async function moduleProfile(full: BundleFigure): Promise<SizeResult["modules"]> {
  // Unminified whitespace keeps esbuild's `// path` line before each module; identifiers are minified.
  const out = await build({
    stdin: { contents: `export { createResellerClient } from "./src/index.ts";`, resolveDir: root, loader: "ts" },
    bundle: true,
    minifySyntax: true,
    minifyIdentifiers: true,
    format: "esm",
    platform: "node",
    target: "node20",
    write: false,
    logLevel: "error",
  });
  const parts = out.outputFiles[0].text.split(/^(?=\/\/ [\w./@-]+\.m?[jt]s\n)/m);
  const rows: SizeResult["modules"] = [];
  for (let i = 0; i < parts.length; i++) {
    const header = /^\/\/ ([\w./@-]+\.m?[jt]s)\n/.exec(parts[i]);
    if (!header) continue;
    const without = parts.filter((_, j) => j !== i).join("");
    // A module whose removal leaves the rest unparsable is measured by its own size only.
    const rest = await transform(without, { minify: true, format: "esm" }).then(
      (r) => figure(r.code),
      () => null,
    );
    rows.push({
      module: header[1],
      gzipBytes: rest ? full.gzipBytes - rest.gzipBytes : figure(parts[i]).gzipBytes,
      minBytes: rest ? full.minBytes - rest.minBytes : figure(parts[i]).minBytes,
    });
  }
  return rows.sort((a, b) => b.gzipBytes - a.gzipBytes);
}

export async function runSizeBench(): Promise<SizeResult> {
  const dir = await mkdtemp(join(tmpdir(), "reseller-size-"));
  try {
    const dist = join(dir, "dist");
    await buildPackage(dist);
    const client = figure(await consumerBundle(`export { createResellerClient } from "./dist/index.js";`, dir));
    const openapiFetch = figure(await consumerBundle(`export { default as createClient } from "openapi-fetch";`, dir));
    // The same bundle straight from the sources: what the package's chunking adds is the difference.
    const fromSource = figure(await consumerBundle(`export { createResellerClient } from "./src/index.ts";`, root));
    const modules = await moduleProfile(fromSource);
    const foreignGzipBytes = modules
      .filter((m) => !CLIENT_FOLDERS.test(m.module))
      .reduce((sum, m) => sum + m.gzipBytes, 0);
    return {
      name: "client-size",
      client,
      fromSource,
      openapiFetch,
      gzipRatio: client.gzipBytes / openapiFetch.gzipBytes,
      modules,
      foreignGzipBytes,
      targetGzipBytes: TARGET_GZIP_BYTES,
      pass: client.gzipBytes <= TARGET_GZIP_BYTES,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Bytes as kB (1 000 bytes), one decimal. */
export const kB = (bytes: number): string => `${(bytes / 1000).toFixed(1)} kB`;

/** Prints the result and writes bench/results/client-size.json. */
export async function reportSizeBench(result: SizeResult): Promise<string> {
  printTable(
    [
      {
        bundle: "createResellerClient (esbuild min)",
        min_bytes: result.client.minBytes,
        gzip_bytes: result.client.gzipBytes,
      },
      {
        bundle: "the same, bundled from the sources",
        min_bytes: result.fromSource.minBytes,
        gzip_bytes: result.fromSource.gzipBytes,
      },
      {
        bundle: "openapi-fetch alone",
        min_bytes: result.openapiFetch.minBytes,
        gzip_bytes: result.openapiFetch.gzipBytes,
      },
    ],
    {
      title: `client bundle vs openapi-fetch (gzip ratio ${result.gzipRatio.toFixed(2)}; target ≤ ${kB(result.targetGzipBytes)} gzip)`,
    },
  );
  printTable(
    result.modules.slice(0, 12).map((m) => ({ module: m.module, gzip_bytes: m.gzipBytes, min_bytes: m.minBytes })),
    {
      title: `largest modules in the client bundle (gzip bytes each adds; from outside the client: ${result.foreignGzipBytes})`,
    },
  );
  return writeResult("client-size", result);
}

runWhenDirect("size", async () => {
  const result = await runSizeBench();
  process.stderr.write(`wrote ${await reportSizeBench(result)}\n`);
  return result.pass;
});
