/**
 * `reseller register`: one order per row of CSV (header: external_id,domain,period,nameservers) or
 * JSON lines. `external_id` is required on every row: it is the order's identity (F5) and its
 * Idempotency-Key, so a re-run finds the journalled order instead of buying again, and a row that
 * reuses an external_id for a different body is refused before anything is sent.
 */
import { DomainLockedError, InvalidArgumentError, type CommandRecord } from "../src/index";
import { CLI_DEFAULTS } from "./defaults";
import { UsageError } from "./errors";
import type { ExitCode } from "./exit-codes";
import {
  ensureFileHasData,
  ensureReadable,
  ensureStdinHasData,
  openInput,
  peekHead,
  readCsv,
  readJsonLines,
  type RecordRow,
} from "./input";
import { finishJob, withJobSession, type Runtime } from "./job-session";
import { runJob, type RowResult, type SourceItem } from "./jobs";
import { describeOutcome, requestIdsOf, unsettledRow } from "./outcome-text";
import { QuoteBook } from "./quotes";
import { dataRecordOf, isoOf, stringOf } from "./shape";
import { checkDomainName, checkPeriod, DuplicateTracker } from "./rows";
import type { GlobalOptions } from "./session";

/** How often a placed order still pending is read again. */
const ORDER_POLL_MS = 1000;

export interface RegisterOptions {
  input?: string;
  format?: "csv" | "jsonl";
  period: number;
  dryRun: boolean;
  quotes: boolean;
  concurrency: number;
  onError: "continue" | "stop";
  zones: readonly string[];
}

/** The order body, keys in a fixed order so a re-run produces the same bytes (D4). */
interface OrderBody {
  external_id: string;
  action: "register";
  domain: string;
  period: number;
  nameservers?: string[];
}

interface OrderRow {
  line: number;
  body: OrderBody;
  key: string;
  bytes: string;
}

const REGISTER_KEY_PREFIX = "rsl-cli:register:";

function nameserversOf(raw: unknown): { list?: string[] } | { error: string } {
  if (raw === undefined || raw === null || raw === "") return {};
  const list = Array.isArray(raw)
    ? raw.map((n) => (typeof n === "string" ? n : JSON.stringify(n)))
    : (typeof raw === "string" ? raw : JSON.stringify(raw)).split(/[\s;|]+/).filter(Boolean);
  if (list.length < 2 || list.length > 13) return { error: `nameservers: give 2 to 13 host names, got ${list.length}` };
  const bad = list.find((n) => !/^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/i.test(n));
  if (bad) return { error: `nameservers: ${JSON.stringify(bad)} is not a host name` };
  return { list: list.map((n) => n.toLowerCase()) };
}

/** One input record → an order, or the line-numbered reason it cannot be one. */
export function orderFromRecord(
  rec: RecordRow,
  options: Pick<RegisterOptions, "period" | "zones">,
): OrderRow | RowResult {
  if ("error" in rec) return { line: rec.line, subject: `line ${rec.line}`, kind: "invalid", message: rec.error };
  const f = rec.fields;
  const externalId =
    typeof f.external_id === "string"
      ? f.external_id.trim()
      : f.external_id === undefined || f.external_id === null
        ? ""
        : JSON.stringify(f.external_id);
  const subject = typeof f.domain === "string" ? f.domain : externalId || `line ${rec.line}`;
  const invalid = (message: string): RowResult => ({ line: rec.line, subject, kind: "invalid", message });
  if (!externalId)
    return invalid("external_id is required on every row: it is how a re-run finds the order instead of buying again");
  if (externalId.length > 64) return invalid("external_id must be 1..64 characters");
  if (typeof f.domain !== "string") return invalid("domain is required");
  const domain = checkDomainName(f.domain, options.zones);
  if ("error" in domain) return invalid(domain.error);
  const period = checkPeriod(f.period, options.period);
  if ("error" in period) return invalid(period.error);
  const ns = nameserversOf(f.nameservers);
  if ("error" in ns) return invalid(ns.error);
  const known = new Set(["external_id", "domain", "period", "nameservers", "action"]);
  const unknownField = Object.keys(f).find((k) => !known.has(k) && f[k] !== "" && f[k] !== undefined);
  if (unknownField)
    return invalid(`unknown field ${JSON.stringify(unknownField)}; fields: external_id, domain, period, nameservers`);
  if (f.action !== undefined && f.action !== "" && f.action !== "register")
    return invalid("action can only be register");
  const body: OrderBody = { external_id: externalId, action: "register", domain: domain.name, period: period.period };
  if (ns.list) body.nameservers = ns.list;
  return { line: rec.line, body, key: `${REGISTER_KEY_PREFIX}${externalId}`, bytes: JSON.stringify(body) };
}

