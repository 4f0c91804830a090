/**
 * One command in the runner: the per-command object every step reads and drives (E4, G1–G5, C12,
 * I2, I4, I5). It holds what the call asked for (context, deadline, timeout), what happened so far
 * (attempts, the last response, the retry-budget spend, whether a write's bytes may have left) and
 * the journal record, and it is how a step ends the command: `finish`, `atDeadline`, `aborted`.
 * The loop (attempt-loop.ts) and each step (record-attempt.ts, retry-step.ts, reconcile-step.ts)
 * take this object instead of threaded parameters.
 */
import type { Classified, RawResponse } from "./classify";
import type { CallContext } from "./call-context";
import { RequestAbortedError, type NetworkError, type TimeoutError } from "../core";
import type { AttemptInfo, CommandTelemetry, Outcome, RateLimitSnapshot } from "../core";
import { buildOutcome, journalPatch, journalStateOf, type FinalizeInput } from "./finalize";
import type { CommandState, Journal } from "../journal";
import { CommandJournal, raceEvent } from "./command-journal";
import { deadlineAtOf, proxyAnomalyEvent } from "./deadline";
import { deadlineEvent, unknownOutcomeEvent } from "./loop-events";
import { pacedAttempt, type PacedAttemptResult } from "./paced-attempt";
import { looksUpBeforeResend } from "./reconcile";
import type { RunnerDeps, RunResult } from "./runner-types";
import type { AttemptRequest, FetchLike, PreparedRequest } from "./transport";

/** What the wrap (middleware/attempt-loop.ts) hands the runner for one command. */
export interface CommandInput {
  ctx: CallContext;
  /** openapi-fetch's own Request, sent as the first attempt (its body is the frozen bytes, D4). */
  first?: PreparedRequest;
  /** Retries and the reconcile lookup are rebuilt from these parts (built on first use). */
  templateOf: () => AttemptRequest;
  /** The client's base URL (the reconcile lookup is built on it). */
  baseUrl: string;
  fetch: FetchLike;
}

/** Where a step stops because waiting on would pass the deadline. */
export type DeadlineWait = "pause" | "window" | "queue" | "backoff" | "attempt";

/** How a step ends the command (the Outcome's inputs other than what the Command keeps). */
export type FinishInput = Omit<FinalizeInput, "ctx" | "attempts" | "rateLimit"> & { note?: string };

export class Command {
  readonly ctx: CallContext;
  readonly isWrite: boolean;
  readonly timeoutMs: number;
  /** The whole call ends by then (pacer waits, 429 pauses, backoff, attempts); +Infinity for none. */
  readonly deadlineAt: number;
  readonly templateOf: () => AttemptRequest;
  readonly baseUrl: string;
  readonly record: CommandJournal;
  readonly attempts: AttemptInfo[] = [];
  /** The lease check before an attempt failed (journal unreachable or lease lost): see attempt-loop.ts. */
  leaseCheckFailed = false;
  rateLimit: RateLimitSnapshot = { limit: null, remaining: null };
  /** Attempts that count toward maxAttempts (429s do not). */
  counted = 0;
  rateLimited = 0;
  /** Retry-budget tokens this command spent (a success refunds them). */
  spent = 0;
  /** The backoff slept before the next attempt, added to its `delayMs`. */
  waitBefore = 0;
  /** Whether a write's bytes may have left. */
  sent = false;
  /** The last HTTP response, for client.http callers. */
  lastRaw: RawResponse | undefined;
  /** The last attempt's classification and transport failure, for an Outcome cut by the deadline. */
  lastClassified: Classified | undefined;
  lastCause: NetworkError | TimeoutError | undefined;
  private first: PreparedRequest | undefined;
  private readonly fetchFn: FetchLike;

  constructor(
    readonly deps: RunnerDeps,
    input: CommandInput,
    /** The command's telemetry (only when the client has a `telemetry` option). */
    readonly telemetry: CommandTelemetry | undefined,
  ) {
    const { ctx } = input;
    this.ctx = ctx;
    this.isWrite = ctx.op.method !== "GET";
    this.timeoutMs = ctx.timeoutMs ?? deps.timeoutMs;
    this.deadlineAt = deadlineAtOf(ctx.deadlineMs ?? deps.deadlineMs, deps.clock);
    this.first = input.first;
    this.templateOf = input.templateOf;
    this.baseUrl = input.baseUrl;
    this.fetchFn = input.fetch;
    this.record = new CommandJournal(deps, ctx.commandId, ctx.commandId ? ctx.journalState : undefined);
  }

  get signal(): AbortSignal | undefined {
    return this.ctx.signal;
  }

  move(to: CommandState, patch?: Parameters<Journal["transition"]>[2]): Promise<void> {
    return this.record.move(to, patch);
  }

  /** The next attempt's request: openapi-fetch's own Request once, then rebuilt from the template. */
  nextRequest(): AttemptRequest | PreparedRequest {
    const first = this.first;
    this.first = undefined; // a Request is sent once
    return first ?? this.templateOf();
  }

  /** One paced attempt (paced-attempt.ts); keeps the latest rate-limit snapshot (C10). */
  async attempt(req: AttemptRequest | PreparedRequest, attemptNo: number, pathTemplate?: string) {
    const r = await pacedAttempt(this.deps, req, {
      attemptNo,
      signal: this.ctx.signal,
      timeoutMs: this.timeoutMs,
      deadlineAt: this.deadlineAt,
      fetchFn: this.fetchFn,
      onSend: () => {
        if (this.isWrite) this.sent = true;
      },
      beforeSend: pathTemplate === undefined && this.deps.leases?.lease ? () => this.ensureLease() : undefined,
      telemetry: this.telemetry,
      // A reconcile lookup counts its own sends (http.request.resend_count of that request only).
      attemptOfCommand: pathTemplate === undefined ? this.attempts.length + 1 : attemptNo + 1,
      pathTemplate,
      priority: this.ctx.priority,
    });
    if (r.rateLimit) this.rateLimit = r.rateLimit;
    this.noteProxyAnomaly(r);
    return r;
  }

