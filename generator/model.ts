/**
 * The operation model: one record per spec operation, in spec order (paths in document order, then
 * methods in path-item order). emit-operations and emit-client both read it, so the table and the
 * facade can never disagree about an operation.
 */
import { checkOperationContract } from "./cross-checks";
import { checkExtensions, checkOperationExtensions, checkRequestBodyExtensions, SCHEMA_EXTENSIONS } from "./extensions";
import { readHead } from "./head";
import { readRoleMarks, resolveRoles, type RoleMarks } from "./roles";
import { isObject, SpecError, type Json, type Spec } from "./spec";

const HTTP_METHODS = ["get", "put", "post", "delete", "patch"] as const;
const UNKNOWN_OUTCOME_POLICIES = ["resend", "reconcile", "report"] as const;
const PAGINATION_KINDS = ["links", "meta-only"] as const;
const PRODUCED_RESOURCES = ["order"] as const;

interface ParamModel {
  readonly name: string;
  readonly required: boolean;
  readonly description: string | undefined;
}

/** A path parameter plus whether its schema is `format: uuid` (A9). */
interface PathParamModel extends ParamModel {
  readonly uuid: boolean;
}

interface ResponseModel {
  /** Status code as written in the spec ("200", "204"). */
  readonly status: string;
  /** Whether it has an application/json body. */
  readonly json: boolean;
}

export interface OperationModel {
  readonly operationId: string;
  /** Part before the dot: the facade's resource group. */
  readonly resource: string;
  /** Part after the dot: the facade's method name. */
  readonly action: string;
  /** Lower-case key in the path item (schema.ts indexes paths by it). */
  readonly methodKey: (typeof HTTP_METHODS)[number];
  readonly path: string;
  /** JSON pointer of the operation, for error messages. */
  readonly pointer: string;
  readonly summary: string | undefined;
  readonly description: string | undefined;
  readonly pathParams: readonly PathParamModel[];
  readonly queryParams: readonly ParamModel[];
  readonly scopes: readonly string[];
  readonly idempotencyRequired: boolean;
  /** null without a requestBody. */
  readonly body: {
    readonly required: boolean;
    readonly json: boolean;
    /** `x-sensitive-fields` on the request body: fields a resend needs but nothing may keep after (H2). */
    readonly sensitiveFields: readonly string[];
  } | null;
  /** 2xx responses, ascending by status. */
  readonly successes: readonly ResponseModel[];
  readonly liveOnly: boolean;
  readonly asyncOperation: boolean;
  readonly pagination: (typeof PAGINATION_KINDS)[number] | null;
  readonly sensitiveFields: readonly string[];
  readonly unknownOutcome: (typeof UNKNOWN_OUTCOME_POLICIES)[number] | null;
  readonly malformedUuidStatus: 422 | 500 | null;
  readonly lockKey: { readonly from: "path" | "body"; readonly field: string; readonly prefix: string } | null;
  readonly teachesLimit: boolean;
  /** `x-produces-resource`: the kind of resource whose UUID a success's `data.uuid` is (F4). */
  readonly producesResource: (typeof PRODUCED_RESOURCES)[number] | null;
  /** The operation-role extensions it carries (roles.ts). */
  readonly roles: RoleMarks;
  /** A GET whose path also declares HEAD (the GET without a body, A7/D1); false for other methods. */
  readonly head: boolean;
}