/** The columns of an order (docs/guides/cli.md): the first two on every row, the others optional. */
const REQUIRED_COLUMNS = ["external_id", "domain"] as const;
const OPTIONAL_COLUMNS = ["period", "nameservers"] as const;
/** Accepted too: `action` (it can only be register). */
const KNOWN_COLUMNS: ReadonlySet<string> = new Set([...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS, "action"]);
const HEADER = [...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS].join(",");
const ORDER_INPUT = `CSV with the header ${HEADER}, or JSON lines`;

/**
 * The first line of a CSV input must be its header and name the order's columns: a file of names, a
 * header of other columns, or another delimiter would otherwise make every row "invalid" (or, with a
 * header of unknown columns and no row, a job of 0 rows that "succeeds").
 */
function checkHeader(firstLine: string, name: string): void {
  const columns = firstLine
    .split(",")
    .map((c) =>
      c
        .trim()
        .replace(/^"(.*)"$/, "$1")
        .trim()
        .toLowerCase(),
    )
    .filter((c) => c !== "");
  const missing = REQUIRED_COLUMNS.filter((c) => !columns.includes(c));
  const unknown = columns.filter((c) => !KNOWN_COLUMNS.has(c));
  if (missing.length === 0 && unknown.length === 0) return;
  const shown = firstLine.length > 80 ? `${firstLine.slice(0, 79)}…` : firstLine;
  const problems = [
    missing.length ? `it lacks ${missing.join(" and ")}` : "",
    unknown.length ? `it names unknown column(s) ${unknown.map((c) => JSON.stringify(c)).join(", ")}` : "",
  ].filter(Boolean);
  const why =
    !firstLine.includes(",") && /[\t;]/.test(firstLine)
      ? `the delimiter must be a comma, and this line is separated by ${firstLine.includes("\t") ? "tabs" : "semicolons"}`
      : problems.join("; ");
  throw new UsageError(
    `register: the first line of ${name} must be the CSV header ${HEADER} (external_id and domain required, period and nameservers optional, in any order), got ${JSON.stringify(
      shown,
    )}: ${why}. Or give JSON lines (--format jsonl). Nothing was sent.`,
  );
}

function sameBody(record: CommandRecord, bytes: string): boolean {
  return record.body !== null && new TextDecoder().decode(record.body) === bytes;
}

