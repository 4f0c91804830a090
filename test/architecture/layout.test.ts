/**
 * The folder tree is the architecture: each layer is entered only through its index.ts, and data
 * flows one way (generated → core → journal/pacing → runner → middleware → recovery → src). This test
 * reads every import in the repository and fails on a deep import or an import against the flow.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(__dirname, "../..");

/** What each folder may import (besides itself, node built-ins and npm packages). */
const MAY_IMPORT: Record<string, readonly string[]> = {
  generated: ["runtime"],
  runtime: [],
  core: ["generated", "runtime"],
  journal: ["core", "generated", "runtime"],
  pacing: ["core", "generated", "runtime"],
  runner: ["core", "journal", "pacing", "generated", "runtime"],
  middleware: ["core", "journal", "pacing", "runner", "generated", "runtime"],
  recovery: ["core", "journal", "pacing", "runner", "generated", "runtime"],
  src: ["core", "journal", "pacing", "runner", "middleware", "recovery", "generated", "runtime"],
  stores: ["core", "journal", "pacing", "runtime", "generated"],
  emulator: ["generated", "runtime"],
  // reseller-api/otel sees the client only through its public entry (src/index.ts) and @opentelemetry/api.
  otel: ["src"],
};
/**
 * The source files the package's entries are built from (package.json `exports` → tsup.config.ts):
 * reseller-api, reseller-api/pacing, /emulator, /otel and /stores/*. The benches measure what users
 * get, so they import the package only through these.
 */
const PUBLIC_ENTRIES = new Set([
  "src/index",
  "src/pacing",
  "emulator/public",
  "otel/index",
  "stores/memory-journal",
  "stores/sqlite-journal",
  "stores/pg-journal",
  "stores/redis-window-store",
]);
/** What bench/ may import besides the public entries: itself, test helpers (real Redis, PostgreSQL, recorders), the package's manifests. */
const BENCH_MAY_ALSO = (target: string) =>
  ["bench", "test"].includes(top(target)) || target === "package.json" || target === "tsup.config";

/** Folders whose only way in from outside is index.ts. */
const INDEXED = new Set(["core", "journal", "pacing", "runner", "middleware", "recovery"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (name === "node_modules" || name.startsWith(".") || name === "dist" || name === "fixtures") return [];
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|mts)$/.test(name) ? [full] : [];
  });
}

interface Edge {
  file: string;
  spec: string;
  target: string;
}

function edges(): Edge[] {
  const out: Edge[] = [];
  const folders = [...Object.keys(MAY_IMPORT), "bench", "test", "cli", "otel"];
  for (const folder of folders) {
    let files: string[];
    try {
      files = sourceFiles(join(root, folder));
    } catch {
      continue;
    }
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
        out.push({ file: relative(root, file), spec: m[1], target: relative(root, resolve(dirname(file), m[1])) });
      }
    }
  }
  return out;
}

const top = (path: string) => path.split("/")[0];

describe("layout", () => {
  const all = edges();

  it("finds the imports it checks", () => {
    expect(all.length).toBeGreaterThan(200);
  });

  it("outside a layer, only its index.ts is imported (tests may reach the module they test)", () => {
    const deep = all.filter((e) => {
      const t = top(e.target);
      if (!INDEXED.has(t) || top(e.file) === t || top(e.file) === "test") return false;
      return e.target !== t && e.target !== `${t}/index`;
    });
    expect(deep.map((e) => `${e.file} → ${e.spec}`)).toEqual([]);
  });

  it("otel/ imports the client only through its public entry src/index.ts", () => {
    const otel = all.filter((e) => top(e.file) === "otel" && top(e.target) !== "otel");
    expect(otel.length).toBeGreaterThan(0);
    expect(otel.filter((e) => e.target !== "src/index").map((e) => `${e.file} → ${e.spec}`)).toEqual([]);
  });

  it("bench/ imports the package only through its public entries (the benches measure what users get)", () => {
    const bench = all.filter((e) => top(e.file) === "bench");
    expect(bench.filter((e) => PUBLIC_ENTRIES.has(e.target)).length).toBeGreaterThan(10);
    const internal = bench.filter((e) => !PUBLIC_ENTRIES.has(e.target) && !BENCH_MAY_ALSO(e.target));
    expect(internal.map((e) => `${e.file} → ${e.spec}`)).toEqual([]);
  });

  it("cli/ imports the package only through its public entries (the files the package's exports are built from)", () => {
    const cli = all.filter((e) => top(e.file) === "cli" && top(e.target) !== "cli");
    expect(cli.length).toBeGreaterThan(0);
    expect(cli.filter((e) => !PUBLIC_ENTRIES.has(e.target)).map((e) => `${e.file} → ${e.spec}`)).toEqual([]);
  });

  it("data flows one way: no folder imports a layer it may not", () => {
    const against = all.filter((e) => {
      const from = top(e.file);
      const allowed = MAY_IMPORT[from];
      const to = top(e.target);
      return allowed !== undefined && to !== from && !allowed.includes(to);
    });
    expect(against.map((e) => `${e.file} → ${e.spec}`)).toEqual([]);
  });
});
