/**
 * Idempotency (D1–D4, G1): every POST/PUT/PATCH/DELETE gets an Idempotency-Key (the caller's, or a
 * fresh UUID), validated 1..160 after trimming; the serialised body bytes are frozen ONCE here and
 * every retry resends exactly them with the same key; then the command is recorded in the journal
 * BEFORE the first byte is sent — a rejected record() aborts the send (G1).
 */
import type { ChainStep, StepParams } from "./chain";
import type { OperationMeta } from "../generated/operations";
import type { Clock } from "../runtime/clock";
import { observeAnswer, type CallContext } from "../runner";
import { InvalidArgumentError, RequestAbortedError } from "../core";
import { SensitiveDataError, commandFingerprint, isDuplicateCommandError } from "../journal";
import type { CallHold, CommandHolders, CommandRecord, CommandState, Journal, LeaseKeeper } from "../journal";
import type { ClientTelemetry, EventSink, Outcome } from "../core";
import {
  REPLAYED_STATES,
  abortedWhileJoined,
  journalUnreachable,
  inFlightElsewhere,
  joinedOutcome,
  outcomeFromJournal,
  responseOf,
} from "./journal-replay";
import { validateIdempotencyKey } from "../core";
import { latin1Text } from "../runtime/text";

export interface IdempotencyOptions {
  environment: "test" | "live";
  apiKeyId: string;
  clock: Clock;
  journal?: Journal;
  /** Fleet mode: new commands are recorded as this worker's, under its lease. */
  leases?: LeaseKeeper;
  /** This process's registry of the commands its calls and its recovery work on (with a journal). */
  holders?: CommandHolders;
  /** Where local replays are reported (I7). */
  events?: EventSink;
  /** A call answered locally is a command to telemetry too: one span, one outcome (I7). */
  telemetry?: ClientTelemetry;
  generateKey?: () => string;
  /** The client's token and its secret part: a command holding either is never journalled (A4, H2). */
  secrets?: readonly string[];
}

/** A4/H2: the field of the command that holds one of `secrets` (the journal itself only sees token shapes). */
function fieldWithSecret(secrets: readonly string[], fields: [string, string | null][], body: Uint8Array | null) {
  const text = body === null ? "" : latin1Text(body);
  for (const secret of secrets) {
    if (secret.length === 0) continue;
    for (const [name, value] of fields) if (value?.includes(secret)) return name;
    if (text.includes(secret)) return "body";
  }
  return undefined;
}

/**
 * States a call continues from by sending (G4): not yet sent, mid-send (a crash), awaiting
 * reconciliation — once nobody else in this process holds it and, in fleet mode, its lease is ours.
 * Settled states (REPLAYED_STATES) are answered from the journal and never sent again.
 */
const RESUMABLE: ReadonlySet<CommandState> = new Set<CommandState>([
  "recorded",
  "sending",
  "unknown",
  "conflict",
  "reconciling",
]);

/** What a call would send, compared with a journalled command under the same key. */
interface RequestShape {
  method: string;
  path: string;
  query: string;
  body: Uint8Array | null;
  /** D4: the server's fingerprint of method, path with query and the exact body bytes. */
  fingerprint: string;
}

/** D4/D5: the same request as the journalled command — by fingerprint, so it holds after a prune. */
function isSameRequest(existing: CommandRecord, request: RequestShape): boolean {
  return existing.fingerprint === request.fingerprint;
}

function keyReused(existing: CommandRecord): InvalidArgumentError {
  return new InvalidArgumentError(
    `This Idempotency-Key already belongs to command ${existing.id} with a different method, path or body (D5, D7): never reuse a key for a new business action.`,
    "idempotencyKey",
  );
}

const isOutcome = (value: unknown): value is Outcome =>
  typeof value === "object" && value !== null && "kind" in value && "attempts" in value;

/** Start over: the command changed hands in this process while this call waited for it. */
const AGAIN = Symbol("again");

