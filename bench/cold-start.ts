// Cold start (issue: keep the lead over general-purpose SDKs): a fresh Node process imports the
// package and creates a client, beside openapi-fetch's import, openai-node's and stripe-node's
// import + construction, all measured in child processes in the same run, interleaved, median of N.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { percentile } from "./lib/stats";

const root = join(import.meta.dirname, "..");
const TOKEN = `rsl_test_${"A".repeat(24)}.${"b".repeat(64)}`;

const SUBJECTS: Record<string, string> = {
  "reseller-api": `const m = await import(${JSON.stringify(join(root, "dist/index.js"))}); m.createResellerClient({ baseUrl: "https://reseller.example.kz/api/reseller/v1", token: ${JSON.stringify(TOKEN)} });`,
  "openapi-fetch": `const m = await import("openapi-fetch"); m.default({ baseUrl: "https://reseller.example.kz" });`,
  openai: `const { default: OpenAI } = await import("openai"); new OpenAI({ apiKey: "sk-test" });`,
  stripe: `const { default: Stripe } = await import("stripe"); new Stripe("sk_test_x");`,
};

function once(code: string): number {
  const script = `const t0 = performance.now(); ${code} process.stdout.write(String(performance.now() - t0));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" });
  return Number(out);
}

export interface ColdStartResult {
  medianMs: Record<string, number>;
  /** What importing the package's entry loads before any call: module files and their bytes. */
  entryFiles: number;
  entryBytes: number;
  openapiFetchBytes: number;
  ratio: number;
  runs: number;
  pass: boolean;
}

/** The files a static import of `file` loads (its relative imports, transitively) and their bytes. */
function staticGraph(file: string): { files: number; bytes: number } {
  const seen = new Set<string>();
  const visit = (f: string) => {
    if (seen.has(f)) return;
    seen.add(f);
    const text = readFileSync(f, "utf8");
    for (const m of text.matchAll(
      /^(?:import|export)\b[^;]*?from\s*"(\.{1,2}\/[^"]+)"|^import\s*"(\.{1,2}\/[^"]+)"/gm,
    )) {
      visit(join(dirname(f), m[1] ?? m[2]));
    }
  };
  visit(file);
  let bytes = 0;
  for (const f of seen) bytes += statSync(f).size;
  return { files: seen.size, bytes };
}

export function runColdStart(runs = 21): ColdStartResult {
  if (!existsSync(join(root, "dist/index.js"))) throw new Error("dist/ is missing: run `npm run bundle` first.");
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(SUBJECTS).map((k) => [k, []]));
  for (const code of Object.values(SUBJECTS)) once(code); // warm the file cache for every subject
  for (let i = 0; i < runs; i++) for (const [name, code] of Object.entries(SUBJECTS)) samples[name].push(once(code));
  const medianMs = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, percentile(v, 50)]));
  const ratio = medianMs["reseller-api"] / medianMs["openapi-fetch"];
  const entry = staticGraph(join(root, "dist/index.js"));
  const openapiFetch = staticGraph(join(root, "node_modules/openapi-fetch/dist/index.mjs"));
  return {
    medianMs,
    entryFiles: entry.files,
    entryBytes: entry.bytes,
    openapiFetchBytes: openapiFetch.bytes,
    ratio,
    runs,
    pass: ratio <= 1.5,
  };
}
