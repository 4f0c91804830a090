/**
 * Client bundle size: what an application that imports only `createResellerClient` ships, built the
 * way a consumer builds it (esbuild, bundle + minify, then gzip), against openapi-fetch alone in the
 * same run. The package's ESM entries are first built from source exactly as tsup.config.ts lists
 * them (code splitting on, dependencies and peers external), so code that reaches the client entry
 * through a shared chunk (emulator, stores) is counted as a consumer would get it. The consumer bundle
 * is split too (as application bundlers do): `client` counts every file that loads with the import —
 * the entry and the chunks it imports statically, each gzipped on its own and summed — and the
 * chunks only a dynamic import() reaches (recover(), operations.wait, the logger) are reported
 * separately as `lazy`, not counted in `client`. `modules` is the profile: the gzip bytes each source
 * module adds to the files that load with the entry (each file gzipped with and without it), largest
 * first. Target (for `client`): ≤ 15 kB gzip (1 kB = 1 000 bytes).
 * Exported function only — no side effects on import (bench/main.ts runs it).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build, transform, type Metafile } from "esbuild";
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
  /**
   * What loads when an application imports createResellerClient, bundled from the package's built
   * entries (what a consumer ships): the entry file and every chunk it imports statically, each
   * gzipped on its own and summed. This is the figure the target applies to.
   */
  client: BundleFigure;
  /** Files in `client`. */
  entryFiles: number;
  /** Gzip bytes of the chunks loaded only on first use (through import()), summed; not in `client`. */
  lazyGzipBytes: number;
  /** Those chunks (bundled from the sources), each with the source modules it holds. */
  lazy: (BundleFigure & { modules: string[] })[];
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

/**
 * A consumer's bundle of `source` (an ES module importing the package), minified, with code
 * splitting on as an application bundler does it: `entry` is every file that loads when the module is
 * imported (the entry and the chunks it imports statically); `lazy` is every chunk reached only
 * through a dynamic `import()` (operations.wait, recover(), the logger), loaded on first use.
 */
async function consumerBundle(
  source: string,
  resolveDir: string,
  minify: { minify: true } | { minifySyntax: true; minifyIdentifiers: true } = { minify: true },
): Promise<SplitBundle> {
  const outdir = await mkdtemp(join(tmpdir(), "reseller-consumer-"));
  try {
    const entry = join(resolveDir, `.size-entry-${process.pid}.ts`);
    await writeFile(entry, source);
    try {
      const out = await build({
        entryPoints: { app: entry },
        outdir,
        bundle: true,
        splitting: true,
        ...minify,
        format: "esm",
        platform: "node",
        target: "node20",
        write: false,
        metafile: true,
        logLevel: "error",
        nodePaths: [join(root, "node_modules")],
      });
      return splitOf(out);
    } finally {
      await rm(entry, { force: true });
    }
  } finally {
    await rm(outdir, { recursive: true, force: true });
  }
}

export interface SplitBundle {
  /** Files that load with the entry, in load order. */
  entry: { file: string; text: string }[];
  /** Chunks loaded only through import(), with the input files each holds. */
  lazy: { file: string; text: string; inputs: string[] }[];
}

/** Splits the output files into what loads statically from the entry and what only import() reaches. */
function splitOf(out: { outputFiles: { path: string; text: string }[]; metafile: Metafile }): SplitBundle {
  const outputs = out.metafile.outputs;
  // Metafile paths are relative to the working directory; output files carry absolute paths.
  const byPath = new Map(out.outputFiles.map((f) => [f.path, f.text]));
  const texts = new Map(Object.keys(outputs).map((k) => [k, byPath.get(resolve(k)) ?? ""]));
  const start = Object.keys(outputs).find((k) => outputs[k].entryPoint !== undefined);
  if (!start) throw new Error("esbuild reported no entry output");
  const statics: string[] = [];
  const visit = (file: string) => {
    if (statics.includes(file)) return;
    statics.push(file);
    for (const i of outputs[file].imports) if (i.kind === "import-statement" && outputs[i.path]) visit(i.path);
  };
  visit(start);
  const files = [...texts.keys()].filter((f) => f.endsWith(".js"));
  return {
    entry: statics.map((file) => ({ file, text: texts.get(file) ?? "" })),
    lazy: files
      .filter((f) => !statics.includes(f))
      .map((file) => ({ file, text: texts.get(file) ?? "", inputs: Object.keys(outputs[file].inputs) })),
  };
}

