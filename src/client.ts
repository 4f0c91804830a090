/**
 * createResellerClient(): openapi-fetch + the middleware chain + the generated facade.
 * Chain order (each a separate factory in middleware/): local validation (A9, H1, B1–B4) →
 * idempotency + journal (D1–D4, G1) → language (E6) → request id (G2) → attempt loop (pacing,
 * retries, classification, reconciliation — E4, C12, I2, I4).
 */
import createClient, { createQuerySerializer } from "openapi-fetch";
import type { paths } from "../generated/schema";
import { createFacade } from "../generated/client";
import { operationTable, type OperationId } from "../generated/operations";
import { systemClock, type Clock } from "../runtime/clock";
import { chainMiddleware, createAttemptLoopMiddleware } from "../middleware";
import { AttemptController } from "../runner";
import { CALL_CONTEXT_KEY, type CallContext, type CallOptions } from "../runner";
import {
  DEFAULT_PACING,
  DEFAULT_RETRY,
  DEFAULT_CALL,
  InvalidArgumentError,
  InvalidOptionsError,
  ResellerClientError,
} from "../core";
import { createEventSink, guardTelemetry } from "../core";
import { bindTelemetry, eventHandlerOf } from "./observers";
import { createIdempotencyMiddleware } from "../middleware";
import { createLanguageMiddleware, validateLanguage } from "../middleware";
import { createLocalValidationMiddleware } from "../middleware";
import type { Outcome } from "../core";
import { createPacer } from "../pacing";
import { createMemoryWindowStore } from "../pacing";
import type { PacingPriority, WindowStore } from "../pacing";
import { createRedactor } from "../core";
import { createRequestIdMiddleware, randomRequestId } from "../middleware";
import { createRetryBudget } from "../runner";
import { checkBaseUrl, parseToken, validateIdempotencyKey } from "../core";
import { checkOptions, isDeadline, type ResellerClientOptions } from "./options";
import { createPagedCall } from "./paged-call";
import type { ResellerClient, ResultMap } from "./client-type";
import type { WaitOptions, WaitResult } from "./operations-wait";
import type { RecoverOptions, RecoverSummary } from "../recovery";
import type * as Recovery from "../recovery";
import { createFleet } from "./fleet";

export type { ResellerClient, ResultMap } from "./client-type";

/** Exact body bytes pass through untouched (D4: a resend from the journal); anything else is JSON once. */
function bodySerializer(body: unknown): unknown {
  return body instanceof Uint8Array ? body : JSON.stringify(body);
}

/**
 * C2, I1: the server keeps one counter per API key, so every client of that key in this process must
 * draw from one window. Without an explicit store, clients share an in-process store per clock (tests
 * with their own VirtualClock stay isolated); across processes, pass the Redis store.
 */
const processStores = new WeakMap<Clock, WindowStore>();
function processWindowStore(clock: Clock): WindowStore {
  let store = processStores.get(clock);
  if (!store) processStores.set(clock, (store = createMemoryWindowStore()));
  return store;
}

/** Shared by every call without path or query parameters (openapi-fetch only reads it). */
const NO_PARAMS = Object.freeze({});

/**
 * openapi-fetch's params: `path` only when the operation has path parameters (an empty object
 * still runs its path serializer), `query` only when given.
 */
function paramsOf(pathParams: readonly string[], args: Record<string, unknown> | undefined): object {
  const query = args?.query;
  if (pathParams.length === 0) return query === undefined ? NO_PARAMS : { query };
  const path: Record<string, unknown> = {};
  for (const name of pathParams) path[name] = args?.[name];
  return query === undefined ? { path } : { path, query };
}

/**
 * Whether `fetch` takes the attempt's abort signal as its second argument: the global fetch does, and
 * so does any fetch declared with two parameters. Then the first attempt's signal goes there instead
 * of onto openapi-fetch's Request: undici hooks a signal up on every Request that has one (an abort
 * listener, a WeakRef and a finalizer each), and fetch copies the Request and hooks up the copy's
 * signal again — measured as the largest share of the client's per-call overhead. A one-parameter
 * fetch gets the signal on the Request, as before, so a timed-out attempt still aborts what it started.
 */
function takesSignalAsInit(fetch: ResellerClientOptions["fetch"]): boolean {
  return fetch === undefined || fetch === globalThis.fetch || fetch.length >= 2;
}

