/**
 * generated/client.ts — the typed resource facade: per-operation argument and success-body types,
 * and `createFacade(invoke)`, which groups operations by the part of the operationId before the dot
 * (`domains.renew` → `facade.domains.renew`). It is transport-agnostic: every method only forwards
 * `(operationId, args, options)` to `invoke`, and the middleware decides what a call returns.
 */
import type { CodeBlockWriter, SourceFile } from "ts-morph";
import { readOperations, type OperationModel } from "./model";
import { docText, firstSentence, newSourceFile, render } from "./output";
import type { Spec } from "./spec";

const CLIENT_EMITTER = "emit-client.ts";

/** Emits generated/client.ts and returns its text. */
export function emitClient(spec: Spec, ops: readonly OperationModel[] = readOperations(spec)): string {
  const file = newSourceFile("client.ts");
  file.addImportDeclarations([
    { isTypeOnly: true, moduleSpecifier: "./schema", namedImports: ["paths"] },
    { isTypeOnly: true, moduleSpecifier: "./operations", namedImports: ["OperationId"] },
  ]);
  addOperationArgs(file, ops);
  addOperationData(file, ops);
  addInvoke(file);
  addResourceFacade(file, ops);
  addCreateFacade(file, ops);
  return render(file, CLIENT_EMITTER);
}

/** Resource groups in spec order of first appearance, each with its operations in spec order. */
function groupByResource(ops: readonly OperationModel[]): Map<string, OperationModel[]> {
  const groups = new Map<string, OperationModel[]>();
  for (const op of ops) groups.set(op.resource, [...(groups.get(op.resource) ?? []), op]);
  return groups;
}

/** `paths["/domains/{domainUuid}/renew"]["post"]` */
function operationType(op: OperationModel): string {
  return `paths[${JSON.stringify(op.path)}][${JSON.stringify(op.methodKey)}]`;
}

/** Required input makes the args parameter required: path params, a required body or query param. */
function argsRequired(op: OperationModel): boolean {
  return op.pathParams.length > 0 || op.body?.required === true || op.queryParams.some((p) => p.required);
}

// ---------------------------------------------------------------- OperationArgs

function addOperationArgs(file: SourceFile, ops: readonly OperationModel[]): void {
  file.addInterface({
    isExported: true,
    name: "OperationArgs",
    docs: [
      "Arguments per operation: path parameters as top-level camelCase properties, `query` when the operation\n" +
        "has query parameters, `body` when it has a request body. Headers (Idempotency-Key, X-Request-ID) are\n" +
        "the middleware's job, not arguments.",
    ],
    properties: ops.map((op) => ({
      name: JSON.stringify(op.operationId),
      type: (w: CodeBlockWriter) => writeArgsType(w, op),
    })),
  });
}

function writeArgsType(w: CodeBlockWriter, op: OperationModel): void {
  const members: string[] = [];
  for (const param of op.pathParams) {
    const doc = param.description ? `/** ${docText(firstSentence(param.description) ?? "")} */\n` : "";
    members.push(`${doc}${param.name}: string;`);
  }
  if (op.queryParams.length > 0) {
    const required = op.queryParams.some((p) => p.required);
    members.push(`query${required ? "" : "?"}: NonNullable<${operationType(op)}["parameters"]["query"]>;`);
  }
  if (op.body) {
    const body = op.body.required
      ? `${operationType(op)}["requestBody"]`
      : `NonNullable<${operationType(op)}["requestBody"]>`;
    const type = op.body.json ? `${body}["content"]["application/json"]` : "never";
    members.push(`body${op.body.required ? "" : "?"}: ${type};`);
  }
  if (members.length === 0) {
    w.write("Record<string, never>");
    return;
  }
  w.write("{")
    .indent(() => members.forEach((m) => w.writeLine(m)))
    .write("}");
}

// ---------------------------------------------------------------- OperationData

function addOperationData(file: SourceFile, ops: readonly OperationModel[]): void {
  file.addInterface({
    isExported: true,
    name: "OperationData",
    docs: ["Success body per operation: the union of its 2xx JSON bodies; a 2xx without a body (204) is `undefined`."],
    properties: ops.map((op) => ({ name: JSON.stringify(op.operationId), type: dataType(op) })),
  });
}

function dataType(op: OperationModel): string {
  const parts = op.successes.map((s) =>
    s.json ? `${operationType(op)}["responses"][${s.status}]["content"]["application/json"]` : "undefined",
  );
  return [...new Set(parts)].join(" | ");
}

// ---------------------------------------------------------------- facade

function addInvoke(file: SourceFile): void {
  file.addTypeAlias({
    isExported: true,
    name: "Invoke",
    docs: ["What the facade calls for every method; the middleware implements it."],
    type: "(operationId: OperationId, args: unknown, options: unknown) => unknown",
  });
}

