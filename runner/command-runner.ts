/**
 * The attempt loop of one command (E4, E5, G2–G5, C12, I2, I4): pacer slot → attempt with a
 * per-attempt X-Request-ID and timeout → release the slot → classify → decide. Every attempt of a
 * write carries the same Idempotency-Key and the same body bytes (D3, D4); a 409 is never answered
 * with a new key. The journal sees every attempt and the final state (G1, I5, I7).
 */
import { classify, type Classified } from "./classify";
import type { CallContext } from "./call-context";
import {
  isDeadlineExceededError,
  RequestAbortedError,
  type DeadlineExceededError,
  type NetworkError,
  type TimeoutError,
} from "../core";
import { attemptEvent, replayEvent, buildOutcome, journalPatch, journalStateOf, type FinalizeInput } from "./finalize";
import { isLeaseLostError, type CommandState, type Journal } from "../journal";
import { CommandJournal, elsewhere, raceEvent, raceOf } from "./command-journal";
import type { AttemptErrorKind, AttemptInfo, CommandTelemetry, RateLimitSnapshot } from "../core";
import { budgetExhaustedEvent, deadlineEvent, pauseEvent, retryEvent, unknownOutcomeEvent } from "./loop-events";
import { decide, type AttemptResult } from "./retry-policy";
import { backoffDelay } from "../pacing";
import { proxyAnomalyEvent } from "./deadline";
import { pacedAttempt, type PacedAttemptResult } from "./paced-attempt";
import type { RunnerDeps, RunResult } from "./runner-types";
import type { AttemptRequest, FetchLike, PreparedRequest } from "./transport";

export type { RunnerDeps, RunResult } from "./runner-types";

/** Classifications that say the response's BODY was unusable (recorded as the attempt's error). */
const BODY_ERRORS: ReadonlySet<string> = new Set(["malformed_response", "response_too_large"]);

/** Where the loop starts: what the fast path (fast-path.ts) did, or the whole command when it did not run. */
export interface LoopStart {
  timeoutMs: number;
  /** The whole call ends by then (pacer waits, 429 pauses, backoff, attempts); +Infinity for none. */
  deadlineAt: number;
  /** The first attempt's Request, when the fast path did not send it. */
  prepared?: PreparedRequest;
  /** The first attempt, when the fast path made it but it did not finish the command. */
  pending?: { attempt: PacedAttemptResult; classified?: Classified };
  /** The fast path's slot would have come after the deadline (nothing sent). */
  slotTooLate?: DeadlineExceededError;
  /** Whether a write's bytes may have left already. */
  sent: boolean;
}

