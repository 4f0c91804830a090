/**
 * J3: the spec checked by validators no one here wrote, as a step of `npm run generate`:
 * @seriousme/openapi-schema-validator (the OpenAPI 3.1 meta-schema) and openapi-examples-validator
 * (every example against its schema). Redocly lints in parallel; this is the
 * second opinion, so a Redocly blind spot cannot hide an invalid document or example.
 *
 *   tsx generator/validate.ts [--spec PATH]
 *
 * Exit 0 with a one-line summary, or exit 1 listing every problem with its JSON pointer.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Validator } from "@seriousme/openapi-schema-validator";
import { validateExamples } from "openapi-examples-validator";
import { parse } from "yaml";
import { checkSensitiveFields } from "./cross-checks";
import { readOperations } from "./model";
import { createSpec, isObject, SpecError } from "./spec";

export interface SpecValidation {
  /** Meta-schema problems (empty when the document is valid OpenAPI 3.1). */
  readonly schemaErrors: readonly string[];
  /** Examples that do not match their schema. */
  readonly exampleErrors: readonly string[];
  readonly examplesTotal: number;
  readonly examplesWithoutSchema: number;
  /**
   * The generator's own cross-checks that need the whole document (H2: x-sensitive-fields against
   * the response bodies). The model's checks run when it emits, so they are not repeated here.
   */
  readonly contractErrors: readonly string[];
}

type Doc = Record<string, unknown>;

interface ExampleError {
  readonly examplePath?: string;
  readonly instancePath?: string;
  readonly message?: string;
  readonly type?: string;
}

const readDoc = (file: string) => parse(readFileSync(file, "utf8"), { maxAliasCount: -1 }) as Doc;

/** @seriousme/openapi-schema-validator: the document against the OpenAPI 3.1 meta-schema. */
export async function schemaErrorsOf(doc: Doc): Promise<string[]> {
  const structural = await new Validator().validate(structuredClone(doc));
  if (structural.valid) return [];
  if (typeof structural.errors === "string") return [structural.errors];
  return (structural.errors ?? []).map((e) => `${e.instancePath || "/"}: ${e.message ?? e.keyword}`);
}

/** H2 across operations; [] when the model itself fails (the emit step reports that). */
export function contractErrorsOf(file: string, doc: Doc): string[] {
  const spec = createSpec(file, structuredClone(doc));
  let ops;
  try {
    ops = readOperations(spec);
  } catch (error) {
    if (error instanceof SpecError) return [];
    throw error;
  }
  const paths = isObject(spec.doc.paths) ? spec.doc.paths : {};
  try {
    checkSensitiveFields(
      spec,
      ops.map((op) => ({ ...op, raw: spec.deref(spec.deref(paths[op.path], op.pointer)[op.methodKey], op.pointer) })),
    );
  } catch (error) {
    if (error instanceof SpecError) return [error.message];
    throw error;
  }
  return [];
}

/** Runs both validators and the contract cross-checks over one spec file. */
export async function validateSpec(file: string): Promise<SpecValidation> {
  const doc = readDoc(file);
  const schemaErrors = await schemaErrorsOf(doc);
  // Open objects here: this tool's closing mode closes each allOf part on its own (false errors on
  // every composed schema); Redocly's no-invalid-media-type-examples checks closed objects (J2).
  const examples = await validateExamples(structuredClone(doc));
  // The error class declares no fields; its documented options (ApplicationErrorOptions) are its fields.
  const exampleErrors = (examples.errors as ExampleError[]).map((e) => {
    const where = [e.examplePath, e.instancePath].filter(Boolean).join(" ");
    return `${where || "(spec)"}: ${e.message ?? e.type ?? "invalid"}`;
  });
  return {
    contractErrors: contractErrorsOf(file, doc),
    schemaErrors,
    exampleErrors,
    examplesTotal: examples.statistics.examplesTotal,
    examplesWithoutSchema: examples.statistics.examplesWithoutSchema,
  };
}

function parseArgs(argv: readonly string[]): string {
  if (argv.length === 0) return fileURLToPath(new URL("../spec/openapi.yaml", import.meta.url));
  if (argv.length === 2 && argv[0] === "--spec") return resolve(argv[1]);
  throw new Error(`usage: tsx generator/validate.ts [--spec PATH] (unexpected ${JSON.stringify(argv.join(" "))})`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const file = parseArgs(process.argv.slice(2));
  validateSpec(file).then(
    (result) => {
      const problems = [
        ...result.schemaErrors.map((e) => `openapi-schema-validator: ${e}`),
        ...result.exampleErrors.map((e) => `openapi-examples-validator: ${e}`),
        ...result.contractErrors.map((e) => `generator cross-check: ${e}`),
      ];
      // An example without a schema is checked against nothing: as bad as an invalid one.
      if (result.examplesWithoutSchema > 0)
        problems.push(`openapi-examples-validator: ${result.examplesWithoutSchema} example(s) without a schema`);
      if (problems.length > 0) {
        console.error(`validate: ${file} has ${problems.length} problem(s)\n  ${problems.join("\n  ")}`);
        process.exitCode = 1;
        return;
      }
      console.log(
        `validate: OpenAPI 3.1 schema valid; ${result.examplesTotal} examples valid (openapi-schema-validator, openapi-examples-validator)`,
      );
    },
    (error: unknown) => {
      console.error(`validate: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    },
  );
}