/** I6: the domain a purchase acts on — one in-flight command per domain; where it is, the spec's x-lock-key says. */
function lockKeyOf(op: OperationMeta, path: Record<string, unknown> | undefined, body: unknown): string | null {
  if (op.lockKey === null) return null;
  const source = op.lockKey.from === "path" ? path : (body as Record<string, unknown> | null | undefined);
  const value = source?.[op.lockKey.field];
  return typeof value === "string" ? `${op.lockKey.prefix}:${value.toLowerCase()}` : null;
}

const ABORTED = Symbol("aborted");

/** `p`, or ABORTED as soon as `signal` fires (its listener removed either way). */
function orAbort<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T | typeof ABORTED> {
  if (!signal) return p;
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

export function createIdempotencyMiddleware(options: IdempotencyOptions): ChainStep {
  const generateKey = options.generateKey ?? (() => crypto.randomUUID());
  const { holders, leases } = options;
  return {
    onRequest(callback) {
      const ctx = callback.callContext;
      if (!ctx?.op.idempotencyRequired) return undefined; // reads: nothing to do, no extra await
      return freeze(ctx, callback);
    },
  };

  /** Ends the chain with an answer that sent nothing (the attempt loop never runs). */
  function answer(ctx: CallContext, outcome: Outcome, source: "journal" | "joined" | "in_flight_elsewhere"): Response {
    ctx.outcome = outcome;
    options.events?.emit({
      type: "local-replay",
      operationId: ctx.op.operationId,
      source,
      kind: outcome.kind,
      state: outcome.localReplay?.state,
      idempotencyKey: ctx.sentIdempotencyKey,
      commandId: outcome.commandId,
    });
    if (options.events) observeAnswer({ events: options.events, telemetry: options.telemetry }, ctx, outcome, source);
    return responseOf(outcome);
  }

  async function freeze(
    ctx: CallContext,
    { request, params, options: merged }: StepParams,
  ): Promise<undefined | Response> {
    // The facade's option, else a header a raw client.http caller set (params.header), else a UUID.
    const key = validateIdempotencyKey(ctx.idempotencyKey ?? request.headers.get("Idempotency-Key") ?? generateKey());
    ctx.sentIdempotencyKey = key;
    request.headers.set("Idempotency-Key", key);
    // D3/D4: serialised once by openapi-fetch; these exact bytes are what every attempt sends.
    if (ctx.body === undefined) {
      ctx.body = request.body === null ? null : new Uint8Array(await request.clone().arrayBuffer());
    }
    const journal = options.journal;
    if (!journal) return undefined;
    let parsed: unknown = null;
    try {
      parsed = ctx.body ? JSON.parse(new TextDecoder().decode(ctx.body)) : null;
    } catch {
      parsed = null;
    }
    const url = new URL(request.url);
    const basePath = new URL(merged.baseUrl).pathname.replace(/\/+$/, "");
    const path = url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : url.pathname;
    const shape: RequestShape = {
      method: ctx.op.method,
      path,
      query: url.search,
      body: ctx.body,
      fingerprint: await commandFingerprint(ctx.op.method, path, url.search, ctx.body),
    };
    // recover()'s own resend of a command it holds: it is the one mover already (recovery/recover.ts).
    const recovering = ctx.priority === "recovery";

    for (;;) {
      let hold: CallHold | undefined;
      if (holders && !recovering) {
        const entered = holders.enterKey(`${options.apiKeyId}\n${key}`);
        if ("joined" in entered) {
          // The same key is in flight in this process: never a second send, its outcome is ours —
          // unless this call's own signal fires first (E4: it may have been sent by the other).
          const prior = await orAbort(entered.joined, ctx.signal);
          const existing = await journal.findByIdempotencyKey(options.apiKeyId, key);
          if (prior === ABORTED) {
            if (existing) return answer(ctx, abortedWhileJoined(existing), "joined");
            throw new RequestAbortedError(ctx.op.operationId, ctx.signal?.reason); // not recorded: not sent
          }
          if (existing && !isSameRequest(existing, shape)) throw keyReused(existing);
          if (existing && isOutcome(prior)) return answer(ctx, joinedOutcome(prior, existing.state), "joined");
          continue; // it ended before an outcome (a pre-send refusal): decide afresh
        }
        hold = entered.hold;
      }
      let result: Awaited<ReturnType<typeof decide>>;
      try {
        result = await decide(hold);
      } catch (error) {
        hold?.settle();
        throw error; // G1: a journal that cannot record the command aborts the send (nothing went out)
      }
      try {
        if (result === AGAIN) {
          hold?.settle();
          continue;
        }
        if (result instanceof Response) hold?.settle(ctx.outcome);
        else if (hold) ctx.settleHold = (outcome) => hold.settle(outcome);
        return result;
      } catch (error) {
        hold?.settle();
        throw error;
      }
    }

    async function decide(hold: CallHold | undefined): Promise<undefined | Response | typeof AGAIN> {
      let existing = await journal!.findByIdempotencyKey(options.apiKeyId, key);
      if (existing) {
        // A resend of a command already journalled under this key (a restart, a caller's retry, a
        // re-run job); a DIFFERENT command under the same key is refused locally (D5, D7).
        if (!isSameRequest(existing, shape)) throw keyReused(existing);
        hold?.bind(existing.id); // from here this process's recovery leaves it alone
        // I6: one this process's recovery has not started on is taken back (bound above, one step).
        if (!recovering && holders?.recovering(existing.id) && !(hold && holders.takeBack(existing.id))) {
          await holders.whenFree(existing.id); // this process's recovery is settling it: then decide again
          return AGAIN;
        }
        if (!recovering && REPLAYED_STATES.has(existing.state))
          return answer(ctx, outcomeFromJournal(existing), "journal");
        if (leases && !recovering) {
          // Fleet: only with the lease (ours, or expired) may it be sent again; else its owner is on it.
          let claimed;
          try {
            claimed = await leases.claimForCall(existing.id);
          } catch (error) {
            // It may have run already (G4): an Outcome, not a throw — nothing is sent without the lease.
            return answer(ctx, journalUnreachable(existing, error), "in_flight_elsewhere");
          }
          if (!claimed) {
            const current = (await journal!.get(existing.id)) ?? existing;
            if (REPLAYED_STATES.has(current.state)) return answer(ctx, outcomeFromJournal(current), "journal");
            return answer(ctx, inFlightElsewhere(current, current.owner, current.leaseUntil), "in_flight_elsewhere");
          }
          if (REPLAYED_STATES.has(claimed.state)) {
            leases.forget(claimed.id);
            return answer(ctx, outcomeFromJournal(claimed), "journal");
          }
          existing = claimed;
        }
        ctx.commandId = existing.id;
        ctx.journalState = RESUMABLE.has(existing.state) ? existing.state : undefined;
        // recover() looked the order up itself before it resends (recovery/recover.ts).
        ctx.resumed = !recovering;
        return undefined;
      }
      const externalId = (parsed as { external_id?: unknown } | null)?.external_id;
      const leaked = fieldWithSecret(
        options.secrets ?? [],
        [
          ["path", path],
          ["query", url.search],
          ["idempotencyKey", key],
        ],
        ctx.body ?? null,
      );
      if (leaked) throw new SensitiveDataError(leaked); // before anything is recorded or sent
      const id = crypto.randomUUID();
      hold?.bind(id); // before the row exists: this process's recovery can never claim it from under us
      let record: CommandRecord;
      try {
        record = await journal!.record(
          {
            id,
            environment: options.environment,
            apiKeyId: options.apiKeyId,
            operationId: ctx.op.operationId,
            method: ctx.op.method,
            path,
            query: url.search,
            body: ctx.body!,
            fingerprint: shape.fingerprint,
            idempotencyKey: key,
            externalId: typeof externalId === "string" ? externalId : null,
            lockKey: lockKeyOf(ctx.op, params.path, parsed),
            createdAt: options.clock.now(),
          },
          leases?.lease,
        );
      } catch (error) {
        // Another process recorded this key between our look-up and our insert (D5): decide again
        // against its record — a replay, a join or in_flight_elsewhere, never a throw.
        if (isDuplicateCommandError(error)) return AGAIN;
        throw error;
      }
      leases?.recorded(record.id);
      ctx.journalState = record.state;
      ctx.commandId = record.id;
      return undefined;
    }
  }
}
