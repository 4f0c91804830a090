// Operation roles (generator/roles.ts): each "the operation that does X" fact is an x-* extension on one
// operation of the spec, emitted as `operationRoles`. The real spec, changed one fact at a time, must
// fail generation with a message naming the extension and the fix.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { emitOperations } from "../../generator/emit-operations";
import { readOperations } from "../../generator/model";
import { createSpec, loadSpec, type Json } from "../../generator/spec";
import { ROOT } from "./support";

const REAL = loadSpec(join(ROOT, "spec/openapi.yaml")).doc;

/** The real spec's operation `method path`, in a fresh copy of the document, changed by `edit`. */
function realWith(edits: Record<string, Edit>): Json {
  const doc = structuredClone(REAL);
  for (const [at, edit] of Object.entries(edits)) {
    const [method, path] = at.split(" ");
    edit(((doc.paths as Json)[path] as Json)[method] as Json);
  }
  return doc;
}

type Edit = (op: Json) => void;
const set =
  (key: string, value: unknown): Edit =>
  (op) => {
    op[key] = value;
  };
const drop =
  (key: string): Edit =>
  (op) => {
    Reflect.deleteProperty(op, key);
  };
const read = (doc: Json) => readOperations(createSpec("inline.yaml", doc));

describe("operation roles from the spec's extensions", () => {
  it("F1/I4/F5/I6: the real spec's roles are emitted as typed constants with their extension", () => {
    const text = emitOperations(createSpec("openapi.yaml", structuredClone(REAL)));
    expect(text).toContain('  pollOperation: "operations.get",');
    expect(text).toContain('  reconcileLookup: "orders.list",');
    expect(text).toContain('  domainOperations: "operations.list",');
    expect(text).toContain('  domainRenewal: "domains.renew",');
    expect(text).toContain('  domainList: "domains.list",');
    expect(text).toContain("/** x-reconcile-by on orders.create (I4, F5):");
    expect(text).toContain("} as const satisfies Record<string, OperationId>;");
    expect(text).toContain("export type OperationOfRole<R extends OperationRole> = (typeof operationRoles)[R];");
  });

  it("a spec declaring no role (a generator fixture) gets an empty operationRoles", () => {
    const doc = realWith({
      "get /operations/{operationUuid}": drop("x-poll-operation"),
      "get /operations": drop("x-operations-of-domain"),
      "post /orders": drop("x-reconcile-by"),
      "post /domains/{domainUuid}/renew": drop("x-renews-domain"),
      "get /domains": drop("x-lists-domains"),
    });
    expect(emitOperations(createSpec("inline.yaml", doc))).toContain(
      "export const operationRoles = {} as const satisfies Record<string, OperationId>;",
    );
  });

  it.each([
    [
      "a missing role",
      { "get /operations/{operationUuid}": drop("x-poll-operation") },
      "#/paths: no operation has x-poll-operation: the client needs every operation role",
    ],
    [
      "a duplicated role",
      { "get /orders/{orderUuid}": set("x-poll-operation", true) },
      "x-poll-operation is on orders.get and operations.get; exactly one operation plays this role",
    ],
    [
      "a lookup that is not an operation",
      { "post /orders": set("x-reconcile-by", { lookup: "orders.find", by: "external_id" }) },
      "#/paths/~1orders/post/x-reconcile-by: orders.create lookup orders.find is not an operation of this spec",
    ],
    [
      "a lookup without the query parameter",
      { "post /orders": set("x-reconcile-by", { lookup: "orders.list", by: "domain" }) },
      "orders.create lookup orders.list has no query parameter domain",
    ],
    [
      "a lookup that is not a GET",
      { "post /orders": set("x-reconcile-by", { lookup: "quotes.create", by: "external_id" }) },
      "lookup quotes.create must be a GET",
    ],
    [
      "a reconcile key the write's body does not carry",
      {
        "post /orders": set("x-reconcile-by", { lookup: "operations.list", by: "domain_uuid" }),
      },
      "orders.create the request body has no field domain_uuid",
    ],
    [
      "x-reconcile-by on a write that is not reconciled",
      {
        "post /orders": set("x-unknown-outcome", "report"),
      },
      "orders.create belongs on a write with x-unknown-outcome: reconcile",
    ],
    [
      "x-reconcile-by of the wrong shape",
      { "post /orders": set("x-reconcile-by", "external_id") },
      "x-reconcile-by: expected {lookup: <operationId of a GET>, by: <body field = its query parameter>}",
    ],
    [
      "a poll operation that is not a GET of one Operation",
      {
        "get /operations/{operationUuid}": drop("x-poll-operation"),
        "get /operations": set("x-poll-operation", true),
      },
      "operations.list must be a GET with exactly one path parameter",
    ],
    [
      "a domain-operations list without its filter",
      { "get /operations": set("x-operations-of-domain", "domain") },
      "operations.list must be a GET with the query parameter domain",
    ],
    [
      "a renewal without a per-domain lock",
      { "post /domains/{domainUuid}/renew": drop("x-lock-key") },
      "domains.renew must be an x-async-operation with an x-lock-key from its path",
    ],
    [
      "a domain list that is not a cursor list",
      {
        "get /domains": drop("x-lists-domains"),
        "get /domains/{domainUuid}": set("x-lists-domains", true),
      },
      "domains.get must be a GET with x-pagination",
    ],
    [
      "a role flag that is not true",
      { "get /domains": set("x-lists-domains", false) },
      "#/paths/~1domains/get/x-lists-domains: expected true (or leave it out)",
    ],
    [
      "x-produces-resource out of vocabulary",
      { "post /orders": set("x-produces-resource", "invoice") },
      "#/paths/~1orders/post/x-produces-resource: expected one of order",
    ],
  ] as const)("rejects %s with the spec pointer and the rule", (_name, edits, message) => {
    expect(() => read(realWith(edits))).toThrow(message);
  });
});