  /** I5/I6: the fleet lease is checked after the pacer's slot, right before the send — a wait for a slot (or a
   * slow window store) can outlast the lease, and a survivor may have taken the command meanwhile. */
  private async ensureLease(): Promise<void> {
    try {
      await this.deps.leases!.ensure(this.ctx.commandId!);
    } catch (error) {
      this.leaseCheckFailed = true;
      throw error;
    }
  }

  /** A 429 whose Retry-After is longer than one window came from a proxy, not the API (C11). */
  private noteProxyAnomaly(r: PacedAttemptResult): void {
    const { events, clock, windowMs } = this.deps;
    if (!events.observed || !r.transport.ok || r.transport.raw.status !== 429) return;
    const anomaly = proxyAnomalyEvent(
      this.ctx.op.operationId,
      r.transport.raw.headers,
      clock.now(),
      windowMs,
      r.requestId,
    );
    if (anomaly) events.emit(anomaly);
  }

  /** Ends the command: the Outcome, the budget refund, the `unknown` event and the journal's final move. */
  async finish(input: FinishInput): Promise<RunResult> {
    const { deps, ctx, record } = this;
    const outcome: Outcome = buildOutcome({ ctx, attempts: this.attempts, rateLimit: this.rateLimit, ...input });
    if (outcome.kind !== "unknown") deps.budget.onSuccess(this.spent);
    else if (deps.events.observed) deps.events.emit(unknownOutcomeEvent(ctx, outcome, this.attempts));
    const state = record.state;
    if (state !== undefined && state !== "recorded") {
      const target = journalStateOf(outcome);
      if (state === "unknown" && target !== "unknown") await this.move("reconciling");
      if (!(state === "unknown" && target === "unknown")) {
        const patch = journalPatch(outcome, deps.redactor);
        const reconciliation = outcome.kind === "unknown" ? (outcome.reconciliation ?? null) : input.note;
        await this.move(target, { ...patch, reconciliation });
      }
    }
    if (record.race) {
      // I5 + "no throw after a send": the server's answer is returned, the refused write is named.
      outcome.journalRace = record.race;
      if (deps.events.observed) deps.events.emit(raceEvent(ctx, record.race));
    }
    return { outcome, raw: this.lastRaw };
  }

  /**
   * Waiting on would pass the deadline: stop now. `sent` tells the caller whether anything of this
   * call reached the wire, `retryAt` when the key (or the next retry) is due.
   */
  atDeadline(retryAt: number | null, waitingFor: DeadlineWait): Promise<RunResult> {
    const wasSent = this.isWrite ? this.sent : this.attempts.length > 0;
    const { events } = this.deps;
    if (events.observed) events.emit(deadlineEvent(this.ctx, waitingFor, wasSent, retryAt, this.deadlineAt));
    return this.finish({
      last: this.lastClassified,
      unknown: { reason: "deadline", cause: this.lastCause, sent: wasSent, retryAt },
    });
  }

  /** The journal refused a move (another mover has the command): end without sending again. */
  journalRaced(): Promise<RunResult> {
    return this.finish({
      last: this.lastClassified,
      unknown: { reason: "journal_race", reconciliation: this.record.race!.message },
    });
  }

  /**
   * The pacer failed (its window store unreachable) before a further attempt of a write this call
   * already sent: nothing more is sent, the Outcome is `unknown` — never a throw after a send.
   */
  storeFailed(error: unknown): Promise<RunResult> {
    const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return this.finish({
      last: this.lastClassified,
      unknown: {
        reason: "store_unavailable",
        reconciliation: `the pacer could not reserve the next attempt (${this.deps.redactor.text(what)}); nothing more was sent — call again later with the SAME key`,
      },
    });
  }

  /**
   * Abort semantics: a write that may have reached the server is `unknown`; otherwise throw. A write
   * this call recorded and never sent is withdrawn from the journal: the caller cancelled it, so
   * recovery must not send it later (one resumed from the journal may have been sent before: kept).
   */
  async aborted(reason: unknown): Promise<RunResult> {
    if (this.isWrite && this.sent) {
      this.record.markSent(); // bytes may have left
      return this.finish({ unknown: { reason: "aborted" } });
    }
    // Resumed from the journal (a crashed process, an earlier unknown): it may have been sent before
    // this call — unknown, and the journal keeps it for recover() (E4: never a throw after a send).
    if (this.isWrite && this.ctx.resumed === true) return this.finish({ unknown: { reason: "aborted" } });
    const withdrawn = this.isWrite ? await this.record.withdraw() : undefined;
    throw new RequestAbortedError(this.ctx.op.operationId, reason, withdrawn);
  }

  /** I4/F5 after an unknown outcome of a `reconcile` write; undefined: resend now (reconcile-step.ts). */
  async reconcile(resuming = false): Promise<RunResult | undefined> {
    // Reconciliation is rare (an unknown outcome of an order): its code loads on first use.
    const { reconcileStep } = await import("./reconcile-step");
    return reconcileStep(this, resuming);
  }

  /**
   * D7/F5/I4: a `reconcile` write resumed from the journal in a state where it may have reached the
   * server (a restart, a caller's retry of an unknown, another worker's dead command) is looked up by
   * external_id before its first send — past the replay TTL the server would create it again.
   */
  get mustLookUpFirst(): boolean {
    const { ctx, record } = this;
    return ctx.resumed === true && record.state !== undefined && looksUpBeforeResend(ctx.op, record.state);
  }
}