/** The attempt loop proper, after the fast path (fast-path.ts) or instead of it. */
export async function runAttemptLoop(
  deps: RunnerDeps,
  ctx: CallContext,
  templateOf: () => AttemptRequest,
  baseUrl: string,
  fetchFn: FetchLike,
  telemetry: CommandTelemetry | undefined,
  start: LoopStart,
): Promise<RunResult> {
  const { op } = ctx;
  const { clock, events, redactor } = deps;
  const isWrite = op.method !== "GET";
  const signal = ctx.signal;
  const { timeoutMs, deadlineAt } = start;
  const state: CommandState | undefined = ctx.commandId ? ctx.journalState : undefined;
  let { prepared, pending, sent } = start;
  const slotTooLate = start.slotTooLate;

  if (!deps.leases || !ctx.commandId || state === undefined) return runLoop();
  // Fleet mode: held (and renewed by the heartbeat) while this call works on the command.
  const leases = deps.leases;
  const commandId = ctx.commandId;
  try {
    await leases.acquire(commandId);
  } catch (error) {
    // Another live worker holds it (a raw client.http resend): nothing is sent, it is theirs (D5).
    if (!isLeaseLostError(error)) throw error;
    return { outcome: elsewhere(ctx, error.currentOwner) };
  }
  try {
    return await runLoop();
  } finally {
    leases.release(commandId);
  }

  async function runLoop(): Promise<RunResult> {
    const attempts: AttemptInfo[] = [];
    let rateLimit: RateLimitSnapshot = pending?.attempt.rateLimit ?? { limit: null, remaining: null };
    let counted = 0; // attempts that count toward maxAttempts (429s do not)
    let rateLimited = 0;
    let spent = 0;
    let waitBefore = 0;
    let lastRaw: RunResult["raw"];
    /** The last attempt's classification and transport failure, for an Outcome cut by the deadline. */
    let lastClassified: Classified | undefined;
    let lastCause: NetworkError | TimeoutError | undefined;

    const lease = deps.leases?.lease;
    const record = new CommandJournal(deps, ctx.commandId, state);
    const move = (to: CommandState, patch?: Parameters<Journal["transition"]>[2]) => record.move(to, patch);
    const flush = () => record.flush();

    /** One paced attempt (paced-attempt.ts); keeps the latest rate-limit snapshot (C10). */
    const paced = async (req: AttemptRequest | PreparedRequest, attemptNo: number, pathTemplate?: string) => {
      const r = await pacedAttempt(deps, req, {
        attemptNo,
        signal,
        timeoutMs,
        deadlineAt,
        fetchFn,
        onSend: () => {
          if (isWrite) sent = true;
        },
        telemetry,
        attemptOfCommand: attempts.length + 1,
        pathTemplate,
        priority: ctx.priority,
      });
      if (r.rateLimit) rateLimit = r.rateLimit;
      noteRateLimit(r);
      return r;
    };

    /** A 429 whose Retry-After is longer than one window came from a proxy, not the API (C11). */
    function noteRateLimit(r: PacedAttemptResult): void {
      if (!events.observed || !r.transport.ok || r.transport.raw.status !== 429) return;
      const { headers } = r.transport.raw;
      const anomaly = proxyAnomalyEvent(op.operationId, headers, clock.now(), deps.windowMs, r.requestId);
      if (anomaly) events.emit(anomaly);
    }

    const finish = async (
      input: Omit<FinalizeInput, "ctx" | "attempts" | "rateLimit"> & { note?: string },
    ): Promise<RunResult> => {
      const outcome = buildOutcome({ ctx, attempts, rateLimit, ...input });
      if (outcome.kind !== "unknown") deps.budget.onSuccess(spent);
      if (outcome.kind === "unknown") {
        if (events.observed) events.emit(unknownOutcomeEvent(ctx, outcome, attempts));
      }
      const state = record.state;
      if (state !== undefined && state !== "recorded") {
        const target = journalStateOf(outcome);
        if (state === "unknown" && target !== "unknown") await move("reconciling");
        if (!(state === "unknown" && target === "unknown")) {
          const patch = journalPatch(outcome, redactor);
          const reconciliation = outcome.kind === "unknown" ? (outcome.reconciliation ?? null) : input.note;
          await move(target, { ...patch, reconciliation });
        }
      }
      if (record.race) {
        // I5 + "no throw after a send": the server's answer is returned, the refused write is named.
        outcome.journalRace = record.race;
        if (events.observed) events.emit(raceEvent(ctx, record.race));
      }
      return { outcome, raw: lastRaw };
    };

    /**
     * Waiting on would pass the deadline: stop now. `sent` tells the caller whether anything of this
     * call reached the wire, `retryAt` when the key (or the next retry) is due.
     */
    const atDeadline = (
      retryAt: number | null,
      waitingFor: "pause" | "window" | "queue" | "backoff" | "attempt",
    ): Promise<RunResult> => {
      const wasSent = isWrite ? sent : attempts.length > 0;
      if (events.observed) events.emit(deadlineEvent(ctx, waitingFor, wasSent, retryAt, deadlineAt));
      return finish({
        last: lastClassified,
        unknown: { reason: "deadline", cause: lastCause, sent: wasSent, retryAt },
      });
    };

    /** Abort semantics: a write that may have reached the server is `unknown`; otherwise throw. */
    const aborted = async (reason: unknown): Promise<RunResult> => {
      if (isWrite && sent) {
        record.markSent(); // bytes may have left
        return finish({ unknown: { reason: "aborted" } });
      }
      throw new RequestAbortedError(op.operationId, reason);
    };

    if (slotTooLate) return atDeadline(slotTooLate.retryAt, slotTooLate.waitingFor);
    for (;;) {
      if (signal?.aborted) return aborted(signal.reason);
      let attempt: PacedAttemptResult;
      let classified: Classified | undefined;
      if (pending) {
        ({ attempt, classified } = pending);
        pending = undefined;
        noteRateLimit(attempt);
      } else if (clock.now() >= deadlineAt) {
        return atDeadline(clock.now(), "attempt");
      } else if (record.race) {
        return finish({
          last: lastClassified,
          unknown: { reason: "journal_race", reconciliation: record.race.message },
        });
      } else
        try {
          if (record.state === "unknown" || record.state === "conflict") await move("reconciling"); // G4: a resend after reconciliation
          if (record.race) continue; // the journal refused the move: another mover has it (above)
          // recorded/reconciling → sending is written with this attempt (one commit, see move()).
          if (lease) await deps.leases!.ensure(ctx.commandId!); // a lost lease is noticed before the send
          const first = prepared;
          prepared = undefined; // a Request is sent once; later attempts are rebuilt from the template
          attempt = await paced(first ?? templateOf(), rateLimited);
        } catch (error) {
          if (signal?.aborted) return aborted(signal.reason);
          if (isDeadlineExceededError(error)) return atDeadline(error.retryAt, error.waitingFor);
          if (isLeaseLostError(error) && (sent || record.state !== "recorded")) {
            record.race = raceOf(error); // noticed before a resend: it may have run already, so an Outcome
            continue;
          }
          throw error;
        }
      const { transport, requestId, waitedMs } = attempt;
      const info: AttemptInfo = { delayMs: waitBefore + waitedMs, requestId };
      waitBefore = 0;
      let result: AttemptResult;
      if (transport.ok) {
        lastRaw = transport.raw;
        classified ??= classify(op, transport.raw, redactor);
        result = classified;
        info.status = transport.raw.status;
        info.requestId = transport.raw.headers.get("x-request-id") ?? requestId;
        if (classified.kind === "success" && classified.replayed) info.replayed = true;
        if (classified.kind === "unknown" && BODY_ERRORS.has(classified.reason)) {
          info.error = classified.reason as AttemptErrorKind;
        }
      } else {
        info.error = transport.error;
        result = { kind: "transport", error: transport.error === "timeout" ? "timeout" : "network" };
      }
      attempts.push(info);
      lastClassified = classified;
      lastCause = transport.ok || transport.error === "aborted" ? undefined : transport.cause;
      if (classified?.kind !== "rate_limited") counted += 1;
      if (events.enabled) events.emit(attemptEvent(ctx, info, attempts.length));
      record.noteAttempt(info, classified, clock.now()); // written with the next move
      if (!transport.ok && transport.error === "aborted") return aborted(transport.reason);
      if (info.replayed) events.emit(replayEvent(ctx, info));

      const decision = decide(op, result, {
        attempts: counted,
        rateLimitRetries: rateLimited,
        maxAttempts: deps.retry.maxAttempts,
        maxRateLimitRetries: deps.retry.maxRateLimitRetries,
      });
      const transportUnknown = transport.ok
        ? undefined
        : {
            reason: transport.error === "timeout" ? ("timeout" as const) : ("network" as const),
            cause: transport.cause,
          };
      switch (decision.action) {
        case "stop":
          return finish({ last: classified });
        case "give_up":
          return finish({ last: classified, unknown: transportUnknown });
        case "rate_limit":
          // C12: the pacer now holds the whole key until Retry-After (+ margin); the same request goes again.
          rateLimited += 1;
          await flush();
          if (events.observed) {
            const retryAfter = transport.ok ? transport.raw.headers.get("retry-after") : null;
            events.emit(pauseEvent(ctx, info, classified, retryAfter));
          }
          continue;
        case "retry": {
          const delay = backoffDelay(counted - 1, {
            baseMs: deps.retry.baseMs,
            capMs: deps.retry.capMs,
            random: deps.random,
          });
          // The backoff alone would pass the deadline: return now, saying when the retry was due.
          if (clock.now() + delay >= deadlineAt) return atDeadline(clock.now() + delay, "backoff");
          const cost = deps.budget.tryAcquire(decision.charge);
          if (cost === false) {
            if (events.observed) events.emit(budgetExhaustedEvent(ctx, deps.budget.available()));
            return finish({ last: classified, unknown: transportUnknown });
          }
          spent += cost;
          await flush(); // the attempt is on disk before the backoff wait
          if (events.observed) events.emit(retryEvent(ctx, info, attempts.length, delay));
          telemetry?.backoff(delay, info.error ?? `status ${info.status}`);
          try {
            await clock.sleep(delay, signal);
          } catch {
            return aborted(signal?.reason);
          }
          waitBefore = delay;
          continue;
        }
        case "reconcile": {
          // Reconciliation is rare (an unknown outcome of an order): its code loads on first use.
          const { reconcileStep } = await import("./reconcile-step");
          const r = await reconcileStep(deps, ctx, baseUrl, templateOf, {
            attempts,
            counted,
            get lastRaw() {
              return lastRaw;
            },
            set lastRaw(raw) {
              lastRaw = raw;
            },
            spend: (cost) => void (spent += cost),
            move: (to) => move(to),
            finish,
            paced,
            aborted,
            atDeadline,
          });
          if (r) return r;
          continue;
        }
      }
    }
  }
}
