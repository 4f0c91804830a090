/**
 * The SDK reference: TypeDoc over the package's public entries (the same sources tsup turns into the
 * published .d.ts files), as Markdown pages the site renders and searches. One page per entry point,
 * named by its import specifier (`reseller-api/stores/sqlite`), not by its source file.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Application, Converter, DeclarationReflection, type Context } from "typedoc";
import { publicEntries, repoRoot } from "./package-entries";

/** TypeDoc's module name for a source: the path without extension and without a trailing `/index`. */
function typedocName(source: string): string {
  return source.replace(/\.tsx?$/, "").replace(/\/index$/, "");
}

function headingSlug(text: string): string {
  return text
    .replace(/`/g, "")
    .toLowerCase()
    .replace(/[^\w\- ]/g, "")
    .trim()
    .replace(/\s+/g, "-");
}

/**
 * typedoc-plugin-markdown numbers the anchor of a name it expects twice (`#emulatorcontrol-1`) even when
 * merged declarations give the page one heading of that name; such a link goes to the heading there is.
 */
function fixDuplicateAnchors(markdown: string): string {
  const counts = new Map<string, number>();
  for (const m of markdown.matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = headingSlug(m[1]);
    counts.set(slug, (counts.get(slug) ?? 0) + 1);
  }
  return markdown.replace(/\]\(#([\w-]+)-(\d+)\)/g, (all, name: string, n: string) =>
    (counts.get(name) ?? 0) > Number(n) || !counts.has(name) ? all : `](#${name})`,
  );
}

function fixAnchorsIn(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) fixAnchorsIn(path);
    else if (entry.name.endsWith(".md")) writeFileSync(path, fixDuplicateAnchors(readFileSync(path, "utf8")));
  }
}

/**
 * Node's `Error` statics (`captureStackTrace`, `prepareStackTrace`, `stackTraceLimit`) and members
 * inherited from `Error` itself say nothing about this package; they would repeat on every error class.
 */
const ERROR_STATICS = new Set(["captureStackTrace", "prepareStackTrace", "stackTraceLimit"]);

function dropInheritedErrorStatics(context: Context): void {
  for (const reflection of Object.values(context.project.reflections)) {
    if (!(reflection instanceof DeclarationReflection) || !reflection.flags.isStatic) continue;
    if (ERROR_STATICS.has(reflection.name)) context.project.removeReflection(reflection);
  }
}

/**
 * The OpenAPI types openapi-typescript generates (`paths`, `operations`, `components`) expand into pages
 * of 26,000 headings, 2.3 MB each, that nobody reads and every build and search index pays for. Their
 * pages keep the names down to `depth` (each path and method, each operation, each schema) and point
 * to the HTTP reference, which shows every field with its description and example.
 */
const GENERATED_TYPES: Record<string, { depth: number; note: string }> = {
  "interfaces/paths.md": {
    depth: 4,
    note: "Every path of the API and its methods, as openapi-typescript generates them from `spec/openapi.yaml`.",
  },
  "interfaces/operations.md": {
    depth: 3,
    note: "Every operation of the API by its operationId, as openapi-typescript generates it from `spec/openapi.yaml`.",
  },
  "interfaces/components.md": {
    depth: 4,
    note: "The schemas, parameters, headers and responses of `spec/openapi.yaml`, as openapi-typescript generates them.",
  },
};

const SEE_HTTP_REFERENCE =
  "Their fields, descriptions and examples are in the [HTTP reference](/reference/http.html); " +
  "the calls that take and return them are the [client methods](../../client/index.md).";

function compactGeneratedType(markdown: string, depth: number, note: string): string {
  const out: string[] = [];
  let skipping = false;
  for (const line of markdown.split("\n")) {
    const level = /^(#{1,6}) /.exec(line)?.[1].length;
    if (level !== undefined) skipping = level > depth;
    if (!skipping) out.push(line);
  }
  return (
    out
      .join("\n")
      .replace(/^(# .+\n)/, `$1\n${note} ${SEE_HTTP_REFERENCE}\n`)
      // An operation's entry: its operationId as a code span, which the site links to that operation.
      .replace(/^> \*\*([a-z]+\.[A-Za-z]+)\*\*: `object`$/gm, "$&\n\nIn the HTTP reference: `$1`.")
  );
}

function compactGeneratedTypes(outDir: string): void {
  for (const dir of readdirSync(outDir, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    for (const [file, { depth, note }] of Object.entries(GENERATED_TYPES)) {
      const path = join(outDir, dir.name, file);
      if (existsSync(path)) writeFileSync(path, compactGeneratedType(readFileSync(path, "utf8"), depth, note));
    }
  }
}

export async function renderSdkReference(outDir: string): Promise<{ modules: number; warnings: number }> {
  const entries = publicEntries();
  const app = await Application.bootstrapWithPlugins({
    entryPoints: entries.map((e) => join(repoRoot, e.source)),
    tsconfig: join(repoRoot, "tsconfig.json"),
    plugin: ["typedoc-plugin-markdown", "typedoc-vitepress-theme"],
    out: outDir,
    readme: "none",
    name: "SDK reference",
    // One page per class, interface, type and function: small pages whose anchors cannot collide.
    outputFileStrategy: "members",
    entryFileName: "index",
    excludePrivate: true,
    excludeInternal: true,
    hidePageHeader: true,
    hideBreadcrumbs: true,
    githubPages: false,
    disableSources: true,
    // Unexported types the public API refers to are reported as warnings; they are counted, not shown.
    logLevel: "Error",
    docsRoot: join(repoRoot, "docs"),
  } as Record<string, unknown>);
  const names = new Map(entries.map((e) => [typedocName(e.source), e.specifier]));
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context: Context) => {
    for (const mod of context.project.children ?? []) mod.name = names.get(mod.name) ?? mod.name;
    dropInheritedErrorStatics(context);
  });
  const project = await app.convert();
  if (!project) throw new Error("TypeDoc could not convert the public entry points; run `npm run typecheck`.");
  await app.generateOutputs(project);
  compactGeneratedTypes(outDir);
  fixAnchorsIn(outDir);
  if (app.logger.hasErrors()) throw new Error("TypeDoc reported errors while rendering the SDK reference.");
  return { modules: project.children?.length ?? 0, warnings: app.logger.warningCount };
}
