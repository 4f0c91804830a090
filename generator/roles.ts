/**
 * Operation roles: spec facts of the form "this is THE operation that does X" which client code needs
 * by name — the GET that polls a 202's Operation, the lookup that reconciles an order, … Each is an
 * x-* extension on exactly one operation; emit-operations writes them as `operationRoles`, so no code
 * outside generated/ spells an operation id. The client needs every role: a spec that declares any must
 * declare all (a generator fixture declares none and gets an empty `operationRoles`).
 */
import { isObject, SpecError, type Json, type Spec } from "./spec";

/** The per-operation facts a role check reads (a subset of OperationModel, so model.ts can call in). */
interface RoleOperation {
  readonly operationId: string;
  readonly pointer: string;
  readonly methodKey: string;
  readonly pathParams: readonly unknown[];
  readonly queryParams: readonly { readonly name: string }[];
  readonly asyncOperation: boolean;
  readonly pagination: string | null;
  readonly unknownOutcome: string | null;
  readonly lockKey: { readonly from: string } | null;
  readonly roles: RoleMarks;
}

/** The role extensions one operation carries, shape-checked. */
export interface RoleMarks {
  readonly pollOperation: boolean;
  /** `x-reconcile-by: {lookup, by}`. */
  readonly reconcileBy: { readonly lookup: string; readonly by: string; readonly bodyFields: readonly string[] } | null;
  /** `x-operations-of-domain: <query parameter>`. */
  readonly operationsOfDomain: string | null;
  readonly renewsDomain: boolean;
  readonly listsDomains: boolean;
}

/** Role name (the key of `operationRoles`) → extension, doc comment, and the check its carrier must pass. */
const ROLES = [
  {
    role: "pollOperation",
    extension: "x-poll-operation",
    marked: (m: RoleMarks) => m.pollOperation,
    doc: () => "x-poll-operation (F1, F3): the GET of one Operation by its UUID — how a client waits on every 202.",
    check: (op: RoleOperation) =>
      op.methodKey !== "get" || op.pathParams.length !== 1
        ? "must be a GET with exactly one path parameter (the Operation's UUID)"
        : undefined,
  },
  {
    role: "reconcileLookup",
    extension: "x-reconcile-by",
    marked: (m: RoleMarks) => m.reconcileBy !== null,
    // The role is the lookup the extension names, not the write that carries it.
    target: (m: RoleMarks) => m.reconcileBy?.lookup,
    doc: (op: RoleOperation) =>
      `x-reconcile-by on ${op.operationId} (I4, F5): the GET that finds what a write with an unknown outcome created, by \`${op.roles.reconcileBy?.by}\`.`,
    check: (op: RoleOperation, byId: ReadonlyMap<string, RoleOperation>) => {
      const by = op.roles.reconcileBy;
      if (!by) return undefined;
      if (op.unknownOutcome !== "reconcile") return "belongs on a write with x-unknown-outcome: reconcile";
      if (!by.bodyFields.includes(by.by)) return `the request body has no field ${by.by}`;
      const lookup = byId.get(by.lookup);
      if (!lookup) return `lookup ${by.lookup} is not an operation of this spec`;
      if (lookup.methodKey !== "get") return `lookup ${by.lookup} must be a GET`;
      if (!lookup.queryParams.some((p) => p.name === by.by))
        return `lookup ${by.lookup} has no query parameter ${by.by}`;
      return undefined;
    },
  },
  {
    role: "domainOperations",
    extension: "x-operations-of-domain",
    marked: (m: RoleMarks) => m.operationsOfDomain !== null,
    doc: (op: RoleOperation) =>
      `x-operations-of-domain (F5): lists one domain's Operations by \`${op.roles.operationsOfDomain}\`; recover() finds the Operation of a lost 202 there.`,
    check: (op: RoleOperation) =>
      op.methodKey !== "get" || !op.queryParams.some((p) => p.name === op.roles.operationsOfDomain)
        ? `must be a GET with the query parameter ${op.roles.operationsOfDomain}`
        : undefined,
  },
  {
    role: "domainRenewal",
    extension: "x-renews-domain",
    marked: (m: RoleMarks) => m.renewsDomain,
    doc: () =>
      "x-renews-domain (I6): the renewal of the one domain in its path; a domain's renewals are found in the journal by its lock key.",
    check: (op: RoleOperation) =>
      !op.asyncOperation || op.lockKey?.from !== "path"
        ? "must be an x-async-operation with an x-lock-key from its path"
        : undefined,
  },
  {
    role: "domainList",
    extension: "x-lists-domains",
    marked: (m: RoleMarks) => m.listsDomains,
    doc: () => "x-lists-domains: the cursor list of the reseller's domains (the CLI resolves names with it).",
    check: (op: RoleOperation) =>
      op.methodKey !== "get" || op.pagination === null ? "must be a GET with x-pagination" : undefined,
  },
] as const;

