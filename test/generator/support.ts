/**
 * Test support for the generator: fixture paths, temp output dirs under .tmp/ (gitignored, inside the
 * repo so vitest can import emitted code), and an in-process `tsc` over emitted files.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import ts from "typescript";

export const ROOT = resolve(__dirname, "../..");
const FIXTURES = join(ROOT, "test/fixtures/generator");
export const TS_FILES = ["schema.ts", "operations.ts", "errors.ts", "client.ts"] as const;
export const GENERATED_FILES = [...TS_FILES, "README.md"] as const;

/** Every fixture spec directory (each holds openapi.yaml and want/). */
export function fixtureNames(): string[] {
  return readdirSync(FIXTURES, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith("invalid"))
    .map((entry) => entry.name)
    .sort();
}

export function fixtureSpec(name: string): string {
  return join(FIXTURES, name, "openapi.yaml");
}

export function wantFile(fixture: string, file: string): string {
  return join(FIXTURES, fixture, "want", file);
}

export interface TempDir {
  readonly dir: string;
  cleanup(): void;
}

/** A fresh directory under .tmp/ and its cleanup. */
export function tempDir(prefix: string): TempDir {
  const base = join(ROOT, ".tmp");
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, `${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Every file of a directory as name → text. */
export function readDir(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [name, readFileSync(join(dir, name), "utf8")]),
  );
}

/** Type-checks files with the project's compiler options; returns "file:line: message" diagnostics. */
export function typecheck(files: readonly string[]): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ["node"],
    typeRoots: [join(ROOT, "node_modules/@types")],
  };
  const program = ts.createProgram(files, options);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    if (!d.file || d.start === undefined) return message;
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${d.file.fileName.slice(ROOT.length + 1)}:${line + 1}: ${message}`;
  });
}
