/**
 * What a built site was made from: one hash over the content of every file `npm run docs` reads (guides,
 * site config and theme, spec, generated client, public sources, package.json and the lock file) and
 * the settings that change its output. `build.ts` writes it beside the site it built; the browser tests
 * reuse that site while the hash still matches, whatever the files' timestamps say (a fresh clone,
 * a regenerated file with the same bytes), and rebuild it when any input's content differs.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { repoRoot } from "./package-entries";

/** Where a build records the hash of its inputs, inside the site folder it wrote. */
export const INPUTS_STAMP = ".inputs-sha256";

/** Build output, tooling and tests, and the pages the build generates: not inputs of the build. */
const NOT_INPUTS = new Set([
  "node_modules",
  ".git",
  ".tools",
  ".tmp",
  "coverage",
  "dist",
  "test",
  "bench",
  "docs/.vitepress/dist",
  "docs/.vitepress/cache",
  "docs/sdk",
  "docs/ru/sdk",
  "docs/cli",
  "docs/ru/cli",
  "docs/http",
  "docs/ru/http",
  "docs/public/reference",
  "docs/changelog.md",
  "docs/ru/changelog.md",
]);

const INPUT_FILE = /\.(md|ts|mts|vue|css|ya?ml|json|svg)$/;

function inputFiles(dir: string, out: string[]): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const rel = relative(repoRoot, path);
    if (NOT_INPUTS.has(rel)) continue;
    if (entry.isDirectory()) inputFiles(path, out);
    else if (entry.isFile() && INPUT_FILE.test(entry.name)) out.push(rel);
  }
  return out;
}

/** The hash of the build's inputs as they are now (paths, bytes, and the site's base path). */
export function inputsHash(): string {
  const hash = createHash("sha256");
  hash.update(`DOCS_BASE=${process.env.DOCS_BASE ?? "/"}\0`);
  for (const rel of inputFiles(repoRoot, []).sort()) {
    hash.update(`${rel}\0`);
    hash.update(readFileSync(join(repoRoot, rel)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

/** The hash a build of `outDir` recorded, or undefined when there is no finished build there. */
export function builtInputsHash(outDir: string): string | undefined {
  const stamp = join(outDir, INPUTS_STAMP);
  return existsSync(stamp) ? readFileSync(stamp, "utf8").trim() : undefined;
}
