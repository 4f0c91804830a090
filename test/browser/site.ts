/**
 * The built site the browser tests open: `npm run docs` output, rebuilt first when it is missing or
 * older than anything it is built from (guides, site config, spec, public sources, package.json).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const siteDir = join(repoRoot, "docs/.vitepress/dist");

/** Build output and generated pages: not inputs of the build. */
const NOT_INPUTS = [
  "node_modules",
  ".git",
  "dist",
  "test",
  "bench",
  ".tmp",
  "docs/.vitepress/dist",
  "docs/.vitepress/cache",
  "docs/sdk",
  "docs/ru/sdk",
  "docs/cli",
  "docs/ru/cli",
  "docs/public/reference",
  "docs/http",
  "docs/ru/http",
  "docs/changelog.md",
  "docs/ru/changelog.md",
];

function newestInput(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const rel = relative(repoRoot, path);
    if (NOT_INPUTS.includes(rel)) continue;
    if (entry.isDirectory()) newest = Math.max(newest, newestInput(path));
    else if (/\.(md|ts|ya?ml|json)$/.test(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds the site unless a build newer than every input is already there; returns its folder. */
export function ensureSite(): string {
  const marker = join(siteDir, "index.html");
  if (existsSync(marker) && statSync(marker).mtimeMs >= newestInput(repoRoot)) return siteDir;
  const r = spawnSync(process.execPath, ["--import", "tsx", "docs/.vitepress/build.ts"], {
    cwd: repoRoot,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`npm run docs failed:\n${r.stdout}\n${r.stderr}`);
  return siteDir;
}
