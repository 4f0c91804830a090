/**
 * The SDK's method pages: one page per resource (`client.domains`, `client.orders`, …) with one
 * section per facade method, written from the same spec and operation table the generator reads, so
 * the page says what the hover docs say. Each method gets an anchor that cannot collide
 * (`#client-domains-renew`), its arguments, options, every Outcome kind it can return and an example
 * that the docs tests type-check against the package's own types.
 */
import { operationList, type OperationMeta } from "../../generated/operations";
import { readSpec, referenceFile } from "./http-reference";
import { camel, resolveRef, sdkCall } from "./http-samples";

type Json = Record<string, unknown>;
type Lang = "en" | "ru";

interface MethodDoc {
  resource: string;
  method: string;
  /** `client.domains.renew` */
  call: string;
  /** `client-domains-renew` */
  anchor: string;
  meta: OperationMeta;
  summary: string;
  description: string;
  example: string;
}

export interface ResourceDoc {
  resource: string;
  description: string;
  methods: MethodDoc[];
}

const HTTP_METHODS = ["get", "put", "post", "delete", "patch"] as const;

const methodAnchor = (operationId: string): string => `client-${operationId.replace(/\./g, "-").toLowerCase()}`;

function operationsOf(spec: Json): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const item of Object.values((spec.paths ?? {}) as Record<string, Json>)) {
    for (const m of HTTP_METHODS) {
      const op = item[m] as Json | undefined;
      if (op?.operationId) out.set(op.operationId as string, op);
    }
  }
  return out;
}

/** The first paragraph of a spec description, without its trailing "Scopes: …" line. */
/** A spec field that should be text: the text, else "". */
const textOf = (value: unknown): string => (typeof value === "string" ? value : "");

function firstParagraph(text: unknown): string {
  return (
    textOf(text)
      .split(/\n\s*\n/)
      .find((p) => p.trim() && !p.trim().startsWith("Scopes:"))
      ?.trim() ?? ""
  );
}

/** A call of the method as a user writes it: placeholders for UUIDs, the spec's example body. */
function exampleOf(spec: Json, op: Json, meta: OperationMeta): string {
  const callText = sdkCall(spec, op, meta);
  const lines = [
    'import type { ResellerClient } from "reseller-api";',
    "",
    "export async function example(client: ResellerClient) {",
  ];
  if (meta.pagination) {
    lines.push(`  for await (const item of ${callText}) console.log(item);`);
  } else {
    lines.push(`  const outcome = await ${callText};`);
    lines.push(`  if (outcome.kind === "succeeded") console.log(outcome.data);`);
    if (meta.asyncOperation)
      lines.push(
        `  if (outcome.kind === "accepted") console.log(await client.operations.wait(outcome.operationUuid, { commandId: outcome.commandId }));`,
      );
  }
  lines.push("}");
  return lines.join("\n");
}

export function methodDocs(): ResourceDoc[] {
  const spec = readSpec() as Json;
  const ops = operationsOf(spec);
  const tags = new Map(((spec.tags ?? []) as Json[]).map((t) => [t.name as string, textOf(t.description)]));
  const resources = new Map<string, ResourceDoc>();
  for (const meta of operationList) {
    const [resource, method] = meta.operationId.split(".");
    const op = ops.get(meta.operationId) ?? {};
    const call = `client.${resource}.${method}`;
    const doc = resources.get(resource) ?? { resource, description: tags.get(resource) ?? "", methods: [] };
    doc.methods.push({
      resource,
      method,
      call,
      anchor: methodAnchor(meta.operationId),
      meta,
      summary: textOf(op.summary) || meta.operationId,
      description: firstParagraph(op.description),
      example: exampleOf(spec, op, meta),
    });
    resources.set(resource, doc);
  }
  return [...resources.values()];
}