/** JSON pointer segment escaping (RFC 6901). */
function pointerSegment(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Every operation of the spec, in spec order. */
export function readOperations(spec: Spec): OperationModel[] {
  const paths = spec.doc.paths;
  if (!isObject(paths)) throw new SpecError("#/paths", "the spec has no paths");
  const result: OperationModel[] = [];
  const seen = new Set<string>();
  for (const [path, rawItem] of Object.entries(paths)) {
    const itemPointer = `#/paths/${pointerSegment(path)}`;
    const item = spec.deref(rawItem, itemPointer);
    checkExtensions(item, [], itemPointer, "a path item");
    for (const methodKey of Object.keys(item)) {
      if (!(HTTP_METHODS as readonly string[]).includes(methodKey)) continue;
      const op = readOperation(
        spec,
        path,
        item,
        methodKey as OperationModel["methodKey"],
        `${itemPointer}/${methodKey}`,
      );
      if (seen.has(op.operationId)) throw new SpecError(op.pointer, `duplicate operationId ${op.operationId}`);
      seen.add(op.operationId);
      result.push(op);
    }
    if (item.head !== undefined && item.get === undefined)
      readHead(spec, item, itemPointer, null, readScopes, paramKeys);
  }
  checkSchemaExtensions(spec);
  resolveRoles(result); // throws on a duplicated, missing or misplaced role
  return result;
}

/** The extensions of components/schemas: only x-enum-const and x-error-statuses are read there. */
function checkSchemaExtensions(spec: Spec): void {
  const schemas = isObject(spec.doc.components) ? spec.doc.components.schemas : undefined;
  if (!isObject(schemas)) return;
  for (const [name, schema] of Object.entries(schemas)) {
    if (!isObject(schema)) continue;
    const at = `#/components/schemas/${pointerSegment(name)}`;
    checkExtensions(schema, SCHEMA_EXTENSIONS, at, "a components/schemas entry");
    const statuses = schema["x-error-statuses"];
    if (
      statuses !== undefined &&
      (!Array.isArray(statuses) ||
        statuses.length === 0 ||
        !statuses.every((s) => (Number.isInteger(s) && s >= 400 && s <= 599) || s === "4XX" || s === "5XX"))
    )
      throw new SpecError(`${at}/x-error-statuses`, "E4: expected a non-empty list of 4xx/5xx statuses, e.g. [409]");
  }
}

function readOperation(
  spec: Spec,
  path: string,
  item: Json,
  methodKey: OperationModel["methodKey"],
  pointer: string,
): OperationModel {
  const op = spec.deref(item[methodKey], pointer);
  const operationId = op.operationId;
  if (typeof operationId !== "string" || !/^[a-z][A-Za-z0-9]*\.[a-z][A-Za-z0-9]*$/.test(operationId)) {
    throw new SpecError(pointer, `operationId must look like "resource.action", got ${JSON.stringify(operationId)}`);
  }
  const [resource, action] = operationId.split(".") as [string, string];
  checkOperationExtensions(op, pointer);
  const params = readParameters(spec, item, op, pointer);
  const model: OperationModel = {
    operationId,
    resource,
    action,
    methodKey,
    path,
    pointer,
    summary: optionalString(op.summary, `${pointer}/summary`),
    description: optionalString(op.description, `${pointer}/description`),
    pathParams: readPathParams(path, params, pointer),
    queryParams: params.filter((p) => p.in === "query").map(({ model }) => model),
    scopes: readScopes(spec, op, pointer),
    idempotencyRequired: params.some((p) => p.in === "header" && p.model.name.toLowerCase() === "idempotency-key"),
    body: readBody(spec, op, pointer),
    successes: readSuccesses(spec, op, pointer),
    liveOnly: readFlag(op, "x-live-only", pointer),
    asyncOperation: readFlag(op, "x-async-operation", pointer),
    pagination: readEnum(op, "x-pagination", PAGINATION_KINDS, pointer),
    sensitiveFields: readStringList(op, "x-sensitive-fields", pointer),
    unknownOutcome: readEnum(op, "x-unknown-outcome", UNKNOWN_OUTCOME_POLICIES, pointer),
    malformedUuidStatus: readMalformedUuidStatus(op, pointer),
    lockKey: readLockKey(op, pointer),
    teachesLimit: readFlag(op, "x-teaches-limit", pointer),
    producesResource: readEnum(op, "x-produces-resource", PRODUCED_RESOURCES, pointer),
    roles: readRoleMarks(spec, op, pointer),
    head:
      methodKey === "get" &&
      readHead(
        spec,
        item,
        pointer.slice(0, pointer.lastIndexOf("/")),
        {
          operationId,
          scopes: readScopes(spec, op, pointer),
          params: paramKeys(spec, item, op, pointer),
          statuses: statusesOf(op),
          deprecated: op.deprecated === true,
        },
        readScopes,
        paramKeys,
      ),
  };
  checkOperationContract(spec, op, model);
  return model;
}

/** The statuses an operation's responses list, sorted (a HEAD must list the same as its GET). */
function statusesOf(op: Json): string[] {
  return isObject(op.responses) ? Object.keys(op.responses).sort() : [];
}

/** `in:name` of every parameter an operation takes (path-item ones included). */
function paramKeys(spec: Spec, item: Json, op: Json, pointer: string): string[] {
  return readParameters(spec, item, op, pointer).map((p) => `${p.in}:${p.model.name}`);
}

interface ResolvedParam {
  readonly in: string;
  readonly model: ParamModel;
  /** The parameter schema says `format: uuid`. */
  readonly uuid: boolean;
}

/** Path-item parameters merged with operation parameters; the operation wins on (name, in). */
function readParameters(spec: Spec, item: Json, op: Json, pointer: string): ResolvedParam[] {
  const merged = new Map<string, ResolvedParam>();
  const collect = (list: unknown, listPointer: string) => {
    if (list === undefined) return;
    if (!Array.isArray(list)) throw new SpecError(listPointer, "parameters must be an array");
    list.forEach((raw, index) => {
      const at = `${listPointer}/${index}`;
      const param = spec.deref(raw, at);
      if (typeof param.name !== "string" || typeof param.in !== "string") {
        throw new SpecError(at, "a parameter needs `name` and `in`");
      }
      const schema = isObject(param.schema) ? spec.deref(param.schema, `${at}/schema`) : {};
      merged.set(`${param.in}:${param.name}`, {
        in: param.in,
        uuid: schema.format === "uuid",
        model: {
          name: param.name,
          required: param.required === true,
          description: optionalString(param.description, `${at}/description`),
        },
      });
    });
  };
  collect(item.parameters, `${pointer.slice(0, pointer.lastIndexOf("/"))}/parameters`);
  collect(op.parameters, `${pointer}/parameters`);
  return [...merged.values()];
}

/** Path params in template order; every `{name}` must be declared and vice versa. */
function readPathParams(path: string, params: readonly ResolvedParam[], pointer: string): PathParamModel[] {
  const declared = params.filter((p) => p.in === "path").map((p) => ({ ...p.model, uuid: p.uuid }));
  const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  for (const p of declared) {
    if (!names.includes(p.name)) throw new SpecError(pointer, `path parameter ${p.name} is not in ${path}`);
  }
  return names.map((name) => {
    const param = declared.find((p) => p.name === name);
    if (!param) throw new SpecError(pointer, `{${name}} in ${path} has no path parameter`);
    // The facade passes path params as top-level args under the same name the table lists, so a
    // renamed (snake_case → camelCase) param would make the two disagree: require camelCase instead.
    if (!/^[a-z][A-Za-z0-9]*$/.test(name)) throw new SpecError(pointer, `path parameter ${name} must be camelCase`);
    return param;
  });
}

/** A6: scopes of the first security requirement (operation level, else the document default). */
function readScopes(spec: Spec, op: Json, pointer: string): string[] {
  const security = op.security ?? spec.doc.security;
  if (security === undefined) return [];
  if (!Array.isArray(security)) throw new SpecError(`${pointer}/security`, "security must be an array");
  const first: unknown = security[0];
  if (first === undefined) return [];
  if (!isObject(first)) throw new SpecError(`${pointer}/security/0`, "expected a security requirement");
  const scopes = first.bearerAuth;
  if (scopes === undefined) return [];
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === "string")) {
    throw new SpecError(`${pointer}/security/0/bearerAuth`, "scopes must be strings");
  }
  return scopes;
}

