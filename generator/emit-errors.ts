/**
 * generated/errors.ts — the ErrorEnvelope (E1, E2) as a discriminated union on `code`, with typed
 * `details`, a full runtime validator (`parseApiError`) and one guard per code. Codes, members and
 * detail shapes come from the spec's ApiError `oneOf` + `discriminator`; nothing is hard-coded here.
 */
import { VariableDeclarationKind, type OptionalKind, type PropertySignatureStructure, type SourceFile } from "ts-morph";
import { objectShape, pinnedValue, propertyChecks, propertyKey, typeOf, type ObjectShape } from "./json-schema";
import { readErrorStatuses } from "./error-statuses";
import { docText, newSourceFile, pascalCase, render } from "./output";
import { isObject, SpecError, type Json, type Spec } from "./spec";

const ERRORS_EMITTER = "emit-errors.ts";

/** One `oneOf` member of ApiError. */
interface ErrorMember {
  readonly code: string;
  /** `ValidationFailedErrorBody` */
  readonly typeName: string;
  /** `isValidationFailed` */
  readonly guardName: string;
  readonly shape: ObjectShape;
  readonly pointer: string;
}

/** Emits generated/errors.ts and returns its text. */
export function emitErrors(spec: Spec): string {
  const members = readErrorMembers(spec);
  const common = commonProperties(members);
  const file = newSourceFile("errors.ts");
  addCodes(file, members);
  members.forEach((member) => addMemberInterface(file, spec, member));
  addUnknownCodeInterface(file, spec, members[0], common);
  addUnionAndEnvelope(file, members);
  addStatusMap(
    file,
    members,
    readErrorStatuses(
      spec,
      members.map((m) => m.code),
    ),
  );
  addRuntimeHelpers(file);
  addValidators(file, spec, members, common);
  addParseAndIsApiError(file);
  members.forEach((member) => addGuard(file, member));
  return render(file, ERRORS_EMITTER);
}

// ---------------------------------------------------------------- reading the spec

/** Finds the error union: ErrorEnvelope.properties.error, else components.schemas.ApiError. */
function findErrorUnion(spec: Spec): { schema: Json; pointer: string } {
  const schemas =
    isObject(spec.doc.components) && isObject(spec.doc.components.schemas) ? spec.doc.components.schemas : {};
  if (schemas.ErrorEnvelope !== undefined) {
    const pointer = "#/components/schemas/ErrorEnvelope";
    const envelope = objectShape(spec, schemas.ErrorEnvelope, pointer);
    const error = envelope.properties.find(([name]) => name === "error");
    if (!error) throw new SpecError(pointer, "ErrorEnvelope has no `error` property");
    const at = isObject(error[1]) && typeof error[1].$ref === "string" ? error[1].$ref : `${pointer}/properties/error`;
    return { schema: spec.deref(error[1], at), pointer: at };
  }
  if (schemas.ApiError !== undefined) {
    const pointer = "#/components/schemas/ApiError";
    return { schema: spec.deref(schemas.ApiError, pointer), pointer };
  }
  throw new SpecError("#/components/schemas", "neither ErrorEnvelope nor ApiError is defined");
}

function readErrorMembers(spec: Spec): ErrorMember[] {
  const { schema, pointer } = findErrorUnion(spec);
  const list = schema.oneOf ?? schema.anyOf;
  if (!Array.isArray(list) || list.length === 0)
    throw new SpecError(pointer, "the error schema must be a oneOf of one member per code");
  const discriminator = isObject(schema.discriminator) ? schema.discriminator : undefined;
  if (discriminator && discriminator.propertyName !== "code") {
    throw new SpecError(`${pointer}/discriminator`, "the discriminator must be `code`");
  }
  const mapping = discriminator && isObject(discriminator.mapping) ? discriminator.mapping : {};
  const members = list.map((raw, index) => {
    const at = isObject(raw) && typeof raw.$ref === "string" ? raw.$ref : `${pointer}/oneOf/${index}`;
    const shape = objectShape(spec, raw, at);
    const codeSchema = shape.properties.find(([name]) => name === "code")?.[1];
    const pinned = codeSchema === undefined ? undefined : pinnedValue(spec, codeSchema, `${at}/properties/code`);
    const mapped = Object.entries(mapping).find(([, ref]) => isObject(raw) && ref === raw.$ref)?.[0];
    const code = typeof pinned === "string" ? pinned : mapped;
    if (code === undefined)
      throw new SpecError(at, "cannot tell this member's code (no const/enum and no discriminator mapping)");
    if (typeof pinned === "string" && mapped !== undefined && mapped !== pinned) {
      throw new SpecError(at, `discriminator maps ${mapped} here but code is ${pinned}`);
    }
    const name = pascalCase(code);
    // A value shape, not a thrown class: internal_error → InternalErrorBody (not InternalErrorErrorBody);
    // the guard is always is + PascalCase(code).
    const typeName = `${name.endsWith("Error") ? name : `${name}Error`}Body`;
    return { code, typeName, guardName: `is${name}`, shape, pointer: at };
  });
  requireErrorStatuses(spec, list, members);
  const codes = members.map((m) => m.code);
  const duplicate = codes.find((code, i) => codes.indexOf(code) !== i);
  if (duplicate) throw new SpecError(pointer, `code ${duplicate} appears twice`);
  return members;
}

