/**
 * Loading the spec: parse the YAML once and resolve local `$ref`s on demand. The emitters read the
 * parsed document through `Spec`, never the file, so every output comes from the same bytes.
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";

/** A JSON object from the spec. */
export type Json = Record<string, unknown>;

/** A generator failure with the JSON pointer of the spec node that caused it. */
export class SpecError extends Error {
  constructor(pointer: string, message: string) {
    super(`${pointer}: ${message}`);
    this.name = "SpecError";
  }
}

/** The parsed spec plus `$ref` resolution. */
export interface Spec {
  /** Path of the YAML file it was read from (for messages only). */
  readonly file: string;
  /** The parsed document, untouched (openapi-typescript reads it as-is). */
  readonly doc: Json;
  /** Follows `$ref` chains (local refs only) and returns the target object. */
  deref(node: unknown, pointer: string): Json;
}

export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Reads and parses an OpenAPI 3.1 YAML (or JSON) file. */
export function loadSpec(file: string): Spec {
  const text = readFileSync(file, "utf8");
  // uniqueKeys: a duplicated key is a spec bug that would silently drop an operation.
  const doc: unknown = parse(text, { uniqueKeys: true, maxAliasCount: -1 });
  if (!isObject(doc)) throw new SpecError("#", `${file} is not an OpenAPI document`);
  if (typeof doc.openapi !== "string" || !doc.openapi.startsWith("3.1")) {
    throw new SpecError("#/openapi", `expected OpenAPI 3.1.x, got ${JSON.stringify(doc.openapi)}`);
  }
  return createSpec(file, doc);
}

export function createSpec(file: string, doc: Json): Spec {
  const lookup = (ref: string, pointer: string): unknown => {
    if (!ref.startsWith("#/")) {
      // One self-contained file is the agreed layout; bundling external files is not needed.
      throw new SpecError(pointer, `only local $refs are supported, got ${ref}`);
    }
    let node: unknown = doc;
    for (const raw of ref.slice(2).split("/")) {
      const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
      if (!isObject(node) || !(key in node)) throw new SpecError(pointer, `unresolved $ref ${ref}`);
      node = node[key];
    }
    return node;
  };
  return {
    file,
    doc,
    deref(node, pointer) {
      let current = node;
      const seen = new Set<string>();
      while (isObject(current) && typeof current.$ref === "string") {
        if (seen.has(current.$ref)) throw new SpecError(pointer, `circular $ref ${current.$ref}`);
        seen.add(current.$ref);
        current = lookup(current.$ref, pointer);
      }
      if (!isObject(current)) throw new SpecError(pointer, "expected an object");
      return current;
    },
  };
}
