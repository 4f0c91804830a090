/**
 * The built site the browser tests open: `npm run docs` output, reused while the hash of its inputs
 * that the build recorded matches the inputs as they are now (set-up's `npm run build` has just made
 * it), rebuilt first otherwise.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { builtInputsHash, inputsHash } from "../../docs/.vitepress/inputs-hash";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const siteDir = join(repoRoot, "docs/.vitepress/dist");

/** The site folder, and whether it had to be built for this run. */
export function ensureSite(): { dir: string; built: boolean } {
  if (builtInputsHash(siteDir) === inputsHash()) return { dir: siteDir, built: false };
  const r = spawnSync(process.execPath, ["--import", "tsx", "docs/.vitepress/build.ts"], {
    cwd: repoRoot,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`npm run docs failed:\n${r.stdout}\n${r.stderr}`);
  return { dir: siteDir, built: true };
}
