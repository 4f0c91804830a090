/**
 * The job runner shared by check, renew and register: a bounded number of rows in flight, pulled
 * from a streamed source (so memory stays flat and the first request is not delayed by the last
 * line), each row's result printed as soon as it settles, a documented --on-error policy, and the
 * Ctrl-C behaviour of interrupt.ts. Rows never bypass the journal: `run` goes through the client.
 */
import { once } from "node:events";
import { readFileSync } from "node:fs";
import type { Writable } from "node:stream";
import type { WaitPoll } from "../src/index";
import { formatDuration } from "./args";
import { EXIT, exitCodeFor, type ExitCode, type ResultKind } from "./exit-codes";
import { watchInterrupts } from "./interrupt";
import { colourOn, paintKind } from "./colour";
import { jsonLine, renderTable, terminalColumns, type OutputMode } from "./output";
import type { Progress } from "./progress";
import { fitFields, rowFields, type Field } from "./row-line";
import { jsonSink, ttySink, type PaceView, type ProgressSink } from "./progress";

export interface RowResult {
  /** 1-based input line (absent for rows that came from the API, e.g. --expiring-within). */
  line?: number;
  /** What the row is about: a domain name, an external_id, a batch. */
  subject: string;
  kind: ResultKind;
  message?: string;
  idempotencyKey?: string;
  commandId?: string;
  domainUuid?: string;
  operationUuid?: string;
  orderUuid?: string;
  requestIds?: string[];
  /** Command-specific data (availability, price, new expiry…). */
  data?: Record<string, unknown>;
}

/** An input row that failed validation is yielded as its `invalid` result, in order. */
export type SourceItem<Row> = { row: Row; line?: number; subject: string } | { result: RowResult };

export interface JobContext {
  /** Aborted on the first Ctrl-C: stop waiting (polls), but let sends settle. */
  interrupt: AbortSignal;
  /** Reports a row's intermediate state change (sending, accepted…). */
  state(line: number | undefined, subject: string, state: string, extra?: Record<string, unknown>): void;
  /** `WaitOptions.onPoll` for a row that waits on its operation: its polls set the ETA's floor (eta.ts). */
  polled: (poll: WaitPoll) => void;
}

export interface JobSpec<Row> {
  name: string;
  source: AsyncIterable<SourceItem<Row>>;
  /** Rows in total, when known up front (or once the source has been read). */
  total?: () => number | undefined;
  concurrency: number;
  onError: "continue" | "stop";
  run(row: Row, ctx: JobContext): Promise<RowResult | RowResult[]>;
  /** Requests a row is expected to cost before any is measured (for the ETA); default 1. */
  requestsPerRow?: () => number;
  /** Printed when the job was interrupted: how to resume. */
  resumeHint: string;
}

export interface JobIo {
  stdout: Writable;
  stderr: Writable;
  mode: OutputMode;
  proc: NodeJS.Process;
  pace: PaceView;
  /** --wide: tables at full width. */
  wide?: boolean;
  /** The fields of a human result line (row-line.ts fits them to the terminal). */
  describe?: (r: RowResult) => Field[];
}

export interface JobOutcome {
  exitCode: ExitCode;
  counts: Partial<Record<ResultKind, number>>;
  interrupted: boolean;
  stoppedByPolicy: boolean;
  elapsedMs: number;
  progress: Progress;
}

const roundOrNull = (n: number | undefined) => (n === undefined ? null : Math.round(n * 10) / 10);

const STOPPING_KINDS: ReadonlySet<ResultKind> = new Set(["rejected", "invalid"]);

export function createJobIo(io: Omit<JobIo, "pace">, progress: Progress): ProgressSink {
  return io.mode.ttyErr ? ttySink(io.stderr, progress) : jsonSink(io.stderr, progress.now);
}