/** JSDoc of a facade method: summary, first sentence of the description, the request line and rule hints. */
function methodDoc(op: OperationModel): string {
  const lines: string[] = [];
  const summary = op.summary?.trim() || firstSentence(op.description);
  if (summary) lines.push(summary.endsWith(".") ? summary : `${summary}.`);
  const first = firstSentence(op.description);
  if (first && op.summary && first !== summary) lines.push(first);
  const scopes = op.scopes.length > 0 ? ` · scopes: ${op.scopes.join(" + ")}` : " · no scope needed";
  lines.push("", `\`${op.methodKey.toUpperCase()} ${op.path}\`${scopes}`);
  const hints = ruleHints(op);
  if (hints.length > 0) lines.push("", ...hints.map((h) => `- ${h}`));
  return docText(lines.join("\n"));
}

function ruleHints(op: OperationModel): string[] {
  const hints: string[] = [];
  if (op.liveOnly) hints.push("Live credentials only: a test key gets 403 forbidden (B1, B3).");
  if (op.asyncOperation) {
    hints.push(
      "Asynchronous: 202 confirms acceptance, not the result; poll `operations.get` with the returned uuid (F1).",
    );
  }
  if (op.pagination) hints.push(`Cursor-paginated (${op.pagination}): pass \`next_cursor\` back unchanged (H1).`);
  if (op.sensitiveFields.length > 0) {
    hints.push(`The response holds secrets (${op.sensitiveFields.join(", ")}): never log or journal them (H2, D9).`);
  }
  switch (op.unknownOutcome) {
    case "resend":
      hints.push(
        "Unknown outcome (timeout/5xx): safe to resend with the same Idempotency-Key and the same bytes (D5).",
      );
      break;
    case "reconcile":
      hints.push(
        "Unknown outcome (timeout/5xx): reconcile first — look the order up by `external_id`; never create it again (F5, I4).",
      );
      break;
    case "report":
      hints.push("Unknown outcome (timeout/5xx): not resent automatically; the outcome is reported for a check (F4).");
      break;
    case null:
      break;
  }
  return hints;
}

function addResourceFacade(file: SourceFile, ops: readonly OperationModel[]): void {
  file.addInterface({
    isExported: true,
    name: "ResourceFacade",
    docs: [
      "The client's resource methods. `R` maps each operationId to what a call returns (the middleware picks\n" +
        "`Promise<Outcome<…>>` or a paginator); `O` is the per-call options type of an operation that takes\n" +
        "an Idempotency-Key, `Q` that of one that does not (D1: a key there is refused).",
    ],
    typeParameters: [
      { name: "R", constraint: "{ [K in OperationId]: unknown }" },
      { name: "O" },
      { name: "Q", default: "O" },
    ],
    properties: [...groupByResource(ops)].map(([resource, group]) => ({
      name: resource,
      type: (w: CodeBlockWriter) => {
        w.write("{").indent(() => {
          for (const op of group) {
            const id = JSON.stringify(op.operationId);
            const optional = argsRequired(op) ? "" : "?";
            w.writeLine("/**");
            for (const line of methodDoc(op).split("\n")) w.writeLine(line ? ` * ${line}` : " *");
            w.writeLine(" */");
            const options = op.idempotencyRequired ? "O" : "Q";
            w.writeLine(`${op.action}(args${optional}: OperationArgs[${id}], options?: ${options}): R[${id}];`);
          }
        });
        w.write("}");
      },
    })),
  });
}

function addCreateFacade(file: SourceFile, ops: readonly OperationModel[]): void {
  file.addFunction({
    isExported: true,
    name: "createFacade",
    docs: ["Builds the resource facade over `invoke`. Omitted args are passed as `{}`."],
    typeParameters: [
      { name: "R", constraint: "{ [K in OperationId]: unknown }" },
      { name: "O", default: "unknown" },
      { name: "Q", default: "O" },
    ],
    parameters: [{ name: "invoke", type: "Invoke" }],
    returnType: "ResourceFacade<R, O, Q>",
    statements: (w) => {
      w.writeLine("function bind<K extends OperationId>(operationId: K) {");
      w.indent(() =>
        w.writeLine(
          "return (args?: OperationArgs[K], options?: O | Q): R[K] => invoke(operationId, args ?? {}, options) as R[K];",
        ),
      );
      w.writeLine("}");
      w.write("return {").indent(() => {
        for (const [resource, group] of groupByResource(ops)) {
          const methods = group.map((op) => `${op.action}: bind(${JSON.stringify(op.operationId)})`);
          w.writeLine(`${resource}: {`)
            .indent(() => methods.forEach((m) => w.writeLine(`${m},`)))
            .writeLine("},");
        }
      });
      w.writeLine("};");
    },
  });
}