/**
 * Creates a client of the Reseller API.
 *
 * Every call resolves to an {@link Outcome} (`succeeded`, `accepted`, `rejected`, `conflict` or
 * `unknown`) and never throws for an HTTP result. A write is journalled before it is sent (with
 * `journal`), keeps one Idempotency-Key and the same bytes on every retry, and is paced to the key's
 * fixed rate-limit window, so it is never bought twice, lost or throttled.
 *
 * Mistakes in the options (a `baseUrl` without `/api/reseller/v1`, a malformed token, `http://` to
 * a remote host…) throw a `ResellerClientError` here, before anything is sent.
 *
 * @example
 * ```ts
 * import { createResellerClient } from "reseller-api";
 * import { createSqliteJournal } from "reseller-api/stores/sqlite";
 *
 * const client = createResellerClient({
 *   baseUrl: "https://reseller.example.kz/api/reseller/v1",
 *   token: process.env.RESELLER_API_TOKEN!,
 *   journal: createSqliteJournal({ filename: "commands.sqlite" }),
 * });
 * const outcome = await client.domains.renew({ domainUuid, body: { period: 1 } }, { idempotencyKey: "renew-42" });
 * ```
 * @see https://github.com/reseller-api/reseller-api/blob/main/docs/contract.md for the behaviour and its rule IDs.
 */
