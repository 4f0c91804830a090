/**
 * What every job (check, renew, register) does before its first row: open the session, say where the
 * journal is (once), make the first call (A5: context, which teaches the pacer the key's limit), and
 * run recover() so that whatever a previous run left is settled before anything new starts (G4).
 * A dry run skips recover() — it may resend — and only says how many commands are unsettled.
 */
import type { Readable, Writable } from "node:stream";
import type { Emulator } from "../emulator/public";
import { COMMAND_STATES, TERMINAL_STATES, type Clock, type CommandState } from "../src/index";
import { CLI_DEFAULTS } from "./defaults";
import { EXIT, type ExitCode } from "./exit-codes";
import { createJobIo, printSummary, type JobIo, type JobOutcome, type JobSpec } from "./jobs";
import { outputMode } from "./output";
import { Progress, type ProgressSink } from "./progress";
import type { QuoteBook } from "./quotes";
import type { OutputRedactor } from "./redact";
import { openSession, type ContextInfo, type GlobalOptions, type Session } from "./session";

export interface Runtime {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  stdin: Readable & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  proc: NodeJS.Process;
  /** The time source of the client, the pacer, the progress line and JSON events (default: the system clock). */
  clock?: Clock;
  /** The in-process emulator `--emulator` talks to (default: a fresh one with its test key), left open. */
  emulator?: Emulator;
  /** The filter stdout and stderr are wrapped in (set by main.ts); the session adds its token to it. */
  redactor?: OutputRedactor;
}

export interface JobEnv {
  session: Session;
  context: ContextInfo;
  progress: Progress;
  sink: ProgressSink;
  io: JobIo;
}

/** Every state a command can still leave: not terminal (derived, so a new state is never missed). */
export const UNSETTLED_STATES: readonly CommandState[] = COMMAND_STATES.filter((s) => !TERMINAL_STATES.includes(s));

export function notice(io: Pick<JobIo, "mode" | "stderr">, sink: ProgressSink, message: string): void {
  if (io.mode.ttyErr) sink.above(io.stderr, message);
  else sink.event({ type: "notice", message });
}

/** What a priced dry run reports at its end: "`rows` would cost …; nothing was `nothing`". */
export interface DryRunCost {
  quotes: QuoteBook;
  rows: string;
  nothing: string;
}

/** The end of a bulk job: what a priced dry run would cost, then the summary (a table or one JSON event). */
export function finishJob(
  env: Pick<JobEnv, "io" | "sink">,
  outcome: JobOutcome,
  job: Pick<JobSpec<unknown>, "name" | "resumeHint">,
  dryRunCost?: DryRunCost,
): ExitCode {
  if (dryRunCost) {
    const { quotes } = dryRunCost;
    const cost =
      quotes
        .total()
        .map((p) => `${p.amount} ${p.currency}`)
        .join(" + ") || "nothing";
    notice(
      env.io,
      env.sink,
      `dry run: ${quotes.rows} ${dryRunCost.rows} would cost ${cost} (one quote per zone and period); nothing was ${dryRunCost.nothing}`,
    );
  }
  printSummary(outcome, job, env.io);
  return outcome.exitCode;
}

export async function withJobSession(
  global: GlobalOptions,
  rt: Runtime,
  job: string,
  dryRun: boolean,
  body: (env: JobEnv) => Promise<ExitCode>,
): Promise<ExitCode> {
  // A dry run opens the journal only if it exists (else an empty in-memory one): it creates no file.
  const session = await openSession(global, rt, dryRun ? "dry-run" : "write");
  // Ctrl-C before the first row (context, recovery): stop recovering, say how to resume; twice: exit now.
  const setup = new AbortController();
  const onSetupInterrupt = () => {
    if (setup.signal.aborted) rt.proc.exit(EXIT.interrupted);
    setup.abort(new Error("interrupted"));
  };
  rt.proc.on("SIGINT", onSetupInterrupt);
  rt.proc.on("SIGTERM", onSetupInterrupt);
  try {
    const progress = new Progress(
      job,
      () => ({
        ...session.client.pacer.snapshot(session.apiKeyId),
        windowMs: session.windowMs,
        burst: CLI_DEFAULTS.http.pacingBurst,
      }),
      () => session.clock.now(),
    );
    const io: JobIo = {
      stdout: rt.stdout,
      stderr: rt.stderr,
      mode: outputMode(global.json, rt.stdout, rt.stderr),
      proc: rt.proc,
      pace: progress.pace,
      wide: global.wide === true,
    };
    const sink = createJobIo(io, progress);
    for (const message of session.notices) notice(io, sink, message);
    session.onEvent((event) => {
      const out = progress.clientEvent(event);
      if (out) sink.event(out);
    });
    const context = await session.context();
    sink.event({
      type: "context",
      environment: context.environment,
      keyId: context.publicKeyId,
      limit: context.limit,
      windowMs: session.windowMs,
    });
    if (dryRun) {
      const unsettled = (await session.journal.listByState(UNSETTLED_STATES)).filter(
        (r) => r.apiKeyId === session.apiKeyId,
      ).length;
      if (unsettled > 0)
        notice(
          io,
          sink,
          `${unsettled} journalled command(s) are unsettled; a real run (or \`reseller recover\`) settles them first.`,
        );
    } else {
      progress.status = "recovering what earlier runs left";
      const summary = await session.recover(undefined, setup.signal);
      progress.status = undefined;
      if (summary.examined > 0) {
        sink.event({
          type: "recovered",
          examined: summary.examined,
          resolved: summary.resolved.length,
          manual: summary.manual.length,
          stillPending: summary.stillPending.length,
          skipped: summary.skipped.length,
        });
        if (io.mode.ttyErr) {
          sink.above(
            io.stderr,
            `recovered ${summary.examined} command(s) left by an earlier run: ${summary.resolved.length} settled, ${summary.stillPending.length} still pending, ${summary.manual.length} need a manual check`,
          );
        }
      }
    }
    if (setup.signal.aborted) {
      notice(io, sink, "Interrupted before the job started. Re-run the same command to resume; nothing was lost.");
      sink.stop();
      return EXIT.interrupted;
    }
    rt.proc.off("SIGINT", onSetupInterrupt);
    rt.proc.off("SIGTERM", onSetupInterrupt);
    return await body({ session, context, progress, sink, io });
  } finally {
    rt.proc.off("SIGINT", onSetupInterrupt);
    rt.proc.off("SIGTERM", onSetupInterrupt);
    await session.close();
  }
}