const WORDS = {
  en: {
    http: "HTTP",
    scopes: "Scopes",
    none: "none",
    key: "Idempotency-Key",
    keyRequired:
      "sent on every attempt: `options.idempotencyKey` (your command id, the same on every retry), else a random UUID",
    keyNone: "— (a read)",
    credentials: "Keys",
    liveOnly: "live keys only (a test key is refused before sending: `LiveOnlyError`)",
    both: "test and live keys",
    args: "Arguments",
    name: "name",
    in: "in",
    required: "required",
    description: "description",
    yes: "yes",
    no: "no",
    noArgs: "None.",
    options: "Options",
    optionsText:
      "The second argument is a [`CallOptions`](../reseller-api/interfaces/CallOptions.md) object: `idempotencyKey`, `signal`, `timeoutMs`, `deadlineMs`, `language`.",
    returns: "Returns",
    outcomes: "Outcomes",
    kind: "`kind`",
    when: "when",
    example: "Example",
    paged:
      "A `PagedCall`: `await` it for the first page's Outcome, or iterate it (`for await`) for every item across pages (H1); a page that does not succeed ends the iteration with a `PaginationError` carrying its Outcome.",
    promise:
      "A `Promise` of an [`Outcome`](../reseller-api/type-aliases/Outcome.md) — never a throw for an HTTP result.",
    succeeded: (s: string) => `${s}: \`outcome.data\` is the response body`,
    accepted:
      "202: accepted, not done (F1) — wait with `client.operations.wait(outcome.operationUuid, { commandId: outcome.commandId })`",
    rejected: (s: string) =>
      `${s}: nothing happened — fix the cause, never retry unchanged (E4); \`outcome.error\` is the API's error`,
    conflict: "409: the key is busy or belongs to another command — reconcile, never take a new key (D6)",
    unknown: (policy: string) =>
      `timeout, reset, 5xx, a broken body or the deadline: the call may have happened (${policy})`,
    policies: {
      resend: "resent with the same key and bytes",
      reconcile: "reconciled by a lookup before anything is sent again",
      report: "reported for a person to check",
      read: "a read: retried",
    } as Record<string, string>,
    resourceIntro: (r: string) =>
      `Every method of \`client.${r}\`. Each resolves to an \`Outcome\`; none throws for an HTTP result.`,
    indexTitle: "Client methods",
    indexIntro:
      "One page per resource of the client that `createResellerClient()` returns. Every method sends one API operation; the HTTP reference describes the wire format.",
  },
  ru: {
    http: "HTTP",
    scopes: "Права (scopes)",
    none: "нет",
    key: "Idempotency-Key",
    keyRequired:
      "отправляется в каждой попытке: `options.idempotencyKey` (ваш идентификатор команды, один и тот же при каждом повторе), иначе случайный UUID",
    keyNone: "— (чтение)",
    credentials: "Ключи",
    liveOnly: "только боевые ключи (с тестовым ключом вызов отклоняется до отправки: `LiveOnlyError`)",
    both: "тестовые и боевые ключи",
    args: "Аргументы",
    name: "имя",
    in: "где",
    required: "обязателен",
    description: "описание",
    yes: "да",
    no: "нет",
    noArgs: "Нет.",
    options: "Параметры вызова",
    optionsText:
      "Второй аргумент — объект [`CallOptions`](../reseller-api/interfaces/CallOptions.md): `idempotencyKey`, `signal`, `timeoutMs`, `deadlineMs`, `language`.",
    returns: "Результат",
    outcomes: "Исходы",
    kind: "`kind`",
    when: "когда",
    example: "Пример",
    paged:
      "`PagedCall`: `await` даёт исход первой страницы, `for await` — все элементы всех страниц (H1); неуспешная страница завершает перебор ошибкой `PaginationError` с её исходом.",
    promise:
      "`Promise` с исходом ([`Outcome`](../reseller-api/type-aliases/Outcome.md)); HTTP-результат никогда не приходит исключением.",
    succeeded: (s: string) => `${s}: \`outcome.data\` — тело ответа`,
    accepted:
      "202: операция принята, но не выполнена (F1) — дождитесь её: `client.operations.wait(outcome.operationUuid, { commandId: outcome.commandId })`",
    rejected: (s: string) =>
      `${s}: ничего не произошло — устраните причину, не повторяйте запрос без изменений (E4); \`outcome.error\` — ошибка API`,
    conflict: "409: ключ занят или принадлежит другой команде — выполните сверку, не берите новый ключ (D6)",
    unknown: (policy: string) =>
      `тайм-аут, обрыв соединения, 5xx, повреждённое тело ответа или истёкший срок: вызов мог выполниться (${policy})`,
    policies: {
      resend: "повторная отправка с тем же ключом и теми же байтами",
      reconcile: "сверка поиском до любой повторной отправки",
      report: "передаётся человеку на проверку",
      read: "чтение: повторяется",
    } as Record<string, string>,
    resourceIntro: (r: string) =>
      `Все методы \`client.${r}\`. Каждый возвращает исход (\`Outcome\`); HTTP-результат никогда не приходит исключением.`,
    indexTitle: "Методы клиента",
    indexIntro:
      "По странице на каждый ресурс клиента, которого возвращает `createResellerClient()`. Каждый метод отправляет одну операцию API; формат запросов описан в справочнике HTTP API.",
  },
};

function statusesOf(op: Json, from: number, to: number, except: number[] = []): string {
  const codes = Object.keys((op.responses ?? {}) as Json)
    .map(Number)
    .filter((s) => s >= from && s < to && !except.includes(s));
  return codes.join(", ");
}

