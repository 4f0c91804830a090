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
import {
  attemptEvent,
  replayEvent,
  buildOutcome,
  journalAttempt,
  journalPatch,
  journalStateOf,
  type FinalizeInput,
} from "./finalize";
import { isLeaseLostError, type AttemptRecord, type CommandState, type Journal } from "../journal";
import type { AttemptErrorKind, AttemptInfo, CommandTelemetry, Outcome, RateLimitSnapshot } from "../core";
import { externalIdOf, lookupOrder, lookupRequest } from "./reconcile";
import { decide, type AttemptResult } from "./retry-policy";
import { backoffDelay } from "../pacing";
import { deadlineAtOf, proxyAnomalyEvent } from "./deadline";
import { pacedAttempt, type PacedAttemptResult } from "./paced-attempt";
import type { RunnerDeps, RunResult } from "./runner-types";
import type { AttemptRequest, FetchLike, PreparedRequest } from "./transport";

export type { RunnerDeps, RunResult } from "./runner-types";

const noop = (): void => undefined;

/** Classifications that say the response's BODY was unusable (recorded as the attempt's error). */
const BODY_ERRORS: ReadonlySet<string> = new Set(["malformed_response", "response_too_large"]);

/** The attempt loop proper; runCommand (run-command.ts) decides whether it runs observed. */
export async function runAttempts(
  deps: RunnerDeps,
  ctx: CallContext,
  templateOf: () => AttemptRequest,
  prepared: PreparedRequest | undefined,
  baseUrl: string,
  fetchFn: FetchLike,
  telemetry: CommandTelemetry | undefined,
): Promise<RunResult> {
  const { op } = ctx;
  const { clock, events, journal, redactor } = deps;
  const isWrite = op.method !== "GET";
  const signal = ctx.signal;
  const timeoutMs = ctx.timeoutMs ?? deps.timeoutMs;
  /** The whole call ends by then (pacer waits, 429 pauses, backoff, attempts); +Infinity for none. */
  const deadlineAt = deadlineAtOf(ctx.deadlineMs ?? deps.deadlineMs, clock);
  let state: CommandState | undefined = ctx.commandId ? ctx.journalState : undefined;
  let sent = false;
  /** The first attempt, when the fast path below made it but did not finish the command. */
  let pending: { attempt: PacedAttemptResult; classified?: Classified } | undefined;
  /** The fast path's slot would have come after the deadline (nothing sent). */
  let slotTooLate: DeadlineExceededError | undefined;

  // Fast path — the common case: no journal transitions and the first attempt is a success (decide()
  // always says "stop" for one). Exactly what the loop below does for it, minus its bookkeeping.
  if (prepared && state === undefined && !signal?.aborted) {
    let attempt: PacedAttemptResult;
    try {
      attempt = await pacedAttempt(deps, prepared, {
        attemptNo: 0,
        signal,
        timeoutMs,
        deadlineAt,
        fetchFn,
        onSend: isWrite ? () => void (sent = true) : noop,
        telemetry,
      });
    } catch (error) {
      if (isDeadlineExceededError(error))
        slotTooLate = error; // the loop below turns it into an Outcome
      else if (!signal?.aborted) throw error;
      if (signal?.aborted && !(isWrite && sent)) throw new RequestAbortedError(op.operationId, signal.reason);
      attempt = undefined as never; // the loop below turns the abort of a sent write into `unknown`
    }
    prepared = undefined; // a Request is sent once
    if (attempt) {
      const { transport } = attempt;
      const classified = transport.ok ? classify(op, transport.raw, redactor) : undefined;
      if (transport.ok && classified!.kind === "success") {
        const last = classified!;
        const info: AttemptInfo = {
          delayMs: attempt.waitedMs,
          requestId: transport.raw.headers.get("x-request-id") ?? attempt.requestId,
          status: transport.raw.status,
        };
        if (last.replayed) info.replayed = true;
        const attempts = [info];
        if (events.enabled) events.emit(attemptEvent(ctx, info, 1));
        if (info.replayed) events.emit(replayEvent(ctx, info));
        const outcome = buildOutcome({
          ctx,
          attempts,
          rateLimit: attempt.rateLimit ?? { limit: null, remaining: null },
          last,
        });
        deps.budget.onSuccess(0);
        return { outcome, raw: transport.raw };
      }
      pending = { attempt, classified };
    }
  }
  if (!deps.leases || !ctx.commandId || state === undefined) return runLoop();
  // Fleet mode: held (and renewed by the heartbeat) while this call works on the command.
  const leases = deps.leases;
  const commandId = ctx.commandId;
  await leases.acquire(commandId);
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
    /**
     * One commit per attempt: the attempt is written together with the move that follows it (the
     * outcome, or "sending" before a retry), and recorded → sending rides on the first attempt's
     * write. `written` is what the journal holds; `state` may be ahead by the unwritten attempt.
     */
    let written = state;
    let unwritten: AttemptRecord | undefined;
    const move = async (to: CommandState, patch?: Parameters<Journal["transition"]>[2]) => {
      if (!journal || !ctx.commandId || state === undefined) return;
      const attempt = unwritten;
      unwritten = undefined;
      try {
        if (attempt) await journal.addAttempt(ctx.commandId, attempt, { to, patch }, lease);
        else {
          if (state === "sending" && written !== "sending")
            await journal.transition(ctx.commandId, "sending", undefined, lease);
          await journal.transition(ctx.commandId, to, patch, lease);
        }
      } catch (error) {
        if (isLeaseLostError(error)) deps.leases?.lost(ctx.commandId, error.currentOwner); // another worker has it now
        throw error;
      }
      state = written = to;
    };
    const flush = () => (unwritten ? move("sending") : undefined);

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
        events.emit({
          type: "unknown-outcome",
          operationId: op.operationId,
          reason: outcome.reason,
          status: outcome.status,
          idempotencyKey: ctx.sentIdempotencyKey,
          commandId: ctx.commandId,
          requestIds: attempts.map((a) => a.requestId).filter((r): r is string => !!r),
        });
      }
      if (state !== undefined && state !== "recorded") {
        const target = journalStateOf(outcome);
        if (state === "unknown" && target !== "unknown") await move("reconciling");
        if (!(state === "unknown" && target === "unknown")) {
          const patch = journalPatch(outcome, redactor);
          const reconciliation = outcome.kind === "unknown" ? (outcome.reconciliation ?? null) : input.note;
          await move(target, { ...patch, reconciliation });
        }
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
      events.emit({
        type: "deadline",
        operationId: op.operationId,
        waitingFor,
        sent: wasSent,
        retryAt,
        deadlineAt,
        idempotencyKey: ctx.sentIdempotencyKey,
        commandId: ctx.commandId,
      });
      return finish({
        last: lastClassified,
        unknown: { reason: "deadline", cause: lastCause, sent: wasSent, retryAt },
      });
    };

    /** Abort semantics: a write that may have reached the server is `unknown`; otherwise throw. */
    const aborted = async (reason: unknown): Promise<RunResult> => {
      if (isWrite && sent) {
        if (state === "recorded" || state === "reconciling") state = "sending"; // bytes may have left
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
      } else
        try {
          if (state === "unknown" || state === "conflict") await move("reconciling"); // G4: a resend after reconciliation
          // recorded/reconciling → sending is written with this attempt (one commit, see move()).
          if (lease) await deps.leases!.ensure(ctx.commandId!); // a lost lease is noticed before the send
          const first = prepared;
          prepared = undefined; // a Request is sent once; later attempts are rebuilt from the template
          attempt = await paced(first ?? templateOf(), rateLimited);
        } catch (error) {
          if (signal?.aborted) return aborted(signal.reason);
          if (isDeadlineExceededError(error)) return atDeadline(error.retryAt, error.waitingFor);
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
      if (journal && ctx.commandId && state !== undefined) {
        if (state === "recorded" || state === "reconciling") state = "sending";
        unwritten = journalAttempt(info, classified, clock.now()); // written with the next move
      }
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
          events.emit({
            type: "pause",
            operationId: op.operationId,
            status: 429,
            retryAfter: transport.ok ? transport.raw.headers.get("retry-after") : null,
            requestId: info.requestId,
            source:
              classified?.kind === "rate_limited" && classified.error?.code === "rate_limit_exceeded" ? "api" : "proxy",
            idempotencyKey: ctx.sentIdempotencyKey,
            commandId: ctx.commandId,
          });
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
            events.emit({
              type: "budget-exhausted",
              operationId: op.operationId,
              available: deps.budget.available(),
              idempotencyKey: ctx.sentIdempotencyKey,
              commandId: ctx.commandId,
            });
            return finish({ last: classified, unknown: transportUnknown });
          }
          spent += cost;
          await flush(); // the attempt is on disk before the backoff wait
          events.emit({
            type: "retry",
            operationId: op.operationId,
            attempt: attempts.length,
            delayMs: delay,
            reason: info.error ?? `status ${info.status}`,
            idempotencyKey: ctx.sentIdempotencyKey,
          });
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
          const r = await reconcileStep();
          if (r) return r;
          continue;
        }
      }
    }

    /** I4/F5: look the order up by external_id; undefined means "resend now with the same key and bytes". */
    async function reconcileStep(): Promise<RunResult | undefined> {
      const externalId = externalIdOf(ctx.body);
      const lastClassified = lastRawClassified();
      const unknownOf = (why: string) => {
        const tail = attempts.at(-1);
        const reason =
          tail?.error === "timeout"
            ? "timeout"
            : tail?.error === "network"
              ? "network"
              : lastClassified?.kind === "unknown"
                ? lastClassified.reason
                : "server_error";
        return { reason, reconciliation: why } as const;
      };
      await move("unknown");
      if (!externalId)
        return finish({
          last: lastClassified,
          unknown: unknownOf("no external_id in the body: cannot look the order up"),
        });
      await move("reconciling");
      const req = lookupRequest(baseUrl, templateOf().headers, externalId);
      let found;
      for (let i = 0; ; i++) {
        try {
          found = await lookupOrder((r) => paced(r, i, "/orders"), req, externalId, redactor);
        } catch (error) {
          if (signal?.aborted) return aborted(signal.reason);
          if (isDeadlineExceededError(error)) return atDeadline(error.retryAt, error.waitingFor);
          throw error;
        }
        // C12: a 429 on the lookup waits out the key's pause like any other request.
        if (!(found.result === "lookup_failed" && found.status === 429 && i < deps.retry.maxRateLimitRetries)) break;
      }
      if (signal?.aborted) return aborted(signal.reason);
      events.emit({
        type: "reconcile",
        operationId: op.operationId,
        externalId,
        result: found.result,
        idempotencyKey: ctx.sentIdempotencyKey,
      });
      if (found.result === "found") {
        const body = new TextEncoder().encode(JSON.stringify({ data: found.order }));
        lastRaw = { status: found.status, headers: new Headers({ "content-type": "application/json" }), bytes: body };
        const r = await finish({
          last: { kind: "success", status: found.status, data: { data: found.order }, replayed: false },
          note: `found by external_id ${externalId} after an unknown outcome; not created again`,
        });
        return { ...r, outcome: { ...r.outcome, reconciled: true } as Outcome };
      }
      if (found.result === "lookup_failed") {
        await move("unknown");
        return finish({
          last: lastClassified,
          unknown: unknownOf(`order lookup by external_id failed (${found.why}); do not create it again`),
        });
      }
      // Nothing was created: a resend with the SAME key and bytes is safe (G4), within the bounds.
      const cost = counted < deps.retry.maxAttempts ? deps.budget.tryAcquire("error") : false;
      if (cost === false) {
        await move("unknown");
        return finish({
          last: lastClassified,
          unknown: unknownOf(
            "no order with this external_id yet; retry bound reached — resend later with the same key",
          ),
        });
      }
      spent += cost;
      await move("sending");
      return undefined;
    }

    function lastRawClassified(): Classified | undefined {
      const tail = attempts.at(-1);
      return tail?.status !== undefined && lastRaw ? classify(op, lastRaw, redactor) : undefined;
    }
  }
}
