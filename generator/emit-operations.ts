/**
 * generated/operations.ts — the operations table keyed by operationId. Values come from the spec:
 * method and path, parameters, the bearerAuth scopes, the Idempotency-Key header, requestBody, the
 * 2xx responses, the x-* extensions (absent → false / null / []) and whether HEAD mirrors a GET.
 */
import { StructureKind, VariableDeclarationKind, type CodeBlockWriter, type SourceFile } from "ts-morph";
import { readOperations, type OperationModel } from "./model";
import { newSourceFile, render } from "./output";
import { resolveRoles } from "./roles";
import { isObject, SpecError, type Spec } from "./spec";

const OPERATIONS_EMITTER = "emit-operations.ts";

/** Emits generated/operations.ts and returns its text. */
export function emitOperations(spec: Spec, ops: readonly OperationModel[] = readOperations(spec)): string {
  const file = newSourceFile("operations.ts");
  addOperationId(file, ops);
  addVocabulary(file);
  addOperationMeta(file);
  addOperationsTable(file, ops);
  addOperationList(file);
  addOperationRoles(file, ops);
  addEnumConsts(file, spec);
  return render(file, OPERATIONS_EMITTER);
}

/**
 * `x-enum-const: name` on a string-enum schema: the enum's values as a runtime constant, so code that
 * must enforce or offer them (the emulator's webhook events) reads the spec's list, never a copy.
 */
function addEnumConsts(file: SourceFile, spec: Spec): void {
  const schemas =
    isObject(spec.doc.components) && isObject(spec.doc.components.schemas) ? spec.doc.components.schemas : {};
  for (const [name, raw] of Object.entries(schemas)) {
    const pointer = `#/components/schemas/${name}`;
    const schema = spec.deref(raw, pointer);
    const constName = schema["x-enum-const"];
    if (constName === undefined) continue;
    if (typeof constName !== "string" || !/^[a-z][A-Za-z0-9]*$/.test(constName))
      throw new SpecError(`${pointer}/x-enum-const`, "expected a camelCase constant name");
    const values = schema.enum;
    if (schema.type !== "string" || !Array.isArray(values) || !values.every((v) => typeof v === "string"))
      throw new SpecError(`${pointer}/x-enum-const`, "only a string enum can be a constant");
    file.addVariableStatement({
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: [`The values of \`components.schemas.${name}\`, in spec order (x-enum-const).`],
      declarations: [{ name: constName, initializer: `[${values.map((v) => JSON.stringify(v)).join(", ")}] as const` }],
    });
  }
}

function addOperationId(file: SourceFile, ops: readonly OperationModel[]): void {
  file.addTypeAlias({
    isExported: true,
    name: "OperationId",
    docs: ["Every operationId in the Reseller API v1 spec."],
    type: (w) => {
      for (const op of ops) w.newLine().write(`| ${JSON.stringify(op.operationId)}`);
    },
  });
}

/** The closed vocabularies of the table; the model rejects spec values outside them. */
function addVocabulary(file: SourceFile): void {
  file.addTypeAliases([
    {
      isExported: true,
      name: "HttpMethod",
      docs: ["HTTP method of an operation."],
      type: `"GET" | "POST" | "PUT" | "PATCH" | "DELETE"`,
    },
    {
      isExported: true,
      name: "UnknownOutcomePolicy",
      docs: ["What a client may do after a timeout or 5xx on a write (spec extension `x-unknown-outcome`)."],
      type: `"resend" | "reconcile" | "report"`,
    },
    {
      isExported: true,
      name: "PaginationKind",
      docs: ["Pagination shape of a list operation (spec extension `x-pagination`, H1)."],
      type: `"links" | "meta-only"`,
    },
    {
      isExported: true,
      name: "LockKeySpec",
      docs: [
        "Spec extension `x-lock-key` (I6): the lock key is `${prefix}:${value}` with the value (lower-cased) of\n" +
          "`field` in the path parameters or the JSON body.",
      ],
      type: `{ readonly from: "path" | "body"; readonly field: string; readonly prefix: string }`,
    },
    {
      isExported: true,
      name: "ProducedResource",
      docs: ["Spec extension `x-produces-resource`: the kind of resource a success's `data.uuid` identifies (F4)."],
      type: `"order"`,
    },
  ]);
}

const META_FIELDS: readonly (readonly [name: string, type: string, doc: string])[] = [
  ["operationId", "OperationId", `The spec's operationId, e.g. "domains.renew".`],
  ["method", "HttpMethod", "HTTP method."],
  ["path", "string", `Path template relative to the base path /api/reseller/v1, e.g. "/domains/{domainUuid}/renew".`],
  ["pathParams", "readonly string[]", "Names of the path parameters, in template order (all are UUIDs)."],
  ["queryParams", "readonly string[]", "Names of the query parameters."],
  ["scopes", "readonly string[]", "Scopes required together (logical AND, A6); empty for context.get."],
  [
    "idempotencyRequired",
    "boolean",
    "Whether the Idempotency-Key header is required (every POST/PUT/PATCH/DELETE, D1).",
  ],
  ["hasBody", "boolean", "Whether a request body is defined (JSON). Operations without one send no body at all (D4)."],
  ["liveOnly", "boolean", "Live credentials only (B1, B3): a test key gets 403."],
  ["asyncOperation", "boolean", "Answers 202 with an Operation resource bound durably to its key (F1, D7)."],
  ["pagination", "PaginationKind | null", "Cursor pagination kind, or null for non-list operations (H1)."],
  [
    "sensitiveFields",
    "readonly string[]",
    "Response fields that are secrets and must never be logged or journalled (D9, H2).",
  ],
  [
    "requestSensitiveFields",
    "readonly string[]",
    "Request body fields a resend needs but nothing may keep once the command is settled (H2): the journal drops such a body at settle.",
  ],
  ["successStatuses", "readonly number[]", "2xx statuses the operation documents."],
  ["unknownOutcome", "UnknownOutcomePolicy | null", "Unknown-outcome policy for writes; null for GET."],
  [
    "malformedUuidStatus",
    "422 | 500 | null",
    "A9: the status a malformed (non-UUID) path parameter gets today, 422 or 500; null without one.",
  ],
  [
    "lockKey",
    "LockKeySpec | null",
    "I6 (x-lock-key): where the per-domain lock key comes from — one in-flight command per domain; null = no lock.",
  ],
  [
    "teachesLimit",
    "boolean",
    "A5/C1 (x-teaches-limit): a success carries the key's `credential.rate_limit_per_minute`, learned by the client.",
  ],
  [
    "producesResource",
    "ProducedResource | null",
    "F4 (x-produces-resource): a success's `data.uuid` is a new resource of this kind, kept with the command; null = none.",
  ],
  [
    "head",
    "boolean",
    "A7/D1: the spec also declares HEAD on this GET's path — the same checks, status and headers, no body.",
  ],
];