function argRows(spec: Json, op: Json, meta: OperationMeta, w: (typeof WORDS)[Lang]): string[] {
  const rows: string[] = [];
  const params = ((op.parameters ?? []) as unknown[]).map((p) => resolveRef(spec, p));
  for (const p of params) {
    if (p.in !== "path" && p.in !== "query") continue;
    const name = p.in === "path" ? camel(String(p.name)) : `query.${String(p.name)}`;
    const desc = firstParagraph(p.description).replace(/\n/g, " ").replace(/\|/g, "\\|");
    rows.push(`| \`${name}\` | ${p.in} | ${p.required ? w.yes : w.no} | ${desc} |`);
  }
  if (meta.hasBody) {
    const content = resolveRef(spec, op.requestBody).content as Json | undefined;
    const schema = resolveRef(spec, (content?.["application/json"] as Json | undefined)?.schema);
    const required = new Set((schema.required ?? []) as string[]);
    for (const [field, prop] of Object.entries((schema.properties ?? {}) as Json)) {
      const desc = firstParagraph(resolveRef(spec, prop).description).replace(/\n/g, " ").replace(/\|/g, "\\|");
      rows.push(`| \`body.${field}\` | body | ${required.has(field) ? w.yes : w.no} | ${desc} |`);
    }
  }
  return rows;
}

/** The HTTP reference link of an operation, in the page's language. */
function httpLink(meta: OperationMeta, base: string, lang: Lang): string {
  return `${base}${referenceFile(lang)}#operation/${encodeURIComponent(meta.operationId)}`;
}

/** `client.operations.wait()`: the client's own method, not an API operation — written here, not in the spec. */
export const WAIT_ANCHOR = "client-operations-wait";

export const WAIT_EXAMPLE = [
  'import type { ResellerClient } from "reseller-api";',
  "",
  "export async function example(client: ResellerClient, domainUuid: string) {",
  '  const outcome = await client.domains.renew({ domainUuid, body: { period: 1 } }, { idempotencyKey: "renew-2027" });',
  '  if (outcome.kind !== "accepted") return outcome.kind;',
  "  const done = await client.operations.wait(outcome.operationUuid, { commandId: outcome.commandId });",
  '  if (done.kind === "completed" || done.kind === "failed") return `${done.kind}: ${done.operation.status}`;',
  "  return done.kind; // timeout: still running — not failed (F4); rejected: the API will not show it",
  "}",
].join("\n");

const WAIT_TEXT = {
  en: [
    `## \`client.operations.wait()\` {#${WAIT_ANCHOR}}`,
    "",
    "**Wait for an asynchronous operation.** Polls `operations.get` (F1–F4: a 202 confirms acceptance only) until the operation is `completed` or `failed`, or the deadline passes, honouring `next_check_at` and the key's window. Never throws for an HTTP result. With `commandId` (the `accepted` outcome's), the journalled command is settled too.",
    "",
    "```ts",
    "client.operations.wait(operationUuid: string, options?: WaitOptions): Promise<WaitResult>",
    "```",
    "",
    `### Options {#${WAIT_ANCHOR}-options}`,
    "",
    "[`WaitOptions`](../reseller-api/interfaces/WaitOptions.md): `commandId`, `deadline` (default 15 minutes from now), `minIntervalMs`, `maxIntervalMs`, `signal`, `onPoll` (called after every poll with what it read and `nextPollAt`, when the wait polls next — for a progress display).",
    "",
    `### Returns {#${WAIT_ANCHOR}-returns}`,
    "",
    "| `kind` | when |",
    "|---|---|",
    "| `completed` | the operation finished: `result.operation` |",
    "| `failed` | the registry refused it: `result.operation.error` says why; nothing was bought |",
    "| `timeout` | the deadline passed while the operation was still pending, processing or `uncertain` — not a failure (F4): wait again later |",
    "| `rejected` | the API refuses to show the operation (401/403/404): polling cannot help |",
    "",
    `### Example {#${WAIT_ANCHOR}-example}`,
    "",
  ],
  ru: [
    `## \`client.operations.wait()\` {#${WAIT_ANCHOR}}`,
    "",
    "**Ожидание асинхронной операции.** Опрашивает `operations.get` (F1–F4: ответ 202 подтверждает только приём) до статуса `completed` или `failed` либо до истечения срока, соблюдая `next_check_at` и окно ключа. HTTP-результат никогда не приходит исключением. С `commandId` (из исхода `accepted`) завершается и команда в журнале команд.",
    "",
    "```ts",
    "client.operations.wait(operationUuid: string, options?: WaitOptions): Promise<WaitResult>",
    "```",
    "",
    `### Параметры вызова {#${WAIT_ANCHOR}-options}`,
    "",
    "[`WaitOptions`](../reseller-api/interfaces/WaitOptions.md): `commandId`, `deadline` (по умолчанию 15 минут от текущего момента), `minIntervalMs`, `maxIntervalMs`, `signal`, `onPoll` (вызывается после каждого опроса с прочитанным и `nextPollAt` — когда будет следующий опрос; для индикатора хода).",
    "",
    `### Результат {#${WAIT_ANCHOR}-returns}`,
    "",
    "| `kind` | когда |",
    "|---|---|",
    "| `completed` | операция выполнена: `result.operation` |",
    "| `failed` | реестр отказал: причина в `result.operation.error`; ничего не куплено |",
    "| `timeout` | срок истёк, а операция ещё ожидает, выполняется или в статусе `uncertain` — это не отказ (F4): проверьте позже |",
    "| `rejected` | API не показывает операцию (401/403/404): опрос не поможет |",
    "",
    `### Пример {#${WAIT_ANCHOR}-example}`,
    "",
  ],
};