export async function runJob<Row>(
  spec: JobSpec<Row>,
  io: JobIo,
  progress: Progress,
  sink: ProgressSink,
): Promise<JobOutcome> {
  const c = progress.counters;
  let stoppedByPolicy = false;
  const interrupt = watchInterrupts(
    io.proc,
    () => {
      progress.status = `interrupted: Ctrl-C again exits now; finishing ${c.inFlight} in flight`;
      sink.event({ type: "interrupt", inFlight: c.inFlight, message: "no new rows will start; rows in flight settle" });
      sink.render();
    },
    () => {
      sink.stop();
      const message = `Exiting now. Nothing is lost: every write was journalled first. ${spec.resumeHint}`;
      // Not a terminal: one JSON event, like every other stderr line (`2> events.jsonl`, `| jq`).
      if (io.mode.ttyErr) io.stderr.write(`\n${message}\n`);
      else sink.event({ type: "exit", exitCode: EXIT.interrupted, message, resume: spec.resumeHint });
      io.proc.exit(EXIT.interrupted);
    },
    spec.concurrency,
  );
  const emitResult = (r: RowResult) => {
    c.finished += 1;
    c.byKind[r.kind] = (c.byKind[r.kind] ?? 0) + 1;
    if (io.mode.json) io.stdout.write(jsonLine(r));
    else {
      const columns = terminalColumns(io.stdout);
      const text = fitFields((io.describe ?? rowFields)(r), columns === undefined ? undefined : columns - 1);
      sink.above(io.stdout, colourOn(io.stdout) ? text.replace(`  ${r.kind}`, `  ${paintKind(true, r.kind)}`) : text);
    }
    sink.event({
      type: "row",
      line: r.line,
      subject: r.subject,
      state: r.kind,
      finished: c.finished,
      etaMs: progress.etaMs(),
      requestsLeft: roundOrNull(progress.requestsLeft()),
      requestsSent: progress.jobRequests(),
    });
    if (spec.onError === "stop" && STOPPING_KINDS.has(r.kind) && !stoppedByPolicy) {
      stoppedByPolicy = true;
      progress.status = `stopping: --on-error stop after ${r.kind} row`;
      sink.event({
        type: "stop",
        reason: `--on-error stop: ${r.kind} row${r.line !== undefined ? ` at line ${r.line}` : ""}`,
      });
    }
  };
  const ctx: JobContext = {
    interrupt: interrupt.signal,
    state(line, subject, state, extra) {
      sink.event({ type: "row", line, subject, state, ...extra });
    },
    polled: (poll) => progress.eta.polled(poll),
  };
  // Backpressure: a slow reader of stdout slows the job instead of growing a buffer in memory.
  const drained = async () => {
    // A closed stdout (EPIPE) ends the wait too (closed-stdout.ts): never a rejection mid-job.
    if (io.stdout.writableNeedDrain) await once(io.stdout, "drain").catch(() => undefined);
    if (io.stderr.writableNeedDrain) await once(io.stderr, "drain").catch(() => undefined);
  };
  const iterator = spec.source[Symbol.asyncIterator]();
  const stopping = () => interrupt.interrupted || stoppedByPolicy;
  const lane = async () => {
    while (!stopping()) {
      const next = await iterator.next();
      c.total = spec.total?.() ?? c.total;
      if (next.done) return;
      const item = next.value;
      if ("result" in item) {
        c.started += 1;
        emitResult(item.result);
        await drained();
        continue;
      }
      if (stopping()) return; // pulled after Ctrl-C: not started; the next run picks it up
      c.started += 1;
      c.inFlight += 1;
      let results: RowResult | RowResult[];
      try {
        results = await progress.runRow(() => spec.run(item.row, ctx));
      } catch (error) {
        results = {
          line: item.line,
          subject: item.subject,
          kind: "unknown",
          message: `unexpected error: ${
            error instanceof Error ? error.message : String(error)
          }; run \`reseller recover\` before retrying`,
        };
      } finally {
        c.inFlight -= 1;
      }
      for (const r of Array.isArray(results) ? results : [results]) emitResult(r);
      await drained();
    }
  };
  if (spec.requestsPerRow) progress.eta.priorRequestsPerRow = spec.requestsPerRow();
  progress.eta.lanes = Math.max(1, spec.concurrency);
  progress.jobStarted();
  sink.event({ type: "job-start", job: spec.name, total: spec.total?.() });
  try {
    await Promise.all(Array.from({ length: Math.max(1, spec.concurrency) }, lane));
    c.total = spec.total?.() ?? c.total;
  } finally {
    interrupt.dispose();
    await iterator.return?.(undefined).catch(() => undefined);
  }
  const interrupted = interrupt.interrupted;
  const elapsedMs = progress.now() - progress.startedAt;
  progress.status = undefined;
  sink.stop();
  return {
    exitCode: exitCodeFor(c.byKind, interrupted),
    counts: c.byKind,
    interrupted,
    stoppedByPolicy,
    elapsedMs,
    progress,
  };
}

