/**
 * Type-checks one sample file of the repository with the project's tsc, as a user's editor would:
 * the repository's tsconfig with only Node's types. Resolves `{ code, out }` (tsc's stdout holds its
 * diagnostics); never throws on a type error, so a test can assert on exactly what tsc said.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "../..");

export async function tscSample(sample: string): Promise<{ code: number; out: string }> {
  const temp = mkdtempSync(join(tmpdir(), "tsc-sample-"));
  try {
    const config = join(temp, "tsconfig.json");
    writeFileSync(
      config,
      JSON.stringify({
        extends: join(root, "tsconfig.json"),
        compilerOptions: { noEmit: true, types: ["node"], typeRoots: [join(root, "node_modules/@types")] },
        include: [],
        files: [join(root, sample)],
      }),
    );
    const tsc = join(root, "node_modules/typescript/bin/tsc");
    return await run(process.execPath, [tsc, "-p", config], { cwd: root }).then(
      () => ({ code: 0, out: "" }),
      (error: unknown) => {
        const e = error as { code?: number; stdout?: string };
        return { code: e.code ?? 1, out: e.stdout ?? "" };
      },
    );
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}
