/**
 * The `@example` blocks of the package's TSDoc comments (what an editor's hover and the TypeDoc pages
 * show, e.g. `createResellerClient()`'s), as files the docs tests type-check with the method examples.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { repoRoot } from "../../docs/.vitepress/package-entries";
import { pointAtSources } from "./guide-blocks";

/** The folders the package's public API is written in (generated/ has no code examples, only values). */
const SOURCE_DIRS = [
  "src",
  "core",
  "journal",
  "stores",
  "pacing",
  "recovery",
  "runner",
  "middleware",
  "otel",
  "runtime",
];

interface TsdocExample {
  /** `src/client.ts` */
  file: string;
  /** 1-based line of the block's opening fence. */
  line: number;
  code: string;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/** Every ```ts fence that follows an `@example` tag inside a `/** … *\/` comment. */
export function tsdocExamples(): TsdocExample[] {
  const out: TsdocExample[] = [];
  for (const dir of SOURCE_DIRS)
    for (const path of sourceFiles(join(repoRoot, dir))) {
      const lines = readFileSync(path, "utf8").split("\n");
      for (let i = 0; i < lines.length; i++) {
        if (!/^\s*\*\s*@example\b/.test(lines[i])) continue;
        const open = lines.findIndex((l, j) => j > i && /^\s*\*\s*```(ts|typescript)\s*$/.test(l));
        if (open < 0) continue;
        const close = lines.findIndex((l, j) => j > open && /^\s*\*\s*```\s*$/.test(l));
        if (close < 0) throw new Error(`${relative(repoRoot, path)}:${open + 1}: an @example block is never closed`);
        const code = lines
          .slice(open + 1, close)
          .map((l) => l.replace(/^\s*\* ?/, ""))
          .join("\n");
        out.push({ file: relative(repoRoot, path), line: open + 1, code: `${code}\n` });
        i = close;
      }
    }
  return out;
}

/** Writes each example as `<dir>/tsdoc-<file>-<line>.ts`, ready for `typecheck()`. */
export function writeTsdocExamples(dir: string) {
  return tsdocExamples().map((e) => {
    const path = join(dir, `tsdoc-${e.file.replace(/[/.]/g, "-")}-${e.line}.ts`);
    writeFileSync(path, pointAtSources(e.code, dir));
    return { path, line: e.line, guide: { file: e.file, slug: e.file, title: e.file } };
  });
}