/** Gzip of each file on its own, summed: each is a separate download or read. */
function filesFigure(files: { text: string }[]): BundleFigure {
  return files.reduce(
    (sum, f) => {
      const one = figure(f.text);
      return { minBytes: sum.minBytes + one.minBytes, gzipBytes: sum.gzipBytes + one.gzipBytes };
    },
    { minBytes: 0, gzipBytes: 0 },
  );
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

/** Gzip bytes each module adds to the entry: its files gzipped with and without that module's code. */
async function moduleProfile(): Promise<SizeResult["modules"]> {
  // Unminified whitespace keeps esbuild's `// path` line before each module; identifiers are minified.
  const bundle = await consumerBundle(`export { createResellerClient } from "./src/index.ts";`, root, {
    minifySyntax: true,
    minifyIdentifiers: true,
  });
  const minified = async (code: string) => transform(code, { minify: true, format: "esm" }).then((r) => figure(r.code));
  const rows: SizeResult["modules"] = [];
  // Per file (the entry and each statically imported chunk): a module changes only its own file's gzip.
  for (const file of bundle.entry) {
    const full = await minified(file.text);
    const parts = file.text.split(/^(?=\/\/ [\w./@-]+\.m?[jt]s\n)/m);
    for (let i = 0; i < parts.length; i++) {
      const header = /^\/\/ ([\w./@-]+\.m?[jt]s)\n/.exec(parts[i]);
      if (!header) continue;
      const without = parts.filter((_, j) => j !== i).join("");
      // A module whose removal leaves the rest unparsable is measured by its own size only.
      const rest = await minified(without).catch(() => null);
      rows.push({
        module: header[1],
        gzipBytes: rest ? full.gzipBytes - rest.gzipBytes : figure(parts[i]).gzipBytes,
        minBytes: rest ? full.minBytes - rest.minBytes : figure(parts[i]).minBytes,
      });
    }
  }
  return rows.sort((a, b) => b.gzipBytes - a.gzipBytes);
}

export async function runSizeBench(): Promise<SizeResult> {
  const dir = await mkdtemp(join(tmpdir(), "reseller-size-"));
  try {
    const dist = join(dir, "dist");
    await buildPackage(dist);
    const built = await consumerBundle(`export { createResellerClient } from "./dist/index.js";`, dir);
    const openapiFetch = filesFigure(
      (await consumerBundle(`export { default as createClient } from "openapi-fetch";`, dir)).entry,
    );
    // The same bundle straight from the sources: what the package's chunking adds is the difference.
    const sourceBuilt = await consumerBundle(`export { createResellerClient } from "./src/index.ts";`, root);
    const fromSource = filesFigure(sourceBuilt.entry);
    const modules = await moduleProfile();
    const client = filesFigure(built.entry);
    const foreignGzipBytes = modules
      .filter((m) => !CLIENT_FOLDERS.test(m.module))
      .reduce((sum, m) => sum + m.gzipBytes, 0);
    return {
      name: "client-size",
      client,
      entryFiles: built.entry.length,
      lazyGzipBytes: filesFigure(built.lazy).gzipBytes,
      // Named from the source-built bundle: its inputs are source modules, not the package's chunks.
      lazy: sourceBuilt.lazy.map((f) => ({
        modules: f.inputs.map((i) => relative(root, resolve(i))),
        ...figure(f.text),
      })),
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
        bundle: `createResellerClient (esbuild min, splitting; ${result.entryFiles} file(s) that load with it)`,
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
    result.lazy.map((c) => ({ lazy_chunk: c.modules.join(" "), min_bytes: c.minBytes, gzip_bytes: c.gzipBytes })),
    {
      title: `loaded on first use through import(), not counted above (built from the package: ${result.lazyGzipBytes} gzip bytes in all)`,
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