export function createResellerClient(options: ResellerClientOptions): ResellerClient {
  checkOptions(options);
  const credential = parseToken(options.token);
  checkBaseUrl(options.baseUrl, options.allowInsecureHttp ?? false);
  if (options.language !== undefined) validateLanguage(options.language);
  const clock: Clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const redactor = createRedactor([options.token, credential.secret]);
  let telemetry = options.telemetry ? guardTelemetry(options.telemetry) : undefined;
  const telemetryEvents = telemetry?.onEvent;
  const observers = eventHandlerOf(options);
  const events = createEventSink(observers.handler, redactor, telemetryEvents);
  // Until the logger's chunk has loaded, calls wait for it (then this is undefined: no await at all).
  let loggerReady = observers.loggerReady?.then(
    () => void (loggerReady = undefined),
    () => void (loggerReady = undefined),
  );
  const pacer =
    options.pacer ??
    createPacer({
      store: options.pacing?.store ?? processWindowStore(clock),
      windowMs: options.pacing?.windowMs,
      initialLimit: options.pacing?.initialLimit,
      maxConcurrency: options.pacing?.maxConcurrency,
      clock,
      random,
      onEvent: events.enabled ? (event) => events.emit({ type: "pacing", event }) : undefined,
    });
  const budget = createRetryBudget(options.retry?.budget);
  if (telemetry)
    telemetry = bindTelemetry(telemetry, options, credential.environment, credential.publicKeyId, pacer, budget);
  const signalViaInit = takesSignalAsInit(options.fetch);
  // The global fetch only builds a Request from `init`, which follows the lightweight signal; a custom
  // fetch may do anything with `init.signal`, so it gets a genuine AbortSignal.
  const realSignal = signalViaInit && options.fetch !== undefined && options.fetch !== globalThis.fetch;
  const fleet =
    options.fleet && options.journal ? createFleet(options.fleet, options.journal, clock, events, random) : undefined;
  // Without fleet leases, recover() learns from these which journalled commands this client is sending now.
  const live = options.journal && !fleet ? new Set<CallContext>() : undefined;
  const timeoutMs = options.timeoutMs ?? DEFAULT_CALL.timeoutMs;
  const deadlineMs = options.deadlineMs ?? DEFAULT_CALL.deadlineMs;
  const http = createClient<paths>({
    baseUrl: options.baseUrl,
    fetch: options.fetch as typeof globalThis.fetch | undefined,
    headers: { Authorization: `Bearer ${options.token}`, Accept: "application/json" },
    bodySerializer: bodySerializer as never,
    // Without one, openapi-fetch builds its default query serializer again on every call.
    querySerializer: createQuerySerializer(),
  });
  // One registration: openapi-fetch's per-middleware cost is paid once per call (middleware/chain.ts).
  http.use(
    chainMiddleware(
      createLocalValidationMiddleware({
        environment: credential.environment,
        allowLiveOnlyWithTestKey: options.allowLiveOnlyWithTestKey,
      }),
      createIdempotencyMiddleware({
        environment: credential.environment,
        apiKeyId: credential.publicKeyId,
        clock,
        journal: options.journal,
        leases: fleet?.leases,
      }),
      createLanguageMiddleware(options.language),
      createRequestIdMiddleware(randomRequestId),
      createAttemptLoopMiddleware({
        pacer,
        apiKeyId: credential.publicKeyId,
        clock,
        random,
        budget,
        retry: {
          maxAttempts: options.retry?.maxAttempts ?? DEFAULT_RETRY.maxAttempts,
          baseMs: options.retry?.baseMs ?? DEFAULT_RETRY.baseMs,
          capMs: options.retry?.capMs ?? DEFAULT_RETRY.capMs,
          maxRateLimitRetries: options.retry?.maxRateLimitRetries ?? DEFAULT_RETRY.maxRateLimitRetries,
        },
        timeoutMs,
        deadlineMs,
        maxResponseBytes: options.maxResponseBytes ?? DEFAULT_CALL.maxResponseBytes,
        windowMs: options.pacing?.windowMs ?? DEFAULT_PACING.windowMs,
        journal: options.journal,
        leases: fleet?.leases,
        events,
        redactor,
        newRequestId: randomRequestId,
        telemetry,
      }),
    ),
  );

  async function call(
    operationId: OperationId,
    args: Record<string, unknown> | undefined,
    callOptions: CallOptions = {},
    priority?: PacingPriority,
  ): Promise<Outcome> {
    if (loggerReady) await loggerReady;
    const op = operationTable[operationId];
    // Per-call options are checked before the journal sees the command (nothing recorded, nothing sent).
    if (callOptions.idempotencyKey !== undefined) validateIdempotencyKey(callOptions.idempotencyKey);
    if (callOptions.language !== undefined) validateLanguage(callOptions.language);
    if (
      callOptions.timeoutMs !== undefined &&
      !(typeof callOptions.timeoutMs === "number" && callOptions.timeoutMs > 0)
    ) {
      throw new InvalidArgumentError("timeoutMs must be a positive number of milliseconds.", "timeoutMs");
    }
    if (callOptions.deadlineMs !== undefined && !isDeadline(callOptions.deadlineMs)) {
      throw new InvalidArgumentError(
        "deadlineMs must be a positive number of milliseconds, or Infinity for none.",
        "deadlineMs",
      );
    }
    if (callOptions.signal !== undefined && !(callOptions.signal instanceof AbortSignal)) {
      throw new InvalidArgumentError("signal must be an AbortSignal.", "signal");
    }
    if (callOptions.idempotencyKey !== undefined && !op.idempotencyRequired) {
      throw new InvalidArgumentError(
        `${operationId} is a ${op.method}: it takes no Idempotency-Key (D1).`,
        "idempotencyKey",
      );
    }
    const firstAttempt = new AttemptController(realSignal);
    // Plain literals, no spreads: this runs once per call on the hot path.
    const ctx: CallContext = {
      op,
      idempotencyKey: callOptions.idempotencyKey,
      signal: callOptions.signal,
      timeoutMs: callOptions.timeoutMs,
      deadlineMs: callOptions.deadlineMs,
      language: callOptions.language,
      outcomeOnly: true,
      firstAttempt,
      signalViaInit,
      priority,
    };
    // One fixed shape (a literal with constant keys): openapi-fetch spreads and destructures it.
    const init = {
      params: paramsOf(op.pathParams, args),
      parseAs: "stream",
      // The first attempt sends openapi-fetch's own Request (transport.ts); its signal rides on it only
      // for a fetch that cannot take it as init.
      signal: signalViaInit ? undefined : firstAttempt.requestSignal,
      redirect: "manual",
      body: args?.body, // undefined: no body (openapi-fetch serialises nothing)
      resellerCall: ctx, // CALL_CONTEXT_KEY
    } satisfies Record<typeof CALL_CONTEXT_KEY, CallContext> & Record<string, unknown>;
    live?.add(ctx);
    try {
      await http.request(op.method as never, op.path as never, init as never); // openapi-fetch upper-cases it
    } catch (error) {
      if (ctx.outcome) return ctx.outcome;
      throw error;
    } finally {
      live?.delete(ctx);
    }
    const outcome = ctx.outcome;
    if (!outcome) throw wrapBroken();
    if (operationId === "context.get" && outcome.kind === "succeeded") {
      // A5: learn the key's limit from the first call a client makes.
      const limit = (outcome.data as { data?: { credential?: { rate_limit_per_minute?: unknown } } })?.data?.credential
        ?.rate_limit_per_minute;
      if (typeof limit === "number") pacer.learnLimit(credential.publicKeyId, limit);
    }
    return outcome;
  }

  // recoverOnStart: facade writes wait for the start-up recovery (its own calls use call() directly),
  // so a resumed command and recovery never race, and domain locks (I6) are settled first.
  let startupGate: Promise<unknown> | undefined;
  const invoke = (operationId: OperationId, args: unknown, callOptions: unknown): unknown => {
    if (startupGate && operationTable[operationId].idempotencyRequired) {
      return startupGate.then(() => invokeNow(operationId, args, callOptions));
    }
    return invokeNow(operationId, args, callOptions);
  };
  const invokeNow = (operationId: OperationId, args: unknown, callOptions: unknown): unknown => {
    const op = operationTable[operationId];
    const a = (args ?? undefined) as Record<string, unknown> | undefined;
    const o = (callOptions ?? {}) as CallOptions;
    if (op.pagination === null) return call(operationId, a, o);
    const query = (a?.query ?? {}) as Record<string, unknown>;
    return createPagedCall(
      (cursor) => call(operationId, { ...a, query: cursor === undefined ? query : { ...query, cursor } }, o),
      typeof query.cursor === "string" ? query.cursor : undefined,
    );
  };

  const facade = createFacade<ResultMap, CallOptions>(invoke) as unknown as ResellerClient;
  // operations.wait and recover() load on first use: a separate chunk most calls never need.
  const wait = (operationUuid: string, waitOptions?: WaitOptions): Promise<WaitResult> =>
    import("./operations-wait").then(({ waitForOperation }) =>
      waitForOperation(
        // Each poll ends by the wait's own deadline too, so no poll outlives the wait.
        (uuid, signal, leftMs) =>
          call(
            "operations.get",
            { operationUuid: uuid },
            { signal, deadlineMs: Math.max(1, Math.min(deadlineMs, leftMs)) },
          ),
        clock,
        operationUuid,
        waitOptions,
        options.journal,
      ),
    );
  Object.assign(facade.operations, { wait });
  const recover = (recoverOptions?: RecoverOptions): Promise<RecoverSummary> => {
    // Thrown, not rejected: a forgotten journal is a set-up mistake, and an un-awaited rejected promise
    // would surface later as an unhandled rejection that names nothing.
    if (!options.journal) {
      throw new InvalidOptionsError(
        "recover() needs the journal option: create the client with journal (e.g. createSqliteJournal from reseller-api/stores/sqlite), the journal its commands were recorded in.",
        "journal",
      );
    }
    const journal = options.journal;
    return loadRecovery().then(({ recoverCommands }) =>
      recoverCommands(
        {
          journal,
          clock,
          apiKeyId: credential.publicKeyId,
          environment: credential.environment,
          // The pacer's recovery lane: a saturated queue of new work does not hold a dead worker's commands back.
          call: (id, args, o) => call(id, args, o, "recovery"),
          redactor,
          windowMs: options.pacing?.windowMs ?? DEFAULT_PACING.windowMs,
          leases: fleet?.leases,
          busy: live && (() => [...live].flatMap((c) => (c.commandId ? [c.commandId] : []))),
        },
        // I7: recovery steps reach the client's onEvent too, not only the one given to recover().
        events.observed
          ? {
              ...recoverOptions,
              onEvent: (event) => {
                events.emit({ type: "recovery", event });
                recoverOptions?.onEvent?.(event);
              },
            }
          : recoverOptions,
      ),
    );
  };
  let recovery: Promise<RecoverSummary> | undefined;
  // A client that recovers by itself needs the chunk anyway: start loading it now, not at the first round.
  if (options.recoverOnStart || fleet?.recovers) void loadRecovery().catch(() => undefined);
  if (options.recoverOnStart) {
    recovery = recover(options.recoverOnStart === true ? undefined : options.recoverOnStart);
    startupGate = recovery.then(
      () => (startupGate = undefined),
      () => (startupGate = undefined), // a failed recovery is reported through client.recovery, not by blocking
    );
    recovery.catch(() => undefined); // handled: the caller reads client.recovery when it cares
  }
  fleet?.start(recover);
  return Object.assign(facade, {
    workerId: fleet?.workerId,
    close: async () => fleet?.close(),
    http,
    pacer,
    retryBudget: budget,
    credential: { environment: credential.environment, publicKeyId: credential.publicKeyId },
    recover,
    recovery,
  });
}

/** recover() and its plan and lookups: one chunk, loaded once per process on first use. */
let recoveryChunk: Promise<typeof Recovery> | undefined;
function loadRecovery(): Promise<typeof Recovery> {
  return (recoveryChunk ??= import("../recovery"));
}

/** The wrap (middleware/attempt-loop.ts) never saw this call's context: openapi-fetch dropped the init key. */
function wrapBroken(): ResellerClientError {
  return new ResellerClientError(
    `openapi-fetch did not copy the init key "${CALL_CONTEXT_KEY}" onto its Request, so the call ran without its ` +
      "idempotency key and journal. Install the openapi-fetch version reseller-api declares (npm ls openapi-fetch).",
  );
}
