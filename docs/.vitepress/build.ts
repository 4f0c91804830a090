/**
 * `npm run docs`: builds the whole documentation site into one static folder.
 *   1. the HTTP reference (Redoc) from spec/openapi.yaml → docs/public/reference/http.html and
 *      http.ru.html, with the spec itself beside them for download
 *   2. the SDK reference (TypeDoc) from the public entries → docs/sdk/ and docs/ru/sdk/, and one page
 *      per client resource (`client.domains` …) from the spec → docs/sdk/client/ and docs/ru/sdk/client/
 *   3. the CLI reference from every bin's --help → docs/cli/ and docs/ru/cli/
 *   4. VitePress over docs/ → docs/.vitepress/dist (or `--out DIR`), with offline search.
 * Steps 1–3 write generated, gitignored pages; step 4 fails on a dead link between pages. A finished
 * build records the hash of its inputs in the site folder (`inputs-hash.ts`), so a current site is reused.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { build } from "vitepress";
import { cliReferenceFiles, collectCliHelp } from "./cli-reference";
import { docsRoot } from "./guides";
import { changelogPage } from "./changelog";
import { httpIndexPage } from "./http-index";
import { INPUTS_STAMP, inputsHash } from "./inputs-hash";
import { renderHttpReference } from "./http-reference";
import { renderSdkReference } from "./sdk-reference";
import { methodDocs, resourceIndex, resourcePage } from "./sdk-methods";

const DEFAULT_OUT_DIR = join(docsRoot, ".vitepress/dist");

const GENERATED = ["sdk", "ru/sdk", "cli", "ru/cli", "http", "ru/http", "public/reference"];

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
  // Links to the HTTP reference lead to its Russian page.
  const relink = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) relink(path);
      else if (entry.name.endsWith(".md")) {
        const text = readFileSync(path, "utf8");
        if (text.includes("(/reference/http.html"))
          writeFileSync(path, text.replaceAll("(/reference/http.html", "(/reference/http.ru.html"));
      }
    }
  };
  relink(to);
  const index = join(to, "index.md");
  const text = readFileSync(index, "utf8").replace(/^# SDK reference\n/, `# Справочник SDK\n\n${RU_SDK_NOTE}`);
  writeFileSync(index, text);
}

const START_HERE = {
  en: [
    "## Start here",
    "",
    "- [Client methods](client/index.md) — every `client.<resource>.<method>()` with its arguments, options, outcomes and an example",
    "- [`createResellerClient()`](reseller-api/functions/createResellerClient.md) and its [options](reseller-api/interfaces/ResellerClientOptions.md)",
    "- [`Outcome`](reseller-api/type-aliases/Outcome.md) — what every call resolves to",
    "- [`ResellerClientError`](reseller-api/classes/ResellerClientError.md) — the base of everything the package throws",
    "",
  ],
  ru: [
    "## С чего начать",
    "",
    "- [Методы клиента](client/index.md) — каждый `client.<ресурс>.<метод>()`: аргументы, параметры, исходы и пример",
    "- [`createResellerClient()`](reseller-api/functions/createResellerClient.md) и его [параметры](reseller-api/interfaces/ResellerClientOptions.md)",
    "- [`Outcome`](reseller-api/type-aliases/Outcome.md) — исход, которым завершается каждый вызов",
    "- [`ResellerClientError`](reseller-api/classes/ResellerClientError.md) — базовый класс всех исключений пакета",
    "",
  ],
};

/** The SDK index leads with the calls a user makes, before TypeDoc's list of modules. */
function addStartHere(dir: string, lang: "en" | "ru"): void {
  const index = join(docsRoot, dir, "index.md");
  const text = readFileSync(index, "utf8").replace(/\n## Modules\n/, `\n${START_HERE[lang].join("\n")}\n## Modules\n`);
  writeFileSync(index, text);
}

/** The client's method pages, one per resource, in `<dir>/client/` (written again in Russian after the copy). */
function writeMethodPages(dir: string, lang: "en" | "ru"): number {
  const resources = methodDocs();
  const base = process.env.DOCS_BASE ?? "/";
  write(join(docsRoot, dir, "client/index.md"), resourceIndex(resources, lang));
  for (const r of resources) write(join(docsRoot, dir, `client/${r.resource}.md`), resourcePage(r, lang, base));
  return resources.reduce((n, r) => n + r.methods.length, 0);
}

interface BuildSummary {
  outDir: string;
  operations: number;
  sdkModules: number;
  sdkMethods: number;
  sdkWarnings: number;
  cliPages: number;
  pages: number;
  seconds: number;
  /** Wall time of the steps: TypeDoc and the CLI's --help run side by side, then VitePress. */
  steps: { typedoc: number; cliHelp: number; vitepress: number };
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
  // Hashed before anything is read: an input edited during the build leaves a stamp that no longer matches.
  const inputs = inputsHash();
  for (const dir of GENERATED) rmSync(join(docsRoot, dir), { recursive: true, force: true });
  for (const file of ["changelog.md", "ru/changelog.md"]) rmSync(join(docsRoot, file), { force: true });
  const base = process.env.DOCS_BASE ?? "/";
  const http = renderHttpReference(join(docsRoot, "public"), "en", base);
  renderHttpReference(join(docsRoot, "public"), "ru", base);
  write(join(docsRoot, "changelog.md"), changelogPage("en"));
  write(join(docsRoot, "ru/changelog.md"), changelogPage("ru"));
  write(join(docsRoot, "http/index.md"), httpIndexPage("en", base));
  write(join(docsRoot, "ru/http/index.md"), httpIndexPage("ru", base));
  const since = (t: number) => Math.round((performance.now() - t) / 100) / 10;
  const timed = async <T>(work: Promise<T>, t = performance.now()): Promise<[T, number]> => [await work, since(t)];
  const [[sdk, sdkSeconds], [cli, cliSeconds]] = await Promise.all([
    timed(renderSdkReference(join(docsRoot, "sdk"))),
    timed(collectCliHelp()),
  ]);
  const methods = writeMethodPages("sdk", "en");
  addStartHere("sdk", "en");
  copySdkToRussian();
  writeMethodPages("ru/sdk", "ru");
  addStartHere("ru/sdk", "ru");
  for (const [path, text] of cliReferenceFiles(cli)) write(join(docsRoot, path), text);
  if (existsSync(outDir)) rmSync(outDir, { recursive: true, force: true });
  const vitepressStarted = performance.now();
  await build(docsRoot, { outDir, mpa: false });
  const vitepressSeconds = since(vitepressStarted);
  writeFileSync(join(outDir, INPUTS_STAMP), `${inputs}\n`);
  return {
    outDir,
    operations: http.operations,
    sdkModules: sdk.modules,
    sdkMethods: methods,
    sdkWarnings: sdk.warnings,
    cliPages: cli.reduce((n, r) => n + r.pages.length, 0),
    pages: countPages(outDir),
    seconds: since(started),
    steps: { typedoc: sdkSeconds, cliHelp: cliSeconds, vitepress: vitepressSeconds },
  };
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename ?? "")) {
  const { values } = parseArgs({ options: { out: { type: "string" } } });
  const summary = await buildSite(values.out ? resolve(values.out) : DEFAULT_OUT_DIR);
  console.log(
    `docs: ${summary.pages} pages in ${summary.outDir} (${summary.operations} HTTP operations, ` +
      `${summary.sdkModules} SDK modules, ${summary.sdkMethods} client methods, ${summary.cliPages} CLI help pages) in ${summary.seconds} s ` +
      `(TypeDoc ${summary.steps.typedoc} s and --help ${summary.steps.cliHelp} s side by side, VitePress ${summary.steps.vitepress} s)`,
  );
}
