// Loads spec/openapi.yaml once and offers tiny helpers for the contract tests.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

export const root = fileURLToPath(new URL("../../", import.meta.url));
const specPath = `${root}spec/openapi.yaml`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the spec is plain JSON data; `any` keeps the assertions readable
export type Node = any;

export const spec: Node = parse(readFileSync(specPath, "utf8"));

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;
export const WRITE_METHODS = new Set(["post", "put", "patch", "delete"]);

export interface Op {
  id: string;
  method: string;
  path: string;
  op: Node;
}

const allOps: Op[] = Object.entries(spec.paths as Record<string, Node>).flatMap(([path, item]) =>
  METHODS.filter((m) => item[m]).map((method) => ({
    id: item[method].operationId as string,
    method,
    path,
    op: item[method],
  })),
);

/** The API's operations. A `head` is its path's GET without the body, not an operation of its own. */
export const ops: Op[] = allOps.filter((o) => o.method !== "head");
/** The HEAD mirrors (A7, D1). */
export const headOps: Op[] = allOps.filter((o) => o.method === "head");

export const opById = (id: string): Op => {
  const found = ops.find((o) => o.id === id);
  if (!found) throw new Error(`operation ${id} is not in the spec`);
  return found;
};

/** Follows a local `#/...` $ref (repeatedly) and returns the target node. */
export function deref(node: Node): Node {
  let current = node;
  for (let hops = 0; current && typeof current === "object" && typeof current.$ref === "string"; hops++) {
    if (hops > 20) throw new Error(`$ref loop at ${node.$ref}`);
    const ref: string = current.$ref;
    if (!ref.startsWith("#/")) throw new Error(`non-local $ref ${ref}`);
    current = ref
      .slice(2)
      .split("/")
      .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce((acc: Node, key) => (acc == null ? undefined : acc[key]), spec);
    if (current === undefined) throw new Error(`dangling $ref ${ref}`);
  }
  return current;
}

/** The operation's parameters, resolved. */
export const params = (o: Op): Node[] => (o.op.parameters ?? []).map(deref);

/** The operation's responses keyed by status, resolved. */
export const responses = (o: Op): Record<string, Node> =>
  Object.fromEntries(Object.entries(o.op.responses as Record<string, Node>).map(([k, v]) => [k, deref(v)]));

/** Every example value under a media type (`example` or `examples.*.value`). */
export const mediaExamples = (media: Node): unknown[] => [
  ...(media?.example !== undefined ? [media.example] : []),
  ...Object.values((media?.examples ?? {}) as Record<string, Node>).map((e) => deref(e).value),
];