/**
 * E4: once a spec ties codes to statuses (`x-error-statuses` on a member), every member must: a new
 * code without it would sit in no per-status envelope and no `ApiErrorByStatus` entry. (A spec that
 * declares none, like the generator fixtures, gets the status map from its envelopes alone.)
 */
function requireErrorStatuses(spec: Spec, list: readonly unknown[], members: readonly ErrorMember[]): void {
  const declares = list.map((raw, i) => spec.deref(raw, members[i].pointer)["x-error-statuses"] !== undefined);
  if (!declares.includes(true)) return;
  const i = declares.indexOf(false);
  if (i < 0) return;
  const { code, pointer } = members[i];
  throw new SpecError(
    pointer,
    `E4: the ApiError member for ${code} has no x-error-statuses; every other member lists the statuses that carry its code. ` +
      `Fix: add x-error-statuses: [<status>, …] to it, a per-status envelope (${pascalCase(code)}Envelope) naming it, and $ref that envelope from those responses (docs/guides/regenerating.md).`,
  );
}

/** Properties every member has (other than code/details): the fallback member keeps and checks them. */
function commonProperties(members: readonly ErrorMember[]): ObjectShape {
  const first = members[0].shape;
  const properties = first.properties.filter(
    ([name]) =>
      name !== "code" && name !== "details" && members.every((m) => m.shape.properties.some(([n]) => n === name)),
  );
  const required = new Set(
    properties.map(([name]) => name).filter((name) => members.every((m) => m.shape.required.has(name))),
  );
  return { properties, required, additional: undefined, description: undefined };
}

// ---------------------------------------------------------------- types

function addCodes(file: SourceFile, members: readonly ErrorMember[]): void {
  file.addTypeAlias({
    isExported: true,
    name: "ApiErrorCode",
    docs: ["Every error `code` the spec defines (E4)."],
    type: (w) => members.forEach((m) => w.newLine().write(`| ${JSON.stringify(m.code)}`)),
  });
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: ["The known codes, in spec order."],
    declarations: [
      {
        name: "apiErrorCodes",
        type: "readonly ApiErrorCode[]",
        initializer: (w) => {
          w.write("[").indent(() => members.forEach((m) => w.writeLine(`${JSON.stringify(m.code)},`)));
          w.write("]");
        },
      },
    ],
  });
}

function propertyStructures(
  spec: Spec,
  shape: ObjectShape,
  pointer: string,
): OptionalKind<PropertySignatureStructure>[] {
  return shape.properties.map(([name, sub]) => {
    // A description next to a $ref (OpenAPI 3.1) describes this use; it wins over the target's.
    const own = isObject(sub) && typeof sub.description === "string" ? sub.description : undefined;
    const resolved = typeof sub === "boolean" ? {} : spec.deref(sub, `${pointer}/properties/${name}`);
    const text = own ?? (typeof resolved.description === "string" ? resolved.description : undefined);
    const description = text ? docText(text) : undefined;
    return {
      name: propertyKey(name),
      hasQuestionToken: !shape.required.has(name),
      type: typeOf(spec, sub, `${pointer}/properties/${name}`),
      docs: description ? [description] : [],
    };
  });
}

