/**
 * The code blocks of every guide in every language, as files the tests type-check and run. A block's
 * file name is `block-N.ts` unless its fence names one (```` ```ts file=setup.ts ````), which is how a
 * later block imports it (`./setup`). Package imports (`reseller-api/stores/sqlite`) are pointed at the
 * sources the package builds them from.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import ts from "typescript";
import { listGuides, LOCALES, type Guide, type Locale } from "../../docs/.vitepress/guides";
import { publicEntries, repoRoot } from "../../docs/.vitepress/package-entries";

export interface Block {
  locale: Locale;
  guide: Guide;
  lang: string;
  /** `file=…` from the fence, if any. */
  file?: string;
  code: string;
  /** 1-based line of the opening fence in the guide. */
  line: number;
  /** 1-based index among the guide's blocks of the same kind. */
  index: number;
}

const examplesDir = join(repoRoot, ".tmp/guide-examples");

export function blocksOf(locale: Locale, guide: Guide): Block[] {
  const lines = readFileSync(guide.file, "utf8").split("\n");
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w+)?(.*)$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.indexOf("```", i + 1);
    if (end < 0) throw new Error(`${guide.file}:${i + 1}: a code block is never closed`);
    const lang = open[1] ?? "";
    out.push({
      locale,
      guide,
      lang,
      file: /\bfile=([\w.-]+)/.exec(open[2])?.[1],
      code: lines.slice(i + 1, end).join("\n") + "\n",
      line: i + 1,
      index: out.filter((b) => b.lang === lang).length + 1,
    });
    i = end;
  }
  return out;
}

export function allBlocks(langs: string[]): Block[] {
  return LOCALES.flatMap((locale) => listGuides(locale).flatMap((g) => blocksOf(locale, g))).filter((b) =>
    langs.includes(b.lang),
  );
}

export function describeBlock(b: Block): string {
  return `${relative(repoRoot, b.guide.file)}:${b.line}`;
}

export interface WrittenBlock extends Block {
  path: string;
}

/** `from "reseller-api/…"` → a relative import of the entry's source, from `fromDir`. */
export function pointAtSources(code: string, fromDir: string): string {
  const entries = publicEntries().sort((a, b) => b.specifier.length - a.specifier.length);
  return code.replace(
    /(from\s+|import\()(["'])(reseller-api(?:\/[\w/-]+)?)\2/g,
    (all, lead: string, q: string, spec: string) => {
      const entry = entries.find((e) => e.specifier === spec);
      if (!entry) throw new Error(`A guide imports "${spec}", which package.json does not export.`);
      let rel = relative(fromDir, join(repoRoot, entry.source)).replace(/\.ts$/, "");
      if (!rel.startsWith(".")) rel = `./${rel}`;
      return `${lead}${q}${rel}${q}`;
    },
  );
}

/** Writes the TypeScript blocks under .tmp/guide-examples/<lang>/<guide>/ (wiped first). */
export function writeTsBlocks(): WrittenBlock[] {
  rmSync(examplesDir, { recursive: true, force: true });
  return allBlocks(["ts", "typescript"]).map((b) => {
    const dir = join(examplesDir, b.locale.lang, b.guide.slug);
    const path = join(dir, b.file ?? `block-${b.index}.ts`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, pointAtSources(b.code, dir));
    return { ...b, path };
  });
}

/** Type-checks the written blocks with the project's compiler options; diagnostics name the guide line. */
export function typecheck(blocks: Pick<WrittenBlock, "path" | "guide" | "line">[]): string[] {
  const configPath = join(repoRoot, "tsconfig.json");
  const config = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, repoRoot);
  const program = ts.createProgram(
    blocks.map((b) => b.path),
    // The strictest flags an application may set: an example must compile in any strict project.
    {
      ...parsed.options,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      noEmit: true,
      types: ["node"],
    },
  );
  const byPath = new Map(blocks.map((b) => [b.path, b]));
  // The package's own sources compile under the project's flags (`npm run typecheck`); an application
  // sees their declarations, so only the examples' diagnostics count here.
  const diagnostics = ts.getPreEmitDiagnostics(program).filter((d) => !d.file || byPath.has(d.file.fileName));
  return diagnostics.map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    const block = d.file && byPath.get(d.file.fileName);
    if (!d.file || !block) return `${d.file?.fileName ?? "(project)"}: ${message}`;
    const { line } = d.file.getLineAndCharacterOfPosition(d.start ?? 0);
    return `${relative(repoRoot, block.guide.file)}:${block.line + 1 + line}: ${message}`;
  });
}