const KIND_HELP: Record<ResultKind, string> = {
  done: "done now",
  already_done: "done by an earlier run: nothing sent",
  accepted: "accepted (not waited for: --no-wait)",
  dry_run: "would be sent (--dry-run)",
  rejected: "rejected: nothing happened; fix and re-run",
  invalid: "bad input line: nothing sent",
  unknown: "outcome unknown: re-run to reconcile",
  manual: "needs a manual check: reseller commands notes",
  pending: "still pending: re-run to keep waiting",
};

/** The final summary: a table by outcome kind on a TTY, one JSON event otherwise. */
export function printSummary(
  outcome: JobOutcome,
  spec: Pick<JobSpec<unknown>, "name" | "resumeHint">,
  io: JobIo,
  sink?: ProgressSink,
): void {
  const c = outcome.progress.counters;
  const summary = {
    type: "summary",
    job: spec.name,
    exitCode: outcome.exitCode,
    counts: outcome.counts,
    total: c.total ?? c.finished,
    finished: c.finished,
    requests: c.requests,
    count429: c.count429,
    retries: c.retries,
    // Rows whose outcome is unknown: the same number as counts.unknown (and the live line's
    // "unknown"), so the two can never disagree. Sends that ended unknown and were then settled by the
    // client (a retry with the same key, a lookup) are counted apart, as unknownOutcomeEvents.
    unknownOutcomes: outcome.counts.unknown ?? 0,
    unknownOutcomeEvents: c.unknownOutcomeEvents,
    elapsedMs: Math.round(outcome.elapsedMs),
    interrupted: outcome.interrupted,
    stoppedByPolicy: outcome.stoppedByPolicy,
    maxRssBytes: peakRssBytes(),
  };
  if (!io.mode.ttyErr) {
    (sink ?? jsonSink(io.stderr, outcome.progress.now)).event(
      outcome.interrupted ? { ...summary, resume: spec.resumeHint } : summary,
    );
    return;
  }
  const rows = (Object.keys(KIND_HELP) as ResultKind[])
    .filter((k) => (outcome.counts[k] ?? 0) > 0)
    .map((k) => ({ kind: k, count: outcome.counts[k] ?? 0, meaning: KIND_HELP[k] }));
  const on = colourOn(io.stderr);
  io.stderr.write(
    renderTable(
      rows.length ? rows : [{ kind: "-", count: 0, meaning: "no rows" }],
      [
        { header: "outcome", value: (r) => (r.kind === "-" ? r.kind : paintKind(on, r.kind as ResultKind)) },
        { header: "rows", value: (r) => r.count },
        { header: "meaning", value: (r) => r.meaning },
      ],
      { wide: io.wide, columns: terminalColumns(io.stderr) },
    ),
  );
  io.stderr.write(
    `${spec.name}: ${c.finished} rows in ${formatDuration(outcome.elapsedMs)}, ${c.requests} requests, ${
      c.count429
    }×429, ${c.retries} retries · exit ${outcome.exitCode}\n`,
  );
  if (outcome.interrupted) io.stderr.write(`Interrupted. ${spec.resumeHint}\n`);
  if (outcome.stoppedByPolicy)
    io.stderr.write("Stopped by --on-error stop; rows after the failing one were not started.\n");
}

/**
 * This process's peak resident memory. On Linux, `VmHWM` of /proc/self/status: getrusage's maxRSS
 * (process.resourceUsage) carries over the peak of the process that forked this one, so a CLI started
 * by a large parent (a job runner, a test) would report the parent's memory as its own.
 */
function peakRssBytes(): number {
  try {
    const kb = /^VmHWM:\s*(\d+)\s*kB/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    if (kb !== undefined) return Number(kb) * 1024;
  } catch {
    // not Linux: getrusage is the best there is
  }
  return process.resourceUsage().maxRSS * 1024;
}
