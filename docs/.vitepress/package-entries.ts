/**
 * The package's public surface, read from package.json `exports`/`bin` and the tsup entries, so the
 * SDK reference, the CLI reference and the guide examples follow the package without a list of their own.
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import tsupConfig from "../../tsup.config";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export interface PublicEntry {
  /** The import specifier users write: `reseller-api`, `reseller-api/stores/sqlite`. */
  specifier: string;
  /** The TypeScript source, relative to the repository root. */
  source: string;
}

export interface BinEntry {
  /** The command users type: `reseller-emulator`. */
  name: string;
  source: string;
}

interface PackageJson {
  name: string;
  exports: Record<string, string | { import?: { default?: string } }>;
  bin?: Record<string, string>;
}

function readPackageJson(): PackageJson {
  return JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as PackageJson;
}

/** tsup output name (`stores/sqlite`) → source file, over every tsup config. */
function tsupEntries(): Map<string, string> {
  const configs = Array.isArray(tsupConfig) ? tsupConfig : [tsupConfig];
  const out = new Map<string, string>();
  for (const config of configs as { entry?: unknown }[]) {
    const entry = config.entry;
    if (entry && typeof entry === "object" && !Array.isArray(entry)) {
      for (const [name, source] of Object.entries(entry as Record<string, string>)) out.set(name, source);
    }
  }
  return out;
}

/** `./dist/stores/sqlite.js` → `stores/sqlite`. */
function distName(file: string): string {
  return file.replace(/^\.\/dist\//, "").replace(/\.(c|m)?js$/, "");
}

function sourceOf(entries: Map<string, string>, file: string, what: string): string {
  const source = entries.get(distName(file));
  if (!source) throw new Error(`${what} points at ${file}, but no tsup entry builds it: add it to tsup.config.ts.`);
  return source;
}

export function publicEntries(): PublicEntry[] {
  const pkg = readPackageJson();
  const entries = tsupEntries();
  const out: PublicEntry[] = [];
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const file = typeof target === "string" ? target : target.import?.default;
    if (!file?.startsWith("./dist/")) continue; // ./package.json
    const specifier = subpath === "." ? pkg.name : `${pkg.name}/${subpath.replace(/^\.\//, "")}`;
    out.push({ specifier, source: sourceOf(entries, file, `exports["${subpath}"]`) });
  }
  return out;
}

export function binEntries(): BinEntry[] {
  const pkg = readPackageJson();
  const entries = tsupEntries();
  return Object.entries(pkg.bin ?? {}).map(([name, file]) => ({
    name,
    source: sourceOf(entries, file, `bin["${name}"]`),
  }));
}
