// Everything the spec can say comes from the spec: no operation id is written into client or emulator
// code outside generated/ — a fact like "this operation takes a per-domain lock" is an x-* extension
// the generator reads (x-lock-key, x-teaches-limit). Quoted ids only; comments may name operations.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { operationList, operationRoles, operationTable } from "../../generated/operations";
import { root } from "./spec-doc";

const FOLDERS = [
  "src",
  "core",
  "runner",
  "middleware",
  "recovery",
  "journal",
  "pacing",
  "stores",
  "otel",
  "cli",
  "emulator",
];

/**
 * The one site still naming operations: the emulator's handler registry, keyed by OperationId (tsc checks
 * it covers every operation). Every other "the operation that does X" is a role the spec declares
 * (x-poll-operation, x-reconcile-by, …), read through the generated `operationRoles`.
 */
const ALLOWED: Record<string, number> = {
  "emulator/resources/index.ts": operationList.length,
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.(ts|mts|js)$/.test(name) ? [path] : [];
  });
}

describe("no operation id hard-coded outside generated/", () => {
  it("J3: client and emulator code name operations only through the generated table", () => {
    const ids = operationList.map((op) => op.operationId.replace(".", "\\."));
    const quoted = new RegExp(`["'\`](${ids.join("|")})["'\`]`, "g");
    const found: Record<string, number> = {};
    for (const folder of FOLDERS)
      for (const file of files(join(root, folder))) {
        const code = readFileSync(file, "utf8")
          .replace(/\/\*[\s\S]*?\*\//g, "")
          .replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
        const hits = code.match(quoted)?.length ?? 0;
        if (hits > 0) found[relative(root, file)] = hits;
      }
    expect(found).toEqual(ALLOWED);
  });

  it("I6/A5: the lock key and the limit-teaching operation are spec extensions read into the table", () => {
    const locked = operationList.filter((op) => op.lockKey !== null).map((op) => [op.operationId, op.lockKey]);
    expect(locked).toEqual([
      ["domains.renew", { from: "path", field: "domainUuid", prefix: "domain" }],
      ["orders.create", { from: "body", field: "domain", prefix: "domain-name" }],
    ]);
    expect(operationList.filter((op) => op.teachesLimit).map((op) => op.operationId)).toEqual(["context.get"]);
    const middleware = readFileSync(join(root, "middleware/idempotency.ts"), "utf8");
    expect(middleware).toContain("op.lockKey");
  });

  it("F1/I4/F5/I6: every operation the client needs by role is a spec extension read into operationRoles", () => {
    expect(operationRoles).toEqual({
      pollOperation: "operations.get",
      reconcileLookup: "orders.list",
      domainOperations: "operations.list",
      domainRenewal: "domains.renew",
      domainList: "domains.list",
    });
    expect(operationList.filter((op) => op.producesResource !== null).map((op) => op.operationId)).toEqual([
      "orders.create",
    ]);
    expect(operationTable["orders.create"].unknownOutcome).toBe("reconcile");
    expect(operationTable[operationRoles.reconcileLookup].queryParams).toContain("external_id");
    expect(operationTable[operationRoles.domainOperations].queryParams).toContain("domain_uuid");
  });
});