export async function runRegister(global: GlobalOptions, rt: Runtime, options: RegisterOptions): Promise<ExitCode> {
  // --no-quotes belongs to a dry run: without --dry-run it would be a real job the operator did not mean.
  if (!options.quotes && !options.dryRun)
    throw new UsageError(
      "register: --no-quotes only goes with --dry-run (it skips the prices of a dry run); add --dry-run to see what would be sent, or drop --no-quotes to register for real. Nothing was sent.",
    );
  let input = options.input;
  if (input === undefined) {
    if (rt.stdin.isTTY)
      throw new UsageError("register needs orders: a FILE (CSV with a header, or JSON lines), or - for stdin.");
    input = "-";
    await ensureStdinHasData(rt.stdin, "register");
  }
  const source = openInput(input, rt.stdin)!;
  await ensureReadable(source);
  const lines = await ensureFileHasData(source, "register");
  const head = await peekHead(source);
  if (head.firstLine === null)
    throw new UsageError(`register: ${source.name} is empty: give the orders (${ORDER_INPUT}); nothing was sent.`);
  if (head.binary)
    throw new UsageError(
      `register: ${source.name} is not UTF-8 text (a spreadsheet, a zip or another binary file, or another encoding?): save the orders as ${ORDER_INPUT}; nothing was sent.`,
    );
  const format =
    options.format ??
    (/\.csv$/i.test(input)
      ? "csv"
      : /\.(jsonl|ndjson|json)$/i.test(input)
        ? "jsonl"
        : head.firstLine.startsWith("{")
          ? "jsonl"
          : "csv");
  if (format === "csv") checkHeader(head.firstLine, source.name);
  const total = lines === undefined ? undefined : format === "csv" ? Math.max(0, lines - 1) : lines;

  return withJobSession(global, rt, "register", options.dryRun, async (env) => {
    const { session, io, sink } = env;
    const quotes = new QuoteBook(session.client, options.zones);
    const tracker = new DuplicateTracker();

    async function* rows(): AsyncGenerator<SourceItem<OrderRow>> {
      const records = format === "csv" ? readCsv(source.stream) : readJsonLines(source.stream);
      for await (const rec of records) {
        const order = orderFromRecord(rec, options);
        if (!("body" in order)) {
          yield { result: order };
          continue;
        }
        // An external_id that is (or holds) the token, its secret part, or anything the CLI never
        // prints: it is sent to the API, kept in the journal, and every line quoting it would be
        // redacted — so it could never be matched again (unknown forever). Refused before any send.
        if (rt.redactor && rt.redactor.text(order.body.external_id) !== order.body.external_id) {
          yield {
            result: {
              line: order.line,
              subject: order.body.domain,
              kind: "invalid",
              message:
                "this external_id is (or contains) a secret — the API token's secret part, a token or a signing secret — which is never sent nor printed: change the external_id to another unique value (and revoke the token if it was shared); nothing was sent",
            },
          };
          continue;
        }
        const problem = tracker.check(order.body.external_id, order.bytes, order.line, "external_id");
        if (problem) {
          yield {
            result: {
              line: order.line,
              subject: order.body.domain,
              kind: "invalid",
              message: problem,
              idempotencyKey: order.key,
            },
          };
          continue;
        }
        yield { row: order, line: order.line, subject: order.body.domain };
      }
    }

    /** An order's status now (one GET), or undefined when it cannot be read. */
    async function orderStatus(orderUuid: string): Promise<string | undefined> {
      const outcome = await session.client.orders.get({ orderUuid });
      return outcome.kind === "succeeded" ? stringOf(dataRecordOf(outcome.data)?.status) : undefined;
    }

    /** Polls an order (one GET a second, paced like every request) until it settles or the wait ends. */
    async function waitForOrder(orderUuid: string): Promise<string | undefined> {
      const deadline = session.clock.now() + CLI_DEFAULTS.job.waitTimeoutMs;
      let status: string | undefined;
      while (session.clock.now() < deadline) {
        await session.clock.sleep(ORDER_POLL_MS);
        status = await orderStatus(orderUuid);
        if (status !== "pending" && status !== "processing") return status;
      }
      return status;
    }

    async function registerOne(
      row: OrderRow,
      ctx: { state: (l: number | undefined, s: string, st: string, e?: Record<string, unknown>) => void },
    ): Promise<RowResult> {
      const base: RowResult = {
        line: row.line,
        subject: row.body.domain,
        kind: "done",
        idempotencyKey: row.key,
        data: { external_id: row.body.external_id, period: row.body.period },
      };
      const existing = await session.journal.findByIdempotencyKey(session.apiKeyId, row.key);
      if (existing) {
        if (!sameBody(existing, row.bytes)) {
          return {
            ...base,
            kind: "invalid",
            commandId: existing.id,
            message: `external_id ${row.body.external_id} was already used for a different order (command ${
              existing.id
            }, ${isoOf(existing.createdAt)}); never reuse it for another order`,
          };
        }
        const withIds = { ...base, commandId: existing.id, orderUuid: existing.resources.orderUuid };
        switch (existing.state) {
          case "succeeded":
          case "completed": {
            // Placed earlier; an order still pending then is read again (one GET), never placed again.
            const status = withIds.orderUuid ? await orderStatus(withIds.orderUuid) : undefined;
            if (status === "pending" || status === "processing")
              return {
                ...withIds,
                kind: "pending",
                message: `order ${status} (placed by command ${existing.id}); re-run later to see it complete — it is never ordered twice`,
              };
            if (status === "failed" || status === "cancelled")
              return {
                ...withIds,
                kind: "rejected",
                message: `order ${status} (placed by command ${existing.id}); nothing sent`,
              };
            return { ...withIds, kind: "already_done", message: `ordered by command ${existing.id}; nothing sent` };
          }
          case "rejected":
          case "failed":
            return {
              ...withIds,
              kind: "rejected",
              message: `this order was ${existing.state} earlier (command ${existing.id}); use a new external_id for a corrected order`,
            };
          default:
            return unsettledRow(withIds, existing, "order");
        }
      }
      if (options.dryRun) {
        const price = options.quotes ? await quotes.price("register", row.body.domain, row.body.period) : undefined;
        if (price) quotes.add(price);
        return {
          ...base,
          kind: "dry_run",
          message: `would send POST /orders ${row.bytes}`,
          data: { ...base.data, price },
        };
      }
      ctx.state(row.line, row.body.domain, "sending", { idempotencyKey: row.key });
      let outcome;
      try {
        outcome = await session.client.orders.create({ body: row.body }, { idempotencyKey: row.key });
      } catch (error) {
        if (error instanceof DomainLockedError)
          return {
            ...base,
            kind: "unknown",
            message: `another order for this domain is in flight (command ${error.heldBy}); run \`reseller recover\``,
          };
        if (error instanceof InvalidArgumentError) return { ...base, kind: "invalid", message: error.message };
        throw error;
      }
      const common = { ...base, commandId: outcome.commandId, requestIds: requestIdsOf(outcome) };
      if (outcome.kind === "succeeded") {
        const order = dataRecordOf(outcome.data);
        const orderUuid = stringOf(order?.uuid);
        let status = stringOf(order?.status);
        // F-rules: an order is placed pending and settles later; the row waits for it (as renew
        // waits for its operation), so "done" means the order completed. Still pending after the
        // wait: `pending` (exit 3), and a re-run reads it again — never orders it twice.
        if ((status === "pending" || status === "processing") && orderUuid)
          status = (await waitForOrder(orderUuid)) ?? status;
        if (status === "pending" || status === "processing")
          return {
            ...common,
            kind: "pending",
            orderUuid,
            message: `order ${status}${outcome.reconciled ? " (found by external_id)" : ""}: placed, still processing; re-run later to see it complete — it is never ordered twice`,
            data: { ...common.data, amount: order?.amount },
          };
        return {
          ...common,
          kind: status === "failed" || status === "cancelled" ? "rejected" : "done",
          orderUuid,
          message: `order ${status ?? "created"}${outcome.reconciled ? " (found by external_id)" : ""}`,
          data: { ...common.data, amount: order?.amount },
        };
      }
      if (outcome.kind === "rejected") return { ...common, kind: "rejected", message: describeOutcome(outcome) };
      return { ...common, kind: "unknown", message: describeOutcome(outcome) };
    }

    const job = {
      name: "register",
      source: rows(),
      total: () => total,
      concurrency: options.concurrency,
      onError: options.onError,
      run: registerOne,
      resumeHint:
        "Re-run the same command to resume: orders already placed are found by external_id and never placed twice.",
    };
    const outcome = await runJob(job, io, env.progress, sink);
    const cost = options.dryRun && options.quotes ? { quotes, rows: "order(s)", nothing: "ordered" } : undefined;
    return finishJob(env, outcome, job, cost);
  });
}
