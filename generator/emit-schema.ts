/**
 * generated/schema.ts — `paths`, `components` and `operations` types from openapi-typescript's Node
 * API (not its CLI), so the generator reads the spec once.
 *
 * openapi-typescript loads its own TypeScript and Redocly (~1.5 s), and ts-morph loads another
 * TypeScript for the other emitters. On the 2-core CI box that is the bulk of `npm run emit`, so the
 * openapi-typescript half runs in a worker thread that starts loading before the spec is even parsed,
 * while the main thread emits the other files. The worker receives the already-parsed document.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { banner } from "./banner";
import type { Spec } from "./spec";

const SCHEMA_EMITTER = "emit-schema.ts";

/** Options passed to openapiTS(); fixed, so the output only depends on the spec. */
const OPENAPI_TS_OPTIONS = {
  silent: true,
  // Spec order, not alphabetical: a reader finds types where the spec has them.
  alphabetize: false,
};

/** Plain CommonJS so the worker needs no TypeScript loader (tsx, vitest or none). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const loading = Promise.resolve().then(() => require(workerData.openapiTypescript));
loading.catch(() => {}); // reported per job below
parentPort.on("message", async ({ doc, options }) => {
  try {
    const { default: openapiTS, astToString } = await loading;
    parentPort.postMessage({ text: astToString(await openapiTS(doc, options)) });
  } catch (error) {
    parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
`;

/** A worker that has started loading openapi-typescript; `emit` may be called once. */
export interface SchemaWorker {
  emit(spec: Spec): Promise<string>;
  close(): Promise<void>;
}

/** Starts the worker now so its module loading overlaps with the caller's work. */
export function startSchemaWorker(): SchemaWorker {
  const openapiTypescript = createRequire(import.meta.url).resolve("openapi-typescript");
  // stdout/stderr: true keeps openapi-typescript's own logging (a Redocly "✘ …" line before it throws)
  // out of the generator's output; its error comes back as the message below, named once.
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { openapiTypescript },
    stdout: true,
    stderr: true,
  });
  worker.stdout.resume();
  worker.stderr.resume();
  const result = new Promise<string>((resolve, reject) => {
    worker.once("message", (message: { text?: string; error?: string }) => {
      if (typeof message.text === "string") resolve(message.text);
      else reject(new Error(`openapi-typescript: ${message.error}`));
    });
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`openapi-typescript worker exited (${code}) before answering`)));
  });
  result.catch(() => undefined); // a caller that fails first and only closes must not leave an unhandled rejection
  return {
    async emit(spec) {
      // postMessage clones the document, so the other emitters keep reading the exact parsed spec.
      worker.postMessage({ doc: spec.doc, options: OPENAPI_TS_OPTIONS });
      return `${banner(SCHEMA_EMITTER)}\n\n${twoSpaceIndent(await result).trim()}\n`;
    },
    async close() {
      await worker.terminate();
    },
  };
}

/** Emits generated/schema.ts and returns its text. */
export async function emitSchema(spec: Spec): Promise<string> {
  const worker = startSchemaWorker();
  try {
    return await worker.emit(spec);
  } finally {
    await worker.close();
  }
}

/**
 * astToString is TypeScript's own printer, already a fixed format; only its 4-space indent differs
 * from the other generated files. Re-indenting the leading runs is ~1 s cheaper than formatText on
 * a 3 000-line file, and JSDoc continuation lines (4n + 1 spaces) keep their alignment.
 */
function twoSpaceIndent(text: string): string {
  return text
    .replace(/^((?: {4})+)/gm, (run) => " ".repeat(run.length / 2))
    .replace(/[ \t]+$/gm, "")
    .replace(/\n+(?=export )/g, "\n\n"); // one blank line between top-level declarations
}