function addMemberInterface(file: SourceFile, spec: Spec, member: ErrorMember): void {
  const description = member.shape.description ? docText(member.shape.description) : `The \`${member.code}\` error.`;
  file.addInterface({
    isExported: true,
    name: member.typeName,
    docs: [description],
    properties: [
      // The code is the member's discriminator value even where the spec only pins it via the mapping.
      ...propertyStructures(spec, member.shape, member.pointer).map((p) =>
        p.name === "code" ? { ...p, hasQuestionToken: false, type: JSON.stringify(member.code) } : p,
      ),
      {
        name: "unknownCode",
        hasQuestionToken: true,
        type: "never",
        docs: ["Never set on a known code; `true` only on {@link UnknownCodeErrorBody}."],
      },
    ],
  });
}

/** The fallback member: a code this SDK version does not know yet keeps its code and raw details. */
function addUnknownCodeInterface(file: SourceFile, spec: Spec, first: ErrorMember, common: ObjectShape): void {
  file.addInterface({
    isExported: true,
    name: "UnknownCodeErrorBody",
    docs: [
      "An envelope whose `code` this SDK version does not know (a newer server). `code` and `details` are kept\n" +
        "as sent; `unknownCode: true` tells it apart, so after `if (error.unknownCode) …` the rest of the union\n" +
        "narrows on `code`.",
    ],
    properties: [
      ...propertyStructures(spec, first.shape, first.pointer)
        .filter(
          (p) =>
            p.name === "code" ||
            p.name === "details" ||
            common.properties.some(([name]) => propertyKey(name) === p.name),
        )
        .map((p) =>
          p.name === "code"
            ? {
                ...p,
                type: "string",
                docs: ["The code as the server sent it: one this SDK version does not know yet."],
              }
            : p.name === "details"
              ? {
                  ...p,
                  type: "unknown",
                  docs: ["`details` exactly as sent; its shape is unknown to this SDK version."],
                }
              : p,
        ),
      {
        name: "unknownCode",
        type: "true",
        docs: ["Marks the fallback member. Added by {@link parseApiError}; never sent by the API."],
      },
    ],
  });
}

function addUnionAndEnvelope(file: SourceFile, members: readonly ErrorMember[]): void {
  file.addTypeAlias({
    isExported: true,
    name: "ApiError",
    docs: ["The `error` object of an ErrorEnvelope, discriminated by `code` (E1)."],
    type: (w) =>
      [...members.map((m) => m.typeName), "UnknownCodeErrorBody"].forEach((name) => w.newLine().write(`| ${name}`)),
  });
  file.addInterface({
    isExported: true,
    name: "ErrorEnvelope",
    docs: ["The API's own error body (E1) — not application/problem+json."],
    properties: [{ name: "error", type: "ApiError" }],
  });
}

/** E4: status → the members it may carry (plus an unknown code), as a type and as a runtime table. */
function addStatusMap(
  file: SourceFile,
  members: readonly ErrorMember[],
  statuses: readonly [number, string[]][],
): void {
  const typeOfCode = (code: string) => members.find((m) => m.code === code)!.typeName;
  file.addInterface({
    isExported: true,
    name: "ApiErrorByStatus",
    docs: [
      "Per HTTP status the spec declares for errors, the error it may carry (E4): the codes its per-status\n" +
        "envelope names, or a code this SDK version does not know yet ({@link UnknownCodeErrorBody}).",
    ],
    properties: statuses.map(([status, codes]) => ({
      name: String(status),
      type: [...codes.map(typeOfCode), "UnknownCodeErrorBody"].join(" | "),
    })),
  });
  file.addTypeAlias({
    isExported: true,
    name: "ApiErrorStatus",
    docs: ["Every status the spec declares an error body for."],
    type: "keyof ApiErrorByStatus",
  });
  file.addTypeAlias({
    isExported: true,
    name: "ApiErrorOf",
    typeParameters: [{ name: "S", constraint: "number" }],
    docs: [
      "The error a response with status `S` may carry: that status's codes, or any code for a status the spec does not declare.",
    ],
    type: "S extends ApiErrorStatus ? ApiErrorByStatus[S] : ApiError",
  });
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: ["The same table at run time: status → the codes it may carry (E4)."],
    declarations: [
      {
        name: "apiErrorCodesByStatus",
        type: "Readonly<Record<ApiErrorStatus, readonly ApiErrorCode[]>>",
        initializer: (w) => {
          w.write("{").indent(() =>
            statuses.forEach(([status, codes]) =>
              w.writeLine(`${status}: [${codes.map((c) => JSON.stringify(c)).join(", ")}],`),
            ),
          );
          w.write("}");
        },
      },
    ],
  });
}