function readBody(spec: Spec, op: Json, pointer: string): OperationModel["body"] {
  if (op.requestBody === undefined) return null;
  const body = spec.deref(op.requestBody, `${pointer}/requestBody`);
  const content = isObject(body.content) ? body.content : {};
  // A2: the API takes JSON bodies only; anything else would need a transport this SDK does not have.
  if (!("application/json" in content))
    throw new SpecError(`${pointer}/requestBody`, "only application/json request bodies are supported");
  checkRequestBodyExtensions(body, `${pointer}/requestBody`);
  return {
    required: body.required === true,
    json: true,
    sensitiveFields: readStringList(body, "x-sensitive-fields", `${pointer}/requestBody`),
  };
}

function readSuccesses(spec: Spec, op: Json, pointer: string): ResponseModel[] {
  if (!isObject(op.responses)) throw new SpecError(`${pointer}/responses`, "an operation needs responses");
  const result: ResponseModel[] = [];
  for (const [status, raw] of Object.entries(op.responses)) {
    const response = spec.deref(raw, `${pointer}/responses/${status}`);
    checkExtensions(response, [], `${pointer}/responses/${status}`, "a response");
    if (!/^2\d\d$/.test(status)) continue;
    const content = isObject(response.content) ? response.content : {};
    result.push({ status, json: "application/json" in content });
  }
  if (result.length === 0) throw new SpecError(`${pointer}/responses`, "no 2xx response");
  return result.sort((a, b) => Number(a.status) - Number(b.status));
}

