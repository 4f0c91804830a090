/**
 * A small JSON Schema → TypeScript compiler for the subset the error envelope uses (const, enum,
 * type, oneOf/anyOf/allOf, object properties/required/additionalProperties, array items/min/maxItems,
 * $ref). It emits both a type expression and a runtime check expression from the same schema, so the
 * generated types and validators cannot drift apart.
 */
import { isObject, SpecError, type Json, type Spec } from "./spec";

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A schema node after `$ref` resolution; `true`/`false` boolean schemas are kept as-is. */
type Node = Json | boolean;

function resolve(spec: Spec, node: unknown, pointer: string): Node {
  if (typeof node === "boolean") return node;
  return spec.deref(node, pointer);
}

/** An object schema with its allOf parts merged. */
export interface ObjectShape {
  readonly properties: readonly (readonly [name: string, schema: unknown])[];
  readonly required: ReadonlySet<string>;
  /** undefined: not constrained; false: closed; otherwise the schema of extra values. */
  readonly additional: unknown;
  readonly description: string | undefined;
}

/** Merges `allOf` parts and the node's own properties (later parts override earlier ones). */
export function objectShape(spec: Spec, node: unknown, pointer: string): ObjectShape {
  const schema = resolve(spec, node, pointer);
  if (typeof schema === "boolean") throw new SpecError(pointer, "expected an object schema");
  const properties = new Map<string, unknown>();
  const required = new Set<string>();
  let additional: unknown;
  const parts = Array.isArray(schema.allOf) ? schema.allOf : [];
  parts.forEach((part, index) => {
    const shape = objectShape(spec, part, `${pointer}/allOf/${index}`);
    for (const [name, sub] of shape.properties) properties.set(name, sub);
    shape.required.forEach((name) => required.add(name));
    if (shape.additional !== undefined) additional = shape.additional;
  });
  if (isObject(schema.properties))
    for (const [name, sub] of Object.entries(schema.properties)) properties.set(name, sub);
  if (Array.isArray(schema.required))
    for (const name of schema.required) if (typeof name === "string") required.add(name);
  if (schema.additionalProperties !== undefined) additional = schema.additionalProperties;
  const description = typeof schema.description === "string" ? schema.description : undefined;
  return { properties: [...properties], required, additional, description };
}

/** The literal value a schema pins (`const` or a one-value `enum`), if any. */
export function pinnedValue(spec: Spec, node: unknown, pointer: string): unknown {
  const schema = resolve(spec, node, pointer);
  if (typeof schema === "boolean") return undefined;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length === 1) return schema.enum[0];
  return undefined;
}

function typesOf(schema: Json): string[] {
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === "string");
  if (typeof schema.type === "string") return [schema.type];
  if (schema.properties !== undefined || schema.additionalProperties !== undefined) return ["object"];
  if (schema.items !== undefined) return ["array"];
  return [];
}

function literal(value: unknown, pointer: string): string {
  if (value === null || ["string", "number", "boolean"].includes(typeof value)) return JSON.stringify(value);
  throw new SpecError(pointer, "only primitive const/enum values are supported");
}

function union(parts: readonly string[]): string {
  const unique = [...new Set(parts)];
  return unique.length === 0 ? "never" : unique.join(" | ");
}

function wrap(type: string): string {
  return /[|&]/.test(type) ? `(${type})` : type;
}

/** The property key as written in TS: bare identifier or a quoted string. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** Property access on an expression: `e.name` or `e["na-me"]`. */
function access(expr: string, name: string): string {
  return IDENTIFIER.test(name) ? `${expr}.${name}` : `${expr}[${JSON.stringify(name)}]`;
}

// ---------------------------------------------------------------- types

/** TypeScript type expression for a schema. */
export function typeOf(spec: Spec, node: unknown, pointer: string): string {
  const schema = resolve(spec, node, pointer);
  if (schema === true) return "unknown";
  if (schema === false) return "never";
  if ("const" in schema) return literal(schema.const, `${pointer}/const`);
  if (Array.isArray(schema.enum)) return union(schema.enum.map((v) => literal(v, `${pointer}/enum`)));
  for (const key of ["oneOf", "anyOf"] as const) {
    const list = schema[key];
    if (Array.isArray(list)) return union(list.map((sub, i) => typeOf(spec, sub, `${pointer}/${key}/${i}`)));
  }
  if (Array.isArray(schema.allOf)) return objectType(spec, objectShape(spec, schema, pointer), pointer);
  const types = typesOf(schema);
  if (types.length === 0) return "unknown";
  return union(types.map((type) => typeForType(spec, schema, type, pointer)));
}

function typeForType(spec: Spec, schema: Json, type: string, pointer: string): string {
  switch (type) {
    case "string":
      return "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array":
      // E2: an always-empty array (`maxItems: 0`) is the empty tuple, so `details: []` reads as it is sent.
      if (schema.maxItems === 0) return "[]";
      return `${wrap(schema.items === undefined ? "unknown" : typeOf(spec, schema.items, `${pointer}/items`))}[]`;
    case "object":
      return objectType(spec, objectShape(spec, schema, pointer), pointer);
    default:
      throw new SpecError(`${pointer}/type`, `unsupported type ${type}`);
  }
}

function objectType(spec: Spec, shape: ObjectShape, pointer: string): string {
  const extra =
    shape.additional === undefined || shape.additional === true
      ? "unknown"
      : shape.additional === false
        ? undefined
        : typeOf(spec, shape.additional, `${pointer}/additionalProperties`);
  if (shape.properties.length === 0) return `Record<string, ${extra ?? "never"}>`;
  const members = shape.properties.map(([name, sub]) => {
    const optional = shape.required.has(name) ? "" : "?";
    return `${propertyKey(name)}${optional}: ${typeOf(spec, sub, `${pointer}/properties/${name}`)}`;
  });
  // An open object keeps its index signature only when it constrains the extra values.
  if (extra !== undefined && extra !== "unknown") members.push(`[key: string]: ${extra}`);
  return `{ ${members.join("; ")} }`;
}

