/**
 * `reseller check`: availability of names from arguments, a file or stdin, batched as the API
 * allows (50 names per POST /domains/check). Every batch is a fresh business action with its own
 * Idempotency-Key (a re-run must ask the registry again, not replay a stale answer); retries of one
 * batch keep its key and bytes (D4). `--dry-run` needs no credentials and sends nothing.
 */
import type { ExitCode } from "./exit-codes";
import { dataLines, ensureFileHasData, ensureReadable, ensureStdinHasData, openInput, type InputSource } from "./input";
import { withJobSession, type Runtime } from "./job-session";
import { createJobIo, printSummary, runJob, type JobIo, type RowResult, type SourceItem } from "./jobs";
import { outputMode } from "./output";
import { describeOutcome, requestIdsOf } from "./outcome-text";
import { rowFields, type Field } from "./row-line";
import { Progress } from "./progress";
import { checkDomainName } from "./rows";
import { dataListOf, priceOf, recordOf, stringOf } from "./shape";
import type { GlobalOptions } from "./session";
import { UsageError } from "./errors";

export interface CheckOptions {
  names: string[];
  input?: string;
  dryRun: boolean;
  concurrency: number;
  onError: "continue" | "stop";
  zones: readonly string[];
  batchSize: number;
}

interface Batch {
  index: number;
  names: { name: string; line?: number }[];
}

async function* candidates(
  options: CheckOptions,
  source: InputSource | undefined,
): AsyncGenerator<{ text: string; line?: number }> {
  for (const name of options.names) yield { text: name };
  if (source) for await (const l of dataLines(source.stream)) yield { text: l.text, line: l.line };
}

async function* batches(options: CheckOptions, source: InputSource | undefined): AsyncGenerator<SourceItem<Batch>> {
  const seen = new Map<string, number | undefined>();
  let current: Batch = { index: 1, names: [] };
  for await (const { text, line } of candidates(options, source)) {
    const checked = checkDomainName(text, options.zones);
    if ("error" in checked) {
      yield { result: { line, subject: text, kind: "invalid", message: checked.error } };
      continue;
    }
    if (seen.has(checked.name)) {
      const first = seen.get(checked.name);
      yield {
        result: {
          line,
          subject: checked.name,
          kind: "invalid",
          message: `duplicate of ${first === undefined ? "an argument" : `line ${first}`}; checked once`,
        },
      };
      continue;
    }
    seen.set(checked.name, line);
    current.names.push({ name: checked.name, line });
    if (current.names.length === options.batchSize) {
      yield { row: current, subject: `batch ${current.index}` };
      current = { index: current.index + 1, names: [] };
    }
  }
  if (current.names.length > 0) yield { row: current, subject: `batch ${current.index}` };
}

function describe(r: RowResult): Field[] {
  if (r.kind !== "done") return rowFields(r);
  const price = priceOf(r.data?.price);
  const fields = rowFields({ ...r, message: undefined }, [], r.data?.available ? "available" : "taken");
  return price ? [...fields, { text: `${price.amount} ${price.currency}`, drop: 1 }] : fields;
}

export async function runCheck(global: GlobalOptions, rt: Runtime, options: CheckOptions): Promise<ExitCode> {
  let input = options.input;
  if (input === undefined && options.names.length === 0) {
    if (rt.stdin.isTTY) throw new UsageError("check needs names: as arguments, a --file FILE, or lines on stdin.");
    input = "-";
    await ensureStdinHasData(rt.stdin, "check");
  }
  const source = input !== undefined ? openInput(input, rt.stdin) : undefined;
  if (source) await ensureReadable(source);
  const fileLines = source ? await ensureFileHasData(source, "check") : undefined;
  const total = fileLines !== undefined ? fileLines + options.names.length : source ? undefined : options.names.length;
  const job = (run: (b: Batch) => Promise<RowResult[]>) => ({
    name: "check",
    source: batches(options, source),
    total: () => total,
    concurrency: options.concurrency,
    onError: options.onError,
    run,
    requestsPerRow: () => 1 / options.batchSize,
    resumeHint: "Re-run the same command: a check buys nothing, so every name is simply checked again.",
  });

  if (options.dryRun) {
    // Nothing is sent, so no credentials, journal or recovery are needed.
    const progress = new Progress("check", () => undefined);
    const io: JobIo = {
      stdout: rt.stdout,
      stderr: rt.stderr,
      mode: outputMode(global.json, rt.stdout, rt.stderr),
      proc: rt.proc,
      pace: progress.pace,
      describe,
    };
    const sink = createJobIo(io, progress);
    const spec = job(async (batch) =>
      batch.names.map(({ name, line }) => ({
        line,
        subject: name,
        kind: "dry_run" as const,
        message: `would be checked in batch ${batch.index} (POST /domains/check)`,
      })),
    );
    const outcome = await runJob(spec, io, progress, sink);
    printSummary(outcome, spec, io);
    return outcome.exitCode;
  }

  return withJobSession(global, rt, "check", false, async (env) => {
    const spec = job(async (batch) => {
      const outcome = await env.session.client.domains.check({ body: { names: batch.names.map((n) => n.name) } });
      const ids = requestIdsOf(outcome);
      if (outcome.kind !== "succeeded") {
        const kind = outcome.kind === "rejected" ? ("rejected" as const) : ("unknown" as const);
        return batch.names.map(({ name, line }) => ({
          line,
          subject: name,
          kind,
          message: describeOutcome(outcome),
          requestIds: ids,
        }));
      }
      // E5: only well-formed entries count; a name the answer does not (readably) mention is unknown.
      const results = new Map<string, { name: string; available: boolean; price: unknown }>();
      for (const entry of dataListOf(outcome.data) ?? []) {
        const r = recordOf(entry);
        const entryName = stringOf(r?.name);
        if (r && entryName !== undefined && typeof r.available === "boolean")
          results.set(entryName.toLowerCase(), { name: entryName, available: r.available, price: priceOf(r.price) });
      }
      return batch.names.map(({ name, line }) => {
        const r = results.get(name);
        if (!r)
          return {
            line,
            subject: name,
            kind: "unknown" as const,
            message: "the answer did not mention this name",
            requestIds: ids,
          };
        return { line, subject: name, kind: "done" as const, data: { available: r.available, price: r.price } };
      });
    });
    const outcome = await runJob(spec, { ...env.io, describe }, env.progress, env.sink);
    printSummary(outcome, spec, env.io);
    return outcome.exitCode;
  });
}
