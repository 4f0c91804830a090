/**
 * `reseller renew`: one renewal command per domain, from a file/stdin of names (or UUIDs) or from
 * `--expiring-within`. The Idempotency-Key is derived from the job's own inputs — domain, period and
 * the target term — so a resumed run sends the same key and bytes (D2, D4), and before any send the
 * journal is consulted: a domain this journal already renewed (or is renewing) is never renewed
 * again, and a finished job re-run sends no write at all.
 */
import {
  DomainLockedError,
  InvalidArgumentError,
  RequestAbortedError,
  type CommandRecord,
  type OperationResource,
} from "../src/index";
import { formatDuration } from "./args";
import { JournalQueries } from "./journal-queries";
import {
  DomainResolver,
  latestRenewal,
  NAMES_PER_LOOKUP,
  listDomains,
  renewKey,
  targetTerm,
  termsOfKey,
  type DomainRef,
} from "./renewals";
import { UsageError } from "./errors";
import type { ExitCode } from "./exit-codes";
import { dataLines, ensureFileHasData, ensureReadable, ensureStdinHasData, openInput } from "./input";
import { finishJob, notice, withJobSession, type Runtime } from "./job-session";
import { runJob, type JobContext, type RowResult, type SourceItem } from "./jobs";
import { describeOutcome, requestIdsOf, unsettledRow } from "./outcome-text";
import { QuoteBook } from "./quotes";
import { rowFields, type Field } from "./row-line";
import { isoOf } from "./shape";
import { checkDomainName, checkPeriod, isUuid } from "./rows";
import type { GlobalOptions } from "./session";

export interface RenewOptions {
  input?: string;
  expiringWithinMs?: number;
  period: number;
  wait: boolean;
  dryRun: boolean;
  quotes: boolean;
  concurrency: number;
  onError: "continue" | "stop";
  renewedWithinMs: number;
  attempt: number;
  waitTimeoutMs: number;
  zones: readonly string[];
}

interface RenewRow {
  line?: number;
  /** Known up front (--expiring-within lists them) … */
  domain?: DomainRef;
  /** … or the UUID a FILE line names, looked up when the row starts. */
  ref?: { uuid: string };
  period: number;
}