// ---------------------------------------------------------------- runtime checks

/**
 * A boolean expression that is true when `expr` (an identifier or property path typed `unknown`)
 * matches the schema. `depth` names the callback variables of nested arrays/maps (v1, v2, …).
 * The generated file must define `isRecord(value): value is Record<string, unknown>`.
 */
function checkOf(spec: Spec, node: unknown, expr: string, pointer: string, depth = 0): string {
  const schema = resolve(spec, node, pointer);
  if (schema === true) return "true";
  if (schema === false) return "false";
  if ("const" in schema) return `${expr} === ${literal(schema.const, `${pointer}/const`)}`;
  if (Array.isArray(schema.enum)) {
    return `(${schema.enum.map((v) => `${expr} === ${literal(v, `${pointer}/enum`)}`).join(" || ")})`;
  }
  for (const key of ["oneOf", "anyOf"] as const) {
    const list = schema[key];
    if (Array.isArray(list)) {
      return `(${list.map((sub, i) => checkOf(spec, sub, expr, `${pointer}/${key}/${i}`, depth)).join(" || ")})`;
    }
  }
  if (Array.isArray(schema.allOf)) return objectCheck(spec, objectShape(spec, schema, pointer), expr, pointer, depth);
  const types = typesOf(schema);
  if (types.length === 0) return "true";
  const checks = types.map((type) => checkForType(spec, schema, type, expr, pointer, depth));
  return checks.length === 1 ? checks[0] : `(${checks.join(" || ")})`;
}

function checkForType(spec: Spec, schema: Json, type: string, expr: string, pointer: string, depth: number): string {
  switch (type) {
    case "string":
      return `typeof ${expr} === "string"`;
    case "integer":
    case "number":
      return numberCheck(schema, type, expr);
    case "boolean":
      return `typeof ${expr} === "boolean"`;
    case "null":
      return `${expr} === null`;
    case "array": {
      const parts = [`Array.isArray(${expr})`];
      if (typeof schema.minItems === "number" && schema.minItems > 0)
        parts.push(`${expr}.length >= ${schema.minItems}`);
      if (schema.maxItems === 0) parts.push(`${expr}.length === 0`);
      else if (typeof schema.maxItems === "number") parts.push(`${expr}.length <= ${schema.maxItems}`);
      if (schema.items !== undefined && schema.maxItems !== 0) {
        const v = `v${depth + 1}`;
        const inner = checkOf(spec, schema.items, v, `${pointer}/items`, depth + 1);
        if (inner !== "true") parts.push(`${expr}.every((${v}: unknown) => ${inner})`);
      }
      return `(${parts.join(" && ")})`;
    }
    case "object":
      return objectCheck(spec, objectShape(spec, schema, pointer), expr, pointer, depth);
    default:
      throw new SpecError(`${pointer}/type`, `unsupported type ${type}`);
  }
}

function objectCheck(spec: Spec, shape: ObjectShape, expr: string, pointer: string, depth: number): string {
  return `(${[`isRecord(${expr})`, ...propertyChecks(spec, shape, expr, pointer, depth)].join(" && ")})`;
}

/** The conjuncts checking the properties of `expr`, already known to be a record. */
export function propertyChecks(spec: Spec, shape: ObjectShape, expr: string, pointer: string, depth = 0): string[] {
  const parts: string[] = [];
  for (const [name, sub] of shape.properties) {
    const value = access(expr, name);
    const check = checkOf(spec, sub, value, `${pointer}/properties/${name}`, depth);
    if (shape.required.has(name)) {
      // Every check other than "true" already rejects undefined, so `in` is only needed for `{}` schemas.
      parts.push(check === "true" ? `${JSON.stringify(name)} in ${expr}` : check);
    } else if (check !== "true") {
      parts.push(`(${value} === undefined || ${check})`);
    }
  }
  if (shape.additional !== undefined && shape.additional !== true) {
    const known = JSON.stringify(shape.properties.map(([name]) => name));
    const k = `k${depth + 1}`;
    const v = `v${depth + 1}`;
    const inner =
      shape.additional === false
        ? "false"
        : checkOf(spec, shape.additional, v, `${pointer}/additionalProperties`, depth + 1);
    if (inner === "false") {
      parts.push(`Object.keys(${expr}).every((${k}) => ${known}.includes(${k}))`);
    } else if (inner !== "true" && shape.properties.length === 0) {
      parts.push(`Object.values(${expr}).every((${v}: unknown) => ${inner})`);
    } else if (inner !== "true") {
      parts.push(`Object.entries(${expr}).every(([${k}, ${v}]) => ${known}.includes(${k}) || ${inner})`);
    }
  }
  return parts;
}

/** `Number.isInteger`/`isFinite` plus the schema's bounds (e.g. C11: retry_after ≥ 0). */
function numberCheck(schema: Json, type: string, expr: string): string {
  const parts = [type === "integer" ? `Number.isInteger(${expr})` : `Number.isFinite(${expr})`];
  const bound = (key: string, op: string) => {
    if (typeof schema[key] === "number") parts.push(`(${expr} as number) ${op} ${schema[key]}`);
  };
  bound("minimum", ">=");
  bound("maximum", "<=");
  bound("exclusiveMinimum", ">");
  bound("exclusiveMaximum", "<");
  return parts.length === 1 ? parts[0] : `(${parts.join(" && ")})`;
}
