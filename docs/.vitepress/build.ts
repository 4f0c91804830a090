/**
 * `npm run docs`: builds the whole documentation site into one static folder.
 *   1. the HTTP reference (Redoc) from spec/openapi.yaml → docs/public/reference/http.html
 *   2. the SDK reference (TypeDoc) from the public entries → docs/sdk/ and docs/ru/sdk/
 *   3. the CLI reference from every bin's --help → docs/cli/ and docs/ru/cli/
 *   4. VitePress over docs/ → docs/.vitepress/dist (or `--out DIR`), with offline search.
 * Steps 1–3 write generated, gitignored pages; step 4 fails on a dead link between pages.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { build } from "vitepress";
import { CLI_WORDS, cliIndex, cliPage, collectCliHelp } from "./cli-reference";
import { docsRoot } from "./guides";
import { HTTP_REFERENCE_FILE, renderHttpReference } from "./http-reference";
import { renderSdkReference } from "./sdk-reference";

const DEFAULT_OUT_DIR = join(docsRoot, ".vitepress/dist");

const GENERATED = ["sdk", "ru/sdk", "cli", "ru/cli", "public/reference"];

const RU_SDK_NOTE =
  "> Справочник генерируется из публичного TypeScript API пакета (тех же исходников, из которых собираются " +
  "файлы `.d.ts`), поэтому не расходится с кодом. Описания взяты из комментариев в коде и написаны на английском.\n\n";

function write(file: string, text: string): void {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, text);
}

/** The Russian SDK pages: the same generated pages, with a note on the index that they are in English. */
function copySdkToRussian(): void {
  const from = join(docsRoot, "sdk");
  const to = join(docsRoot, "ru/sdk");
  cpSync(from, to, { recursive: true, filter: (src) => !src.endsWith(".json") });
  const index = join(to, "index.md");
  const text = readFileSync(index, "utf8").replace(/^# SDK reference\n/, `# Справочник SDK\n\n${RU_SDK_NOTE}`);
  writeFileSync(index, text);
}

interface BuildSummary {
  outDir: string;
  operations: number;
  sdkModules: number;
  sdkWarnings: number;
  cliPages: number;
  pages: number;
  seconds: number;
}

function countPages(dir: string): number {
  let n = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) n += countPages(join(dir, entry.name));
    else if (entry.name.endsWith(".html") && entry.name !== "404.html") n++;
  }
  return n;
}

async function buildSite(outDir = DEFAULT_OUT_DIR): Promise<BuildSummary> {
  const started = performance.now();
  for (const dir of GENERATED) rmSync(join(docsRoot, dir), { recursive: true, force: true });
  const http = renderHttpReference(join(docsRoot, "public", HTTP_REFERENCE_FILE));
  const [sdk, cli] = await Promise.all([renderSdkReference(join(docsRoot, "sdk")), collectCliHelp()]);
  copySdkToRussian();
  for (const [prefix, words] of [
    ["cli", CLI_WORDS.en],
    ["ru/cli", CLI_WORDS.ru],
  ] as const) {
    write(join(docsRoot, prefix, "index.md"), cliIndex(cli, words));
    for (const ref of cli) write(join(docsRoot, prefix, `${ref.bin}.md`), cliPage(ref, words));
  }
  if (existsSync(outDir)) rmSync(outDir, { recursive: true, force: true });
  await build(docsRoot, { outDir, mpa: false });
  return {
    outDir,
    operations: http.operations,
    sdkModules: sdk.modules,
    sdkWarnings: sdk.warnings,
    cliPages: cli.reduce((n, r) => n + r.pages.length, 0),
    pages: countPages(outDir),
    seconds: Math.round((performance.now() - started) / 100) / 10,
  };
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename ?? "")) {
  const { values } = parseArgs({ options: { out: { type: "string" } } });
  const summary = await buildSite(values.out ? resolve(values.out) : DEFAULT_OUT_DIR);
  console.log(
    `docs: ${summary.pages} pages in ${summary.outDir} (${summary.operations} HTTP operations, ` +
      `${summary.sdkModules} SDK modules, ${summary.cliPages} CLI help pages) in ${summary.seconds} s`,
  );
}
