/**
 * Extensions checked against the operation that carries them: a value of the right shape can still
 * name a field that is not there or sit on an operation it cannot apply to, and then the runtime guard
 * it stands for silently disappears (an I6 lock on a field no request has, an H2 redaction of a field
 * no response has). Each check throws a SpecError with the pointer and the fix.
 */
import { isObject, SpecError, type Json, type Spec } from "./spec";

/** What a walk over a schema reached: property name → its schemas, and every `$ref` followed. */
interface Reach {
  readonly properties: Map<string, unknown[]>;
  readonly refs: Set<string>;
}

/** Walks a schema through `$ref`, allOf/oneOf/anyOf, properties, items and additionalProperties. */
function reach(spec: Spec, node: unknown, pointer: string, into: Reach = newReach()): Reach {
  let current = node;
  while (isObject(current) && typeof current.$ref === "string") {
    if (into.refs.has(current.$ref)) return into;
    into.refs.add(current.$ref);
    current = spec.deref({ $ref: current.$ref }, pointer);
  }
  if (!isObject(current)) return into;
  for (const key of ["allOf", "oneOf", "anyOf", "prefixItems"] as const) {
    const list = current[key];
    if (Array.isArray(list)) list.forEach((part) => reach(spec, part, pointer, into));
  }
  for (const key of ["items", "additionalProperties", "not"] as const) reach(spec, current[key], pointer, into);
  if (isObject(current.properties)) {
    for (const [name, schema] of Object.entries(current.properties)) {
      into.properties.set(name, [...(into.properties.get(name) ?? []), schema]);
      reach(spec, schema, pointer, into);
    }
  }
  return into;
}

const newReach = (): Reach => ({ properties: new Map(), refs: new Set() });

/** The JSON schema of one response (through `$ref`), or undefined without an application/json body. */
function jsonSchemaOf(spec: Spec, raw: unknown, pointer: string): unknown {
  const response = spec.deref(raw, pointer);
  const content = isObject(response.content) ? response.content : {};
  const json = content["application/json"];
  return isObject(json) ? json.schema : undefined;
}

/** Everything the operation's 2xx JSON bodies reach (`status` limits it to one status). */
function successReach(spec: Spec, op: Json, pointer: string, status?: string): Reach {
  const into = newReach();
  const responses = isObject(op.responses) ? op.responses : {};
  for (const [code, raw] of Object.entries(responses)) {
    if (!/^2\d\d$/.test(code) || (status !== undefined && code !== status)) continue;
    const at = `${pointer}/responses/${code}`;
    reach(spec, jsonSchemaOf(spec, raw, at), `${at}/content/application~1json/schema`, into);
  }
  return into;
}

/** Top-level properties of the JSON request body (through `$ref` and allOf); null without a body. */
function requestBodyFields(spec: Spec, op: Json, pointer: string): string[] | null {
  if (op.requestBody === undefined) return null;
  const body = spec.deref(op.requestBody, `${pointer}/requestBody`);
  const json = isObject(body.content) ? body.content["application/json"] : undefined;
  const at = `${pointer}/requestBody/content/application~1json/schema`;
  const fields = (raw: unknown, seen: Set<unknown>): string[] => {
    if (raw === undefined || seen.has(raw)) return [];
    seen.add(raw);
    const schema = spec.deref(raw, at);
    const own = isObject(schema.properties) ? Object.keys(schema.properties) : [];
    return [...own, ...(Array.isArray(schema.allOf) ? schema.allOf.flatMap((part) => fields(part, seen)) : [])];
  };
  return isObject(json) ? fields(json.schema, new Set()) : [];
}

/** What the cross-checks need from the model, without importing it (model.ts calls in). */
interface Checked {
  readonly methodKey: string;
  readonly path: string;
  readonly pointer: string;
  readonly pathParams: readonly { readonly name: string; readonly uuid: boolean }[];
  readonly asyncOperation: boolean;
  readonly unknownOutcome: string | null;
  readonly malformedUuidStatus: number | null;
  readonly lockKey: { readonly from: "path" | "body"; readonly field: string } | null;
  readonly teachesLimit: boolean;
}

const WRITES = ["post", "put", "patch", "delete"];

/** I6: the field an `x-lock-key` names must exist where `from` says, or the lock would never be taken. */
function checkLockKey(spec: Spec, op: Json, m: Checked): void {
  if (!m.lockKey) return;
  const at = `${m.pointer}/x-lock-key/field`;
  const { from, field } = m.lockKey;
  if (from === "path") {
    const names = m.pathParams.map((p) => p.name);
    if (names.includes(field)) return;
    throw new SpecError(
      at,
      `I6: ${field} is not a path parameter of ${m.path} (it has ${names.join(", ") || "none"}), so no lock would ever be taken. ` +
        (names.length > 0
          ? `Fix: field: ${names[0]}, or from: body with a body property.`
          : "Fix: from: body with a body property."),
    );
  }
  const fields = requestBodyFields(spec, op, m.pointer);
  if (fields === null)
    throw new SpecError(
      at,
      `I6: from: body, but the operation has no requestBody, so no lock would ever be taken. Fix: from: path with one of its path parameters, or add the body property ${field}.`,
    );
  if (!fields.includes(field))
    throw new SpecError(
      at,
      `I6: the request body has no property ${field} (it has ${fields.join(", ") || "none"}), so no lock would ever be taken. Fix: name one of those properties, or add ${field} to the body schema.`,
    );
}

