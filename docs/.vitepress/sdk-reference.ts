/**
 * The SDK reference: TypeDoc over the package's public entries (the same sources tsup turns into the
 * published .d.ts files), as Markdown pages the site renders and searches. One page per entry point,
 * named by its import specifier (`reseller-api/stores/sqlite`), not by its source file.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Application, Comment, Converter, DeclarationReflection, ReflectionKind, type Context } from "typedoc";
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
 * `paths` and `operations` are openapi-typescript's wire types, one property per path and operation:
 * rendered member by member they are two 2 MB pages (four with the Russian copy) that repeat the HTTP
 * reference and take most of the site's build time. Their pages say what they are and link there.
 */
const WIRE_TYPES = new Set(["paths", "operations"]);
const wireTypeNote = (base: string) =>
  "The request and response types of every API operation, generated from `spec/openapi.yaml` by " +
  "openapi-typescript (`paths` by URL, `operations` by operationId). Each operation is documented in the " +
  `[HTTP reference](${base}reference/http.html) and each client method on the [client methods](../../client/index.md) pages.`;

function summariseWireTypes(context: Context): void {
  for (const reflection of context.project.getReflectionsByKind(ReflectionKind.Interface)) {
    if (!WIRE_TYPES.has(reflection.name) || !(reflection instanceof DeclarationReflection)) continue;
    for (const child of [...(reflection.children ?? [])]) context.project.removeReflection(child);
    reflection.comment = new Comment([{ kind: "text", text: wireTypeNote(process.env.DOCS_BASE ?? "/") }]);
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
    summariseWireTypes(context);
  });
  const project = await app.convert();
  if (!project) throw new Error("TypeDoc could not convert the public entry points; run `npm run typecheck`.");
  await app.generateOutputs(project);
  fixAnchorsIn(outDir);
  if (app.logger.hasErrors()) throw new Error("TypeDoc reported errors while rendering the SDK reference.");
  return { modules: project.children?.length ?? 0, warnings: app.logger.warningCount };
}