function optionalString(value: unknown, pointer: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") throw new SpecError(pointer, "expected a string");
  return value;
}

function readFlag(op: Json, key: string, pointer: string): boolean {
  const value = op[key];
  if (value === undefined) return false;
  if (typeof value !== "boolean") throw new SpecError(`${pointer}/${key}`, "expected true or false");
  return value;
}

function readEnum<T extends string>(op: Json, key: string, allowed: readonly T[], pointer: string): T | null {
  const value = op[key];
  if (value === undefined) return null;
  if (!allowed.includes(value as T)) {
    throw new SpecError(`${pointer}/${key}`, `expected one of ${allowed.join(", ")}, got ${JSON.stringify(value)}`);
  }
  return value as T;
}

function readStringList(op: Json, key: string, pointer: string): string[] {
  const value = op[key];
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    throw new SpecError(`${pointer}/${key}`, "expected an array of strings");
  }
  return value;
}

/** A9: 422 or 500, only meaningful on operations with a path parameter. */
function readMalformedUuidStatus(op: Json, pointer: string): 422 | 500 | null {
  const value = op["x-malformed-uuid-status"];
  if (value === undefined) return null;
  if (value !== 422 && value !== 500) {
    throw new SpecError(`${pointer}/x-malformed-uuid-status`, `expected 422 or 500, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** I6: `x-lock-key: {from: path | body, field, prefix}` — the lock key is `${prefix}:${lowercased value}`. */
function readLockKey(op: Json, pointer: string): OperationModel["lockKey"] {
  const value = op["x-lock-key"];
  if (value === undefined) return null;
  const at = `${pointer}/x-lock-key`;
  if (!isObject(value) || (value.from !== "path" && value.from !== "body"))
    throw new SpecError(at, "expected {from: path | body, field, prefix}");
  if (typeof value.field !== "string" || !value.field) throw new SpecError(`${at}/field`, "expected a field name");
  if (typeof value.prefix !== "string" || !/^[a-z][a-z-]*$/.test(value.prefix))
    throw new SpecError(`${at}/prefix`, "expected a lower-case prefix such as domain");
  return { from: value.from, field: value.field, prefix: value.prefix };
}