/** Reads and shape-checks the role extensions of one operation object. */
export function readRoleMarks(spec: Spec, op: Json, pointer: string): RoleMarks {
  const flag = (key: string) => {
    const value = op[key];
    if (value !== undefined && value !== true)
      throw new SpecError(`${pointer}/${key}`, "expected true (or leave it out)");
    return value === true;
  };
  const domainParam = op["x-operations-of-domain"];
  if (domainParam !== undefined && (typeof domainParam !== "string" || !domainParam))
    throw new SpecError(`${pointer}/x-operations-of-domain`, "expected the query parameter that filters by domain");
  return {
    pollOperation: flag("x-poll-operation"),
    reconcileBy: readReconcileBy(spec, op, pointer),
    operationsOfDomain: domainParam ?? null,
    renewsDomain: flag("x-renews-domain"),
    listsDomains: flag("x-lists-domains"),
  };
}

function readReconcileBy(spec: Spec, op: Json, pointer: string): RoleMarks["reconcileBy"] {
  const value = op["x-reconcile-by"];
  if (value === undefined) return null;
  const at = `${pointer}/x-reconcile-by`;
  if (!isObject(value) || typeof value.lookup !== "string" || typeof value.by !== "string" || !value.by)
    throw new SpecError(at, "expected {lookup: <operationId of a GET>, by: <body field = its query parameter>}");
  return { lookup: value.lookup, by: value.by, bodyFields: bodyFields(spec, op, pointer) };
}

/** Top-level properties of the JSON request body (through `$ref` and `allOf`). */
function bodyFields(spec: Spec, op: Json, pointer: string): string[] {
  if (op.requestBody === undefined) return [];
  const body = spec.deref(op.requestBody, `${pointer}/requestBody`);
  const json = isObject(body.content) ? body.content["application/json"] : undefined;
  const at = `${pointer}/requestBody/content/application~1json/schema`;
  const fields = (raw: unknown): string[] => {
    if (raw === undefined) return [];
    const schema = spec.deref(raw, at);
    const own = isObject(schema.properties) ? Object.keys(schema.properties) : [];
    return [...own, ...(Array.isArray(schema.allOf) ? schema.allOf.flatMap(fields) : [])];
  };
  return isObject(json) ? fields(json.schema) : [];
}

/** Role name → operationId, in ROLES order; throws on a duplicated, missing or misplaced role. */
export function resolveRoles(ops: readonly RoleOperation[]): { role: string; operationId: string; doc: string }[] {
  const byId = new Map(ops.map((op) => [op.operationId, op]));
  const found: { role: string; operationId: string; doc: string }[] = [];
  const missing: string[] = [];
  for (const spec of ROLES) {
    const carriers = ops.filter((op) => spec.marked(op.roles));
    if (carriers.length > 1)
      throw new SpecError(
        `${carriers[1].pointer}/${spec.extension}`,
        `${spec.extension} is on ${carriers.map((op) => op.operationId).join(" and ")}; exactly one operation plays this role`,
      );
    const op = carriers[0];
    if (!op) {
      missing.push(spec.extension);
      continue;
    }
    const problem = spec.check(op, byId);
    if (problem) throw new SpecError(`${op.pointer}/${spec.extension}`, `${op.operationId} ${problem}`);
    const target = "target" in spec ? spec.target(op.roles) : undefined;
    found.push({ role: spec.role, operationId: target ?? op.operationId, doc: spec.doc(op) });
  }
  if (found.length > 0 && missing.length > 0)
    throw new SpecError(
      "#/paths",
      `no operation has ${missing.join(", ")}: the client needs every operation role (${ROLES.map((r) => r.extension).join(", ")}) once a spec declares any`,
    );
  return found;
}