export async function runRenew(global: GlobalOptions, rt: Runtime, options: RenewOptions): Promise<ExitCode> {
  // --no-quotes belongs to a dry run: without --dry-run it would be a real job the operator did not mean.
  if (!options.quotes && !options.dryRun)
    throw new UsageError(
      "renew: --no-quotes only goes with --dry-run (it skips the prices of a dry run); add --dry-run to see what would be sent, or drop --no-quotes to renew for real. Nothing was sent.",
    );
  let implicitStdin = false;
  if ((options.input === undefined) === (options.expiringWithinMs === undefined)) {
    if (options.input === undefined && !rt.stdin.isTTY) {
      options.input = "-";
      implicitStdin = true;
    } else
      throw new UsageError(
        "renew needs the domains: a FILE (or - for stdin) of names or UUIDs, or --expiring-within 30d — not both.",
      );
  }
  const source = options.input !== undefined ? openInput(options.input, rt.stdin) : undefined;
  if (source) await ensureReadable(source);
  if (source && implicitStdin) await ensureStdinHasData(source.stream, "renew");
  const fileLines = source ? await ensureFileHasData(source, "renew") : undefined;
  return withJobSession(global, rt, "renew", options.dryRun, async (env) => {
    const { session, sink, io } = env;
    const quotes = new QuoteBook(session.client, options.zones);
    let total: number | undefined;
    let listed = 0;
    let skipped = 0;
    const onSkipped = () => (skipped += 1);
    const onSkippedLater = () => {
      if (++skipped === 1) notice(io, sink, "a listed item without a uuid, a name or a valid expires_at was skipped");
    };
    const queries = new JournalQueries(session.journal);
    const resolver = new DomainResolver(env, onSkippedLater);
    const noteSkipped = () => {
      if (skipped > 0)
        notice(io, sink, `${skipped} listed item(s) without a uuid, a name or a valid expires_at were skipped`);
    };

    async function* rows(): AsyncGenerator<SourceItem<RenewRow>> {
      if (options.expiringWithinMs !== undefined) {
        const horizon = session.clock.now() + options.expiringWithinMs;
        for await (const domain of listDomains(env, onSkipped)) {
          if (Date.parse(domain.expires_at) > horizon) continue;
          listed += 1;
          yield { row: { domain, period: options.period }, subject: domain.name };
        }
        total = listed;
        noteSkipped();
        return;
      }
      // A file names domains: up to 100 names are resolved by one filtered lookup (a UUID by its own
      // GET, when its row starts), never by listing the account first.
      total = fileLines;
      let batch: { line: number; rawName: string; name?: string; uuid?: string; period: number }[] = [];
      const flush = async function* (): AsyncGenerator<SourceItem<RenewRow>> {
        const names = batch.filter((b) => b.name !== undefined).map((b) => b.name!);
        const found = await resolver.byNames(names);
        for (const b of batch) {
          const domain = b.name !== undefined ? found.get(b.name) : undefined;
          if (b.name !== undefined && !domain) {
            yield {
              result: {
                line: b.line,
                subject: b.rawName,
                kind: "invalid",
                message: "not one of this key's domains (GET /domains does not list it)",
              },
            };
            continue;
          }
          const ref = b.uuid !== undefined ? { uuid: b.uuid } : undefined;
          yield {
            row: { line: b.line, domain, ref, period: b.period },
            line: b.line,
            subject: domain?.name ?? b.uuid!,
          };
        }
        batch = [];
      };
      for await (const { line, text } of dataLines(source!.stream)) {
        const [rawName, rawPeriod, extra] = text.split(/[\s,;]+/);
        const bad = (message: string): SourceItem<RenewRow> => ({
          result: { line, subject: rawName, kind: "invalid", message },
        });
        if (extra !== undefined) {
          yield* flush();
          yield bad("expected `name-or-uuid[,period]`");
          continue;
        }
        const period = checkPeriod(rawPeriod, options.period);
        if ("error" in period) {
          yield* flush();
          yield bad(period.error);
          continue;
        }
        if (isUuid(rawName)) batch.push({ line, rawName, uuid: rawName.toLowerCase(), period: period.period });
        else {
          const name = checkDomainName(rawName, options.zones);
          if ("error" in name) {
            yield* flush();
            yield bad(name.error);
            continue;
          }
          batch.push({ line, rawName, name: name.name, period: period.period });
        }
        if (batch.length >= NAMES_PER_LOOKUP) yield* flush();
      }
      yield* flush();
    }

    /** A FILE row's domain: one lookup by UUID or by name (DomainResolver), or an `invalid` result. */
    async function domainOf(row: RenewRow): Promise<DomainRef | RowResult> {
      if (row.domain) return row.domain;
      const uuid = row.ref!.uuid;
      const domain = await resolver.byUuid(uuid);
      if (domain) return domain;
      return {
        line: row.line,
        subject: uuid,
        kind: "invalid",
        message: "not one of this key's domains (GET /domains/{uuid} does not find it)",
      };
    }

    const seen = new Map<string, number>(); // domain → first line, within this input
    // Rows claim their domain in input order: a UUID line waits for its lookup while a later name
    // line of the same domain is already known, yet the first line is the one kept (as for a name
    // twice). Lookups still run concurrently; only the claims are taken one after another.
    let claims: Promise<unknown> = Promise.resolve();

    async function renewOne(row: RenewRow, ctx: JobContext): Promise<RowResult> {
      const { line } = row;
      const lookup = domainOf(row);
      const claim = claims.then(async () => {
        const found = await lookup;
        if (!("uuid" in found)) return { found, first: undefined };
        const first = seen.get(found.uuid);
        if (first === undefined) seen.set(found.uuid, line ?? 0);
        return { found, first };
      });
      claims = claim.catch(() => undefined);
      const { found, first } = await claim;
      if (!("uuid" in found)) return found;
      const domain = found;
      const base = { line, subject: domain.name, domainUuid: domain.uuid };
      if (first !== undefined)
        return { ...base, kind: "invalid", message: `duplicate of line ${first}; renewed once only` };
      const target = targetTerm(domain.expires_at, row.period);
      const key = renewKey(domain.uuid, row.period, target, options.attempt);
      const withKey: RowResult = {
        ...base,
        kind: "pending",
        idempotencyKey: key,
        data: { period: row.period, from: domain.expires_at.slice(0, 10), target },
      };
      const previous = await latestRenewal(queries, session.apiKeyId, domain.uuid);
      if (previous) {
        const recent = session.clock.now() - previous.createdAt < options.renewedWithinMs;
        const failed = previous.state === "failed" || previous.state === "rejected";
        if (previous.idempotencyKey === key || (recent && !failed)) return settleExisting(previous, withKey, ctx);
      }
      if (options.dryRun) {
        const price = options.quotes ? await quotes.price("renew", domain.name, row.period) : undefined;
        if (price) quotes.add(price);
        return {
          ...withKey,
          kind: "dry_run",
          message: `would send POST /domains/${domain.uuid}/renew {"period":${row.period}}`,
          data: { ...withKey.data, price },
        };
      }
      ctx.state(line, domain.name, "sending", { idempotencyKey: key });
      let outcome;
      try {
        outcome = await session.client.domains.renew(
          { domainUuid: domain.uuid, body: { period: row.period } },
          { idempotencyKey: key },
        );
      } catch (error) {
        if (error instanceof DomainLockedError) {
          return {
            ...withKey,
            kind: "unknown",
            message: `another command for this domain is in flight (command ${error.heldBy}); run \`reseller recover\``,
          };
        }
        if (error instanceof InvalidArgumentError) return { ...withKey, kind: "invalid", message: error.message };
        throw error;
      }
      const common: RowResult = { ...withKey, commandId: outcome.commandId, requestIds: requestIdsOf(outcome) };
      switch (outcome.kind) {
        case "accepted":
          return afterAcceptance(common, outcome.operationUuid, outcome.commandId, ctx);
        case "succeeded":
          return { ...common, kind: "done", message: `HTTP ${outcome.status}` };
        case "rejected":
          return { ...common, kind: "rejected", message: describeOutcome(outcome) };
        default:
          return { ...common, kind: "unknown", message: describeOutcome(outcome) };
      }
    }

    async function afterAcceptance(
      result: RowResult,
      operationUuid: string,
      commandId: string | undefined,
      ctx: JobContext,
    ): Promise<RowResult> {
      const accepted = { ...result, operationUuid };
      ctx.state(result.line, result.subject, "accepted", { operationUuid });
      if (!options.wait)
        return {
          ...accepted,
          kind: "accepted",
          message: `not waited for (--no-wait): operation ${operationUuid}`,
        };
      try {
        const waited = await session.client.operations.wait(operationUuid, {
          commandId,
          // No signal: the first Ctrl-C (or a closed stdout) lets this in-flight wait settle; the
          // second Ctrl-C exits at once (jobs.ts), and the next run keeps waiting, never renewing again.
          deadline: session.clock.now() + options.waitTimeoutMs,
          onPoll: ctx.polled,
        });
        if (waited.kind === "completed")
          return {
            ...accepted,
            kind: "done",
            message: "renewed",
            data: { ...accepted.data, operation: slim(waited.operation) },
          };
        if (waited.kind === "failed") {
          return {
            ...accepted,
            kind: "rejected",
            message: `operation failed: ${waited.operation.error?.code ?? "no code"} ${
              waited.operation.error?.message ?? ""
            }`.trim(),
          };
        }
        if (waited.kind === "timeout") {
          return {
            ...accepted,
            kind: "pending",
            message: `operation still ${waited.lastOperation?.status ?? "unread"} after ${formatDuration(
              options.waitTimeoutMs,
            )}; re-run to keep waiting (never renew again)`,
          };
        }
        return {
          ...accepted,
          kind: "unknown",
          message: `the operation cannot be read: ${describeOutcome(waited.outcome)}`,
        };
      } catch (error) {
        if (error instanceof RequestAbortedError) {
          return {
            ...accepted,
            kind: "pending",
            message: "interrupted while waiting for the operation; re-run the same command to keep waiting",
          };
        }
        throw error;
      }
    }

    /** A journalled renewal of this domain exists: report or finish it, never send a new one. */
    async function settleExisting(record: CommandRecord, result: RowResult, ctx: JobContext): Promise<RowResult> {
      const r: RowResult = {
        ...result,
        idempotencyKey: record.idempotencyKey,
        commandId: record.id,
        operationUuid: record.resources.operationUuid,
      };
      const when = isoOf(record.createdAt);
      // The terms this command went from and to (its key names them), not those of a renewal made now:
      // the domain's expiry already shows the renewed term. Another client's key names neither.
      const terms = termsOfKey(record.idempotencyKey);
      if (result.data)
        r.data = {
          ...result.data,
          from: terms?.from ?? null,
          target: terms?.target ?? null,
          next_target: result.data.target,
        };
      switch (record.state) {
        case "completed":
        case "succeeded":
          return { ...r, kind: "already_done", message: `renewed by command ${record.id} (${when}); nothing sent` };
        case "accepted":
          if (options.dryRun || !r.operationUuid)
            return {
              ...r,
              kind: "pending",
              message: `accepted by command ${record.id}; operation ${r.operationUuid ?? "unknown"} not finished`,
            };
          return afterAcceptance(r, r.operationUuid, record.id, ctx);
        case "failed":
        case "rejected":
          return {
            ...r,
            kind: "rejected",
            message: `the same renewal already ${record.state} (command ${
              record.id
            }); its key is spent — fix the cause, then re-run with --attempt ${options.attempt + 1}`,
          };
        default:
          return unsettledRow(r, record, "renew");
      }
    }

    const job = {
      name: "renew",
      source: rows(),
      total: () => total,
      concurrency: options.concurrency,
      onError: options.onError,
      run: renewOne,
      // Before any row is measured: a send, plus a poll or two when waiting for the operation.
      requestsPerRow: () => (options.wait && !options.dryRun ? 3 : 1),
      resumeHint:
        "Re-run the same command to resume: finished domains are skipped, in-flight ones are reconciled, none is renewed twice.",
    };
    const outcome = await runJob(job, { ...io, describe }, env.progress, sink);
    const cost = options.dryRun && options.quotes ? { quotes, rows: "renewal(s)", nothing: "renewed" } : undefined;
    return finishJob(env, outcome, job, cost);
  });
}

function slim(op: OperationResource): Record<string, unknown> {
  return { uuid: op.uuid, status: op.status, completed_at: op.completed_at };
}

function describe(r: RowResult): Field[] {
  const target = typeof r.data?.target === "string" ? [{ text: `→ ${r.data.target}`, drop: 1, glue: " " }] : [];
  return rowFields(r, target);
}