/** Per-operation placement checks of the flag and enum extensions. */
export function checkOperationContract(spec: Spec, op: Json, m: Checked): void {
  checkLockKey(spec, op, m);
  const write = WRITES.includes(m.methodKey);
  if (m.unknownOutcome !== null && !write)
    throw new SpecError(
      `${m.pointer}/x-unknown-outcome`,
      `E4/I4: x-unknown-outcome is only for writes (POST/PUT/PATCH/DELETE); a ${m.methodKey.toUpperCase()} is safe to repeat. Fix: remove it.`,
    );
  if (m.asyncOperation) {
    const responses = isObject(op.responses) ? op.responses : {};
    const accepted =
      responses["202"] !== undefined &&
      successReach(spec, op, m.pointer, "202").refs.has("#/components/schemas/Operation");
    if (!accepted)
      throw new SpecError(
        `${m.pointer}/x-async-operation`,
        "F1: x-async-operation: true needs a 202 response whose body is the Operation (data: $ref '#/components/schemas/Operation'), which the client polls. Fix: add that 202 response, or remove x-async-operation.",
      );
  }
  if (m.teachesLimit) {
    const credential = successReach(spec, op, m.pointer).properties.get("credential") ?? [];
    const teaches = credential.some((schema) => reach(spec, schema, m.pointer).properties.has("rate_limit_per_minute"));
    if (!teaches)
      throw new SpecError(
        `${m.pointer}/x-teaches-limit`,
        "A5/C1: x-teaches-limit: true, but no success body has credential.rate_limit_per_minute for the client to learn. Fix: remove x-teaches-limit (only context.get carries it).",
      );
  }
  if (m.malformedUuidStatus !== null && m.pathParams.length === 0)
    throw new SpecError(
      `${m.pointer}/x-malformed-uuid-status`,
      `A9: ${m.path} has no path parameter, so no malformed UUID can reach it. Fix: remove x-malformed-uuid-status.`,
    );
  const uuid = m.pathParams.find((p) => p.uuid);
  if (uuid && m.malformedUuidStatus === null)
    throw new SpecError(
      m.pointer,
      `A9: path parameter ${uuid.name} is a UUID (format: uuid), but the operation does not say how a malformed one is answered. Fix: add x-malformed-uuid-status: 422 or 500 (what the API returns).`,
    );
}

/**
 * H2: every name in a response's `x-sensitive-fields` is a property its success bodies have (a typo
 * would leave the real secret unredacted), and a response property that is sensitive elsewhere — or
 * is named like a secret — is marked sensitive here too.
 */
export function checkSensitiveFields(
  spec: Spec,
  ops: readonly {
    readonly operationId: string;
    readonly pointer: string;
    readonly raw: Json;
    readonly sensitiveFields: readonly string[];
  }[],
): void {
  const markedOn = new Map<string, string>();
  for (const op of ops) {
    const properties = successReach(spec, op.raw, op.pointer).properties;
    for (const field of op.sensitiveFields) {
      if (!properties.has(field))
        throw new SpecError(
          `${op.pointer}/x-sensitive-fields`,
          `H2: ${field} is not a property of any success body of ${op.operationId}, so the real secret would never be redacted. Fix: name the response property exactly (it has ${[...properties.keys()].slice(0, 12).join(", ") || "no JSON body"}).`,
        );
      if (!markedOn.has(field)) markedOn.set(field, op.operationId);
    }
  }
  for (const op of ops) {
    for (const name of successReach(spec, op.raw, op.pointer).properties.keys()) {
      if (op.sensitiveFields.includes(name)) continue;
      const elsewhere = markedOn.get(name);
      if (elsewhere === undefined && !SECRET_NAME.test(name)) continue;
      throw new SpecError(
        `${op.pointer}/x-sensitive-fields`,
        `H2: a success body of ${op.operationId} has ${name}, ${elsewhere ? `which is sensitive on ${elsewhere}` : "which is named like a secret"}, but ${op.operationId} does not list it. Fix: add ${name} to its x-sensitive-fields (or rename the field if it is not a secret).`,
      );
    }
  }
}

/** Response property names that are secrets whatever operation returns them (H2). */
const SECRET_NAME = /(^|_)(secret|password|passphrase|private_key|auth_code|api_key)$/;
