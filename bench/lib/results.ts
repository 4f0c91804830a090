// Benchmark results as JSON files: bench/results/<name>.json, one file per bench, overwritten per run.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** bench/results/, next to this lib folder. */
const resultsDir = fileURLToPath(new URL("../results/", import.meta.url));

/** Writes `data` (plus the time and Node version) to bench/results/<name>.json and returns the path. */
export async function writeResult(name: string, data: unknown, dir: string = resultsDir): Promise<string> {
  if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new TypeError(`writeResult: invalid result name ${JSON.stringify(name)}`);
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${name}.json`);
  const record = { name, recorded_at: new Date().toISOString(), node: process.version, data };
  await writeFile(path, JSON.stringify(record, null, 2) + "\n", "utf8");
  return path;
}
