/**
 * `npm run generate`: lint, validate and emit in parallel, then write generated/ only if all three
 * passed, then type-check what the generator covers.
 *
 *   tsx generator/run.ts [--spec PATH] [--out DIR]     (defaults: spec/openapi.yaml, generated/)
 *
 * - `npm run lint:spec` (Redocly, warnings are errors) and generator/validate.ts run as child
 *   processes while this process emits into memory, so the wall time stays that of the slowest step.
 * - Every child is awaited and its exit status reported, whatever fails first: no job is left running
 *   and no status is lost. A spec that fails any step writes nothing.
 * - Then `tsc -p tsconfig.generated.json` (generated/, generator/, runtime/). The rest of the
 *   repository is `npm run typecheck` (docs/guides/regenerating.md lists every step after a change).
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_OUT, DEFAULT_SPEC, generateFiles, parseArgs, writeFiles } from "./main";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

interface Step {
  readonly name: string;
  readonly ok: boolean;
  readonly output: string;
}

/** Runs a command to its end, collecting stdout and stderr; never rejects. */
function run(name: string, command: string, args: readonly string[]): Promise<Step> {
  return new Promise((resolveStep) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("error", (error) => resolveStep({ name, ok: false, output: `${output}${error.message}\n` }));
    child.once("close", (code, signal) =>
      resolveStep({
        name,
        ok: code === 0,
        output: code === 0 ? output : `${output}${name}: exited ${signal ?? code}\n`,
      }),
    );
  });
}

/** Redocly's Node 20 deprecation box is noise in every run; the problems are what matters. */
const withoutBanner = (text: string) =>
  text
    .split("\n")
    .filter((line) => !/^\s*[╔║╚]/.test(line))
    .join("\n")
    .trim();

/** The arguments `npm run lint:spec` passes to Redocly, for any spec. */
const lintArgs = (spec: string) => [
  "lint",
  spec,
  "--config",
  "spec/redocly.yaml",
  "--format",
  "stylish",
  "--lint-config",
  "error",
];

async function main(argv: readonly string[]): Promise<number> {
  const started = performance.now();
  const options = parseArgs(argv);
  const spec = options.spec ? resolve(options.spec) : DEFAULT_SPEC;
  const out = options.out ? resolve(options.out) : DEFAULT_OUT;
  const bin = (name: string) => `${ROOT}node_modules/.bin/${name}`;
  const lint = run("lint:spec", bin("redocly"), lintArgs(spec));
  const validate = run("validate", bin("tsx"), ["generator/validate.ts", "--spec", spec]);
  const emit = generateFiles(spec).then(
    (files) => ({ files, error: undefined }),
    (error: unknown) => ({ files: undefined, error: error instanceof Error ? error.message : String(error) }),
  );
  const [linted, validated, emitted] = await Promise.all([lint, validate, emit]);
  for (const step of [linted, validated]) {
    const text = withoutBanner(step.output);
    if (text) (step.ok ? console.log : console.error)(text);
  }
  if (emitted.error !== undefined) console.error(`generator: ${emitted.error}`);
  const failed = [
    ...[linted, validated].filter((s) => !s.ok).map((s) => s.name),
    ...(emitted.error !== undefined ? ["generator"] : []),
  ];
  if (failed.length > 0 || emitted.files === undefined) {
    console.error(`generate: ${failed.join(", ")} failed; generated/ was not written`);
    return 1;
  }
  const written = writeFiles(out, emitted.files);
  const ms = Math.round(performance.now() - started);
  console.log(`generator: ${written.length} file(s) updated in ${ms} ms${written.map((f) => `\n  ${f}`).join("")}`);
  // A fixture spec's output is not what the project compiles against.
  if (out !== DEFAULT_OUT) return 0;
  const typecheck = await run("typecheck:generated", bin("tsc"), ["-p", "tsconfig.generated.json", "--noEmit"]);
  if (!typecheck.ok) {
    console.error(withoutBanner(typecheck.output));
    return 1;
  }
  if (written.length > 0)
    console.log(
      "generate: done. Next: npm run typecheck (the whole repository), then the steps in docs/guides/regenerating.md.",
    );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`generate: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