function waitSection(lang: Lang): string[] {
  return [...WAIT_TEXT[lang], "```ts", WAIT_EXAMPLE, "```", ""];
}

export function resourcePage(resource: ResourceDoc, lang: Lang, base = "/"): string {
  const w = WORDS[lang];
  const spec = readSpec() as Json;
  const ops = operationsOf(spec);
  const out: string[] = [`# client.${resource.resource}`, "", w.resourceIntro(resource.resource), ""];
  if (resource.description) out.push(resource.description, "");
  for (const m of resource.methods) {
    const op = ops.get(m.meta.operationId) ?? {};
    const ok = statusesOf(op, 200, 300, [202]);
    const rejected = statusesOf(op, 400, 500, [409, 429]);
    out.push(`## \`${m.call}()\` {#${m.anchor}}`, "");
    out.push(`**${m.summary}.** ${m.description}`, "");
    out.push(`| | |`, `|---|---|`);
    out.push(
      `| ${w.http} | <a href="${httpLink(m.meta, base, lang)}" target="_self"><code>${m.meta.method} ${m.meta.path}</code></a> |`,
    );
    out.push(`| ${w.scopes} | ${m.meta.scopes.length ? m.meta.scopes.map((s) => `\`${s}\``).join(" + ") : w.none} |`);
    out.push(`| ${w.key} | ${m.meta.idempotencyRequired ? w.keyRequired : w.keyNone} |`);
    out.push(`| ${w.credentials} | ${m.meta.liveOnly ? w.liveOnly : w.both} |`, "");
    out.push(`### ${w.args} {#${m.anchor}-arguments}`, "");
    const rows = argRows(spec, op, m.meta, w);
    if (rows.length)
      out.push(`| ${w.name} | ${w.in} | ${w.required} | ${w.description} |`, "|---|---|---|---|", ...rows, "");
    else out.push(w.noArgs, "");
    out.push(`### ${w.options} {#${m.anchor}-options}`, "", w.optionsText, "");
    out.push(`### ${w.returns} {#${m.anchor}-returns}`, "", m.meta.pagination ? w.paged : w.promise, "");
    out.push(`| ${w.kind} | ${w.when} |`, "|---|---|");
    out.push(`| \`succeeded\` | ${w.succeeded(ok || "2xx")} |`);
    if (m.meta.asyncOperation) out.push(`| \`accepted\` | ${w.accepted} |`);
    if (rejected) out.push(`| \`rejected\` | ${w.rejected(rejected)} |`);
    if (m.meta.idempotencyRequired) out.push(`| \`conflict\` | ${w.conflict} |`);
    out.push(`| \`unknown\` | ${w.unknown(w.policies[m.meta.unknownOutcome ?? "read"])} |`, "");
    out.push(`### ${w.example} {#${m.anchor}-example}`, "", "```ts", m.example, "```", "");
  }
  if (resource.resource === "operations") out.push(...waitSection(lang));
  return out.join("\n");
}

export function resourceIndex(resources: ResourceDoc[], lang: Lang): string {
  const w = WORDS[lang];
  const out = [`# ${w.indexTitle}`, "", w.indexIntro, ""];
  for (const r of resources) {
    out.push(`## [client.${r.resource}](./${r.resource}.md)`, "");
    if (r.description) out.push(r.description, "");
    out.push(...r.methods.map((m) => `- [\`${m.call}()\`](./${r.resource}.md#${m.anchor}) — ${m.summary}`));
    if (r.resource === "operations")
      out.push(
        `- [\`client.operations.wait()\`](./operations.md#${WAIT_ANCHOR}) — ${lang === "ru" ? "ожидание асинхронной операции" : "wait for an asynchronous operation"}`,
      );
    out.push("");
  }
  return out.join("\n");
}
