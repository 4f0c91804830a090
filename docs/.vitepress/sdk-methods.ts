/**
 * The SDK's method pages: one page per resource (`client.domains`, `client.orders`, …) with one
 * section per facade method, written from the same spec and operation table the generator reads, so
 * the page says what the hover docs say. Each method gets an anchor that cannot collide
 * (`#client-domains-renew`), its arguments, options, every Outcome kind it can return and an example
 * that the docs tests type-check against the package's own types.
 */
import { operationList, type OperationMeta } from "../../generated/operations";
import { readSpec, referenceFile } from "./http-reference";
import { camel, KEY_COMMENT, resolveRef, sdkCall } from "./http-samples";

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

/**
 * A call of the method as a user writes it: path parameters as the function's arguments (UUIDs as the
 * API returned them), the spec's example body, a key of its own per write (D2, D5), every Outcome kind
 * handled briefly, and never a secret response field (`x-sensitive-fields`) printed (D9, H2).
 */
function exampleOf(spec: Json, op: Json, meta: OperationMeta): string {
  const callText = sdkCall(spec, op, meta, { pathVariables: true });
  const secrets = meta.sensitiveFields;
  const params = [
    "client: ResellerClient",
    ...meta.pathParams.map((p) => `${camel(p)}: string`),
    ...(secrets.length ? ["keepSecret: (value: string) => Promise<void>"] : []),
  ];
  const lines = [
    'import type { ResellerClient } from "reseller-api";',
    "",
    `export async function example(${params.join(", ")}) {`,
  ];
  if (meta.pagination) {
    lines.push(`  for await (const item of ${callText}) console.log(item);`);
    lines.push("}");
    return lines.join("\n");
  }
  if (meta.idempotencyRequired) lines.push(`  ${KEY_COMMENT}`);
  lines.push(`  const outcome = await ${callText};`);
  // One branch per kind, chained with `else`: each branch's lines, the first starting with `if (…)`.
  const branches: string[][] = [];
  if (meta.asyncOperation)
    branches.push([
      'if (outcome.kind === "accepted") {',
      "    // 202 is acceptance, not the result (F1): wait for the operation to finish.",
      "    const done = await client.operations.wait(outcome.operationUuid, { commandId: outcome.commandId });",
      "    console.log(done.kind);",
      "  }",
    ]);
  // An async operation's 202 is `accepted` (above); any other success is `succeeded`.
  if (!meta.asyncOperation || meta.successStatuses.some((s) => s !== 202)) {
    if (secrets.length) {
      const names = secrets.map((f) => `\`${f}\``).join(", ");
      const plural = secrets.length > 1;
      branches.push([
        'if (outcome.kind === "succeeded") {',
        `    // ${names} ${plural ? "are secrets" : "is a secret"} (x-sensitive-fields): never log ${plural ? "them" : "it"} (D9, H2).`,
        `    // Hand ${plural ? "them" : "it"} straight to where ${plural ? "they are" : "it is"} needed (keepSecret: your secret store); log only the rest.`,
        `    const { ${secrets.join(", ")}, ...rest } = outcome.data.data;`,
        ...secrets.map((f) => `    await keepSecret(${f});`),
        "    console.log(rest);",
        "  }",
      ]);
    } else if (meta.successStatuses.every((s) => s === 204))
      branches.push(['if (outcome.kind === "succeeded") console.log("succeeded", outcome.status); // 204: no body']);
    else branches.push(['if (outcome.kind === "succeeded") console.log(outcome.data);']);
  }
  branches.push([
    'if (outcome.kind === "rejected") console.log("rejected", outcome.status, outcome.error?.code); // nothing happened: fix the cause',
  ]);
  branches.push([
    meta.idempotencyRequired
      ? "console.log(outcome.kind); // conflict or unknown: it may have happened — reconcile with the same key, never a new one (D6, E4)"
      : "console.log(outcome.kind); // unknown: nothing was changed by a read, so it is safe to call again",
  ]);
  branches.forEach((branch, i) => {
    const last = lines[lines.length - 1];
    if (i > 0 && last.endsWith("}")) lines[lines.length - 1] = `${last} else ${branch[0]}`;
    else lines.push(`  ${i > 0 ? "else " : ""}${branch[0]}`);
    lines.push(...branch.slice(1));
  });
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
    readOptionsText:
      "The second argument is a [`ReadCallOptions`](../reseller-api/type-aliases/ReadCallOptions.md) object: `signal`, `timeoutMs`, `deadlineMs`, `language`. A read takes no `idempotencyKey` (D1): passing one throws `InvalidArgumentError`.",
    perPage:
      "Page size, 1..100, default 25 (H1). The client checks it before sending: out of range, it throws `InvalidArgumentError` (`per_page must be an integer 1..100`) and sends nothing (the server would answer 422 `validation_failed`).",
    throwsTitle:
      "It throws (its promise rejects) only for a mistake found before sending, or when you stop it — never for an HTTP result:",
    pagedThrowsTitle:
      "It throws (awaiting or iterating it rejects) only for a mistake found before sending, or when you stop it — never for an HTTP result of the first page:",
    error: "error",
    throws: {
      args: (what: string) =>
        `${what}, an unknown name in the first argument (a call option put there goes in the second), or an unknown or malformed call option; nothing was sent`,
      argPath: "a path parameter that is not a UUID (A9)",
      argQuery: "`per_page` outside 1..100, a `cursor` that is not a string or an unknown query parameter (H1)",
      argBody: "a `body` (the operation takes none, D4), or one that cannot be JSON (a `BigInt`, a circular reference)",
      argKey:
        "an `idempotencyKey` that is not 1..160 printable ASCII characters (D2: it travels as a header), or, with a journal, one that already belongs to another command (D5, D7)",
      argRead: "an `idempotencyKey` (a read takes none, D1)",
      liveOnly:
        "a test key (`rsl_test_…`): the operation is live-only (B1–B4), so nothing was sent — unless the client has `allowLiveOnlyWithTestKey: true`",
      locked: (from: string) =>
        `with a journal: another command for the same domain (${from}) is still in flight (I6) — nothing was sent; settle that one first`,
      sensitive: "with a journal: the path, query, key or body would put the API token into the journal (A4, H2)",
      journal:
        "with a journal: the journal's own error (closed, unreachable…) — the command could not be recorded, so nothing was sent (G1)",
      aborted: (write: boolean) =>
        write
          ? "`options.signal` fired before anything was sent: with a journal, the command is withdrawn from it (`error.withdrawn`), so recovery never sends it (after a send, the call ends `unknown` instead, E4)"
          : "`options.signal` fired before the answer arrived",
      closed: "the client was closed (`client.close()`) before the call: nothing was recorded or sent",
      pagination: "iterating (`for await`): a later page did not succeed; `error.outcome` is that page's Outcome",
    },
    reconciled:
      "; 200 with `outcome.reconciled: true` when an earlier `unknown` outcome was settled by finding the order by its `external_id` (F5, I4): `outcome.data` is the order found, not a second one",
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
    secret: (names: string) => ` — it holds ${names}, a secret: never log it (D9, H2)`,
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
    readOptionsText:
      "Второй аргумент — объект [`ReadCallOptions`](../reseller-api/type-aliases/ReadCallOptions.md): `signal`, `timeoutMs`, `deadlineMs`, `language`. Чтение не принимает `idempotencyKey` (D1): с ним вызов бросает `InvalidArgumentError`.",
    perPage:
      "Размер страницы, 1..100, по умолчанию 25 (H1). Клиент проверяет его до отправки: при значении вне диапазона бросает `InvalidArgumentError` (`per_page must be an integer 1..100`) и ничего не отправляет (сервер ответил бы 422 `validation_failed`).",
    throwsTitle:
      "Исключение (отклонённый promise) бывает только при ошибке, найденной до отправки, или когда вызов остановили вы — HTTP-результат исключением не приходит:",
    pagedThrowsTitle:
      "Исключение (при `await` или переборе) бывает только при ошибке, найденной до отправки, или когда вызов остановили вы — HTTP-результат первой страницы исключением не приходит:",
    error: "исключение",
    throws: {
      args: (what: string) =>
        `${what}, неизвестное имя в первом аргументе (параметр вызова ставится во второй), а также неизвестный либо неверный параметр вызова; ничего не отправлено`,
      argPath: "параметр пути — не UUID (A9)",
      argQuery: "`per_page` вне 1..100, `cursor` не строкой или неизвестный параметр запроса (H1)",
      argBody:
        "`body` (у операции нет тела запроса, D4) или тело, которое нельзя записать в JSON (`BigInt`, циклическая ссылка)",
      argKey:
        "`idempotencyKey` не из 1..160 печатных символов ASCII (D2: он идёт в заголовке) или, с журналом команд, ключ, уже принадлежащий другой команде (D5, D7)",
      argRead: "`idempotencyKey` (чтение его не принимает, D1)",
      liveOnly:
        "тестовый ключ (`rsl_test_…`): операция только для боевых ключей (B1–B4), ничего не отправлено — если у клиента не задано `allowLiveOnlyWithTestKey: true`",
      locked: (from: string) =>
        `с журналом команд: другая команда для того же домена (${from}) ещё выполняется (I6) — ничего не отправлено; сначала завершите её`,
      sensitive: "с журналом команд: путь, запрос, ключ или тело записали бы в журнал токен API (A4, H2)",
      journal:
        "с журналом команд: ошибка самого журнала (закрыт, недоступен…) — команду не удалось записать, поэтому ничего не отправлено (G1)",
      aborted: (write: boolean) =>
        write
          ? "`options.signal` сработал до отправки: с журналом команда удаляется из него (`error.withdrawn`), и восстановление её не отправит (после отправки вызов завершается исходом `unknown`, E4)"
          : "`options.signal` сработал до получения ответа",
      closed: "клиент закрыт (`client.close()`) до вызова: ничего не записано и не отправлено",
      pagination: "при переборе (`for await`): следующая страница не получена успешно; `error.outcome` — её исход",
    },
    reconciled:
      "; 200 с `outcome.reconciled: true`, когда прежний исход `unknown` разрешён сверкой — заказ найден по `external_id` (F5, I4): `outcome.data` — найденный заказ, а не второй",
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
    secret: (names: string) => ` — в нём секрет ${names}: никогда не записывайте его в логи (D9, H2)`,
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
    const text = firstParagraph(p.description);
    const desc = (p.in === "query" ? queryDescription(String(p.name), text, w) : text)
      .replace(/\n/g, " ")
      .replace(/\|/g, "\\|");
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

/**
 * What a method can throw, from its operation's facts: every row is a mistake found before sending
 * or the caller's own stop (an HTTP result is never thrown). See core/errors.ts, journal/errors.ts,
 * core/validate.ts, src/call.ts and middleware/idempotency.ts for where each is thrown.
 */
function throwRows(meta: OperationMeta, w: (typeof WORDS)[Lang]): string[] {
  const t = w.throws;
  const write = meta.idempotencyRequired;
  const args = [
    ...(meta.pathParams.length ? [t.argPath] : []),
    ...(meta.queryParams.length ? [t.argQuery] : []),
    ...(meta.hasBody ? [] : [t.argBody]),
    write ? t.argKey : t.argRead,
  ];
  const rows: [string, string][] = [["InvalidArgumentError", t.args(args.join("; "))]];
  if (meta.liveOnly) rows.push(["LiveOnlyError", t.liveOnly]);
  if (meta.lockKey) rows.push(["DomainLockedError", t.locked(`\`${meta.lockKey.from}.${meta.lockKey.field}\``)]);
  if (write) rows.push(["SensitiveDataError", t.sensitive], ["JournalClosedError, …", t.journal]);
  rows.push(["RequestAbortedError", t.aborted(write)], ["ClientClosedError", t.closed]);
  if (meta.pagination) rows.push(["PaginationError", t.pagination]);
  return rows.map(([error, when]) => `| ${error.replace(/(\w+Error)/g, "`$1`")} | ${when} |`);
}

/** A query parameter's description as the SDK behaves: what the client checks itself, it throws. */
function queryDescription(name: string, spec: string, w: (typeof WORDS)[Lang]): string {
  return name === "per_page" ? w.perPage : spec;
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
  `  ${KEY_COMMENT}`,
  "  const outcome = await client.domains.renew({ domainUuid, body: { period: 1 } }, { idempotencyKey: `renew-${domainUuid}-2027` });",
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
    out.push(
      `### ${w.options} {#${m.anchor}-options}`,
      "",
      m.meta.idempotencyRequired ? w.optionsText : w.readOptionsText,
      "",
    );
    out.push(`### ${w.returns} {#${m.anchor}-returns}`, "", m.meta.pagination ? w.paged : w.promise, "");
    out.push(`| ${w.kind} | ${w.when} |`, "|---|---|");
    const reconciled = m.meta.unknownOutcome === "reconcile" ? w.reconciled : "";
    const secrets = m.meta.sensitiveFields.map((f) => `\`${f}\``).join(", ");
    out.push(`| \`succeeded\` | ${w.succeeded(ok || "2xx")}${secrets ? w.secret(secrets) : ""}${reconciled} |`);
    if (m.meta.asyncOperation) out.push(`| \`accepted\` | ${w.accepted} |`);
    if (rejected) out.push(`| \`rejected\` | ${w.rejected(rejected)} |`);
    if (m.meta.idempotencyRequired) out.push(`| \`conflict\` | ${w.conflict} |`);
    out.push(`| \`unknown\` | ${w.unknown(w.policies[m.meta.unknownOutcome ?? "read"])} |`, "");
    out.push(m.meta.pagination ? w.pagedThrowsTitle : w.throwsTitle, "");
    out.push(`| ${w.error} | ${w.when} |`, "|---|---|", ...throwRows(m.meta, w), "");
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