function addOperationMeta(file: SourceFile): void {
  file.addInterface({
    isExported: true,
    name: "OperationMeta",
    docs: ["Machine-readable facts about one operation, read from the spec by the generator."],
    properties: META_FIELDS.map(([name, type, doc]) => ({
      kind: StructureKind.PropertySignature,
      name,
      type,
      isReadonly: true,
      docs: [doc],
    })),
  });
}

function addOperationsTable(file: SourceFile, ops: readonly OperationModel[]): void {
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: ["The operations table, keyed by operationId."],
    declarations: [
      {
        name: "operationTable",
        initializer: (w) => {
          w.write("{").indent(() => ops.forEach((op) => writeOperationEntry(w, op)));
          w.write("} as const satisfies Record<OperationId, OperationMeta>");
        },
      },
    ],
  });
}

/** One table row; field order follows OperationMeta. */
function writeOperationEntry(w: CodeBlockWriter, op: OperationModel): void {
  const list = (items: readonly (string | number)[]) => `[${items.map((i) => JSON.stringify(i)).join(", ")}]`;
  const fields: readonly (readonly [string, string])[] = [
    ["operationId", JSON.stringify(op.operationId)],
    ["method", JSON.stringify(op.methodKey.toUpperCase())],
    ["path", JSON.stringify(op.path)],
    ["pathParams", list(op.pathParams.map((p) => p.name))],
    ["queryParams", list(op.queryParams.map((p) => p.name))],
    ["scopes", list(op.scopes)],
    ["idempotencyRequired", String(op.idempotencyRequired)],
    ["hasBody", String(op.body !== null)],
    ["liveOnly", String(op.liveOnly)],
    ["asyncOperation", String(op.asyncOperation)],
    ["pagination", JSON.stringify(op.pagination)],
    ["sensitiveFields", list(op.sensitiveFields)],
    ["requestSensitiveFields", list(op.body?.sensitiveFields ?? [])],
    ["successStatuses", list(op.successes.map((s) => Number(s.status)))],
    ["unknownOutcome", JSON.stringify(op.unknownOutcome)],
    ["malformedUuidStatus", JSON.stringify(op.malformedUuidStatus)],
    [
      "lockKey",
      op.lockKey === null
        ? "null"
        : `{ from: ${JSON.stringify(op.lockKey.from)}, field: ${JSON.stringify(op.lockKey.field)}, prefix: ${JSON.stringify(op.lockKey.prefix)} }`,
    ],
    ["teachesLimit", String(op.teachesLimit)],
    ["producesResource", JSON.stringify(op.producesResource)],
    ["head", String(op.head)],
  ];
  w.writeLine(`${JSON.stringify(op.operationId)}: {`);
  w.indent(() => fields.forEach(([name, value]) => w.writeLine(`${name}: ${value},`)));
  w.writeLine("},");
}

function addOperationList(file: SourceFile): void {
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: ["The operations in spec order."],
    declarations: [
      { name: "operationList", type: "readonly OperationMeta[]", initializer: "Object.values(operationTable)" },
    ],
  });
}

/**
 * The operation roles (roles.ts): the one operation that plays each, so code names a role, never an
 * operationId. Empty for a spec that declares no role.
 */
function addOperationRoles(file: SourceFile, ops: readonly OperationModel[]): void {
  const roles = resolveRoles(ops);
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [
      "The operation that plays each role, from the spec's role extensions (x-poll-operation, x-reconcile-by, …).",
    ],
    declarations: [
      {
        name: "operationRoles",
        initializer: (w) => {
          if (roles.length === 0) w.write("{}");
          else
            w.write("{").indent(() => {
              for (const { role, operationId, doc } of roles) {
                w.writeLine(`/** ${doc} */`);
                w.writeLine(`${role}: ${JSON.stringify(operationId)},`);
              }
            });
          w.write(`${roles.length === 0 ? "" : "}"} as const`);
          w.write(" satisfies Record<string, OperationId>");
        },
      },
    ],
  });
  file.addTypeAliases([
    {
      isExported: true,
      name: "OperationRole",
      docs: ["A role of `operationRoles`."],
      type: "keyof typeof operationRoles",
    },
    {
      isExported: true,
      name: "OperationOfRole",
      docs: ["The operationId that plays role `R`."],
      typeParameters: [{ name: "R", constraint: "OperationRole" }],
      type: "(typeof operationRoles)[R]",
    },
  ]);
}