// ---------------------------------------------------------------- runtime

function addRuntimeHelpers(file: SourceFile): void {
  file.addFunction({
    name: "isRecord",
    parameters: [{ name: "value", type: "unknown" }],
    returnType: "value is Record<string, unknown>",
    statements: `return typeof value === "object" && value !== null && !Array.isArray(value);`,
  });
  file.addFunction({
    name: "isKnownCode",
    parameters: [{ name: "code", type: "string" }],
    returnType: "code is ApiErrorCode",
    statements: "return (apiErrorCodes as readonly string[]).includes(code);",
  });
}

/** One validator per member (the code is already matched) plus one for the fallback. */
function addValidators(file: SourceFile, spec: Spec, members: readonly ErrorMember[], common: ObjectShape): void {
  file.addVariableStatement({
    declarationKind: VariableDeclarationKind.Const,
    docs: ["Full shape checks per code, generated from the spec's member schemas (E2)."],
    declarations: [
      {
        name: "validators",
        type: "Record<ApiErrorCode, (e: Record<string, unknown>) => boolean>",
        initializer: (w) => {
          w.write("{").indent(() => {
            for (const m of members) {
              // The code was matched already, but it stays in the shape: a closed member lists it as a known key.
              const parts = propertyChecks(spec, m.shape, "e", m.pointer);
              w.writeLine(`${propertyKey(m.code)}: (e) =>`).indent(() => w.writeLine(`${conjunction(parts)},`));
            }
          });
          w.write("}");
        },
      },
    ],
  });
  file.addFunction({
    name: "isUnknownCodeShape",
    docs: ["The fallback keeps any `details` but still needs the fields every member has."],
    parameters: [{ name: "e", type: "Record<string, unknown>" }],
    returnType: "boolean",
    statements: `return (\n${conjunction(propertyChecks(spec, common, "e", members[0].pointer))}\n);`,
  });
}

/** `return a && b && …;` with one conjunct per line (the formatter keeps the breaks). */
function conjunction(parts: readonly string[]): string {
  return parts.length === 0 ? "true" : parts.join(" &&\n");
}

function addParseAndIsApiError(file: SourceFile): void {
  file.addFunction({
    isExported: true,
    name: "parseApiError",
    docs: [
      "Validates an unknown JSON value as an ErrorEnvelope and returns its `error`, or undefined when the\n" +
        "shape is wrong (HTML, a router's message-only body, a proxy's JSON — E5). Never throws. A well-formed\n" +
        "envelope with a code this version does not know becomes {@link UnknownCodeErrorBody}.",
    ],
    parameters: [{ name: "body", type: "unknown" }],
    returnType: "ApiError | undefined",
    statements: [
      "if (!isRecord(body) || !isRecord(body.error)) return undefined;",
      "const error = body.error;",
      `if (typeof error.code !== "string") return undefined;`,
      "if (isKnownCode(error.code)) return validators[error.code](error) ? (error as unknown as ApiError) : undefined;",
      "return isUnknownCodeShape(error) ? ({ ...error, unknownCode: true } as UnknownCodeErrorBody) : undefined;",
    ],
  });
  file.addFunction({
    isExported: true,
    name: "isApiError",
    docs: [
      "True when `body` is an ErrorEnvelope with a known code and a fully valid shape. For an unknown\n" +
        "(newer) code it is false — use {@link parseApiError}, which returns the {@link UnknownCodeErrorBody} fallback.",
    ],
    parameters: [{ name: "body", type: "unknown" }],
    returnType: "body is ErrorEnvelope",
    statements: ["const error = parseApiError(body);", "return error !== undefined && error.unknownCode !== true;"],
  });
}

function addGuard(file: SourceFile, member: ErrorMember): void {
  file.addFunction({
    isExported: true,
    name: member.guardName,
    docs: [`Narrows to {@link ${member.typeName}} (\`code: "${member.code}"\`).`],
    parameters: [{ name: "error", type: "ApiError" }],
    returnType: `error is ${member.typeName}`,
    statements: `return error.code === ${JSON.stringify(member.code)} && error.unknownCode !== true;`,
  });
}
