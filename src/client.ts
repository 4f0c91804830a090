/**
 * createResellerClient(): openapi-fetch + the middleware chain + the generated facade.
 * Chain order (each a separate factory in middleware/): local validation (A9, H1, B1–B4) →
 * idempotency + journal (D1–D4, G1) → language (E6) → request id (G2) → attempt loop (pacing,
 * retries, classification, reconciliation — E4, C12, I2, I4).
 */
import createClient, { createQuerySerializer } from "openapi-fetch";
import type { paths } from "../generated/schema";
import { createFacade } from "../generated/client";
import { operationRoles, operationTable, type OperationId } from "../generated/operations";
import type { Clock } from "../runtime/clock";
import { chainMiddleware, createAttemptLoopMiddleware } from "../middleware";
import type { CallOptions } from "../runner";
import { InvalidArgumentError, InvalidOptionsError } from "../core";
import { createEventSink, guardTelemetry, quietly } from "../core";
import { bindTelemetry, eventHandlerOf } from "./observers";
import { createIdempotencyMiddleware } from "../middleware";
import { createLanguageMiddleware, validateLanguage } from "../middleware";
import { createLocalValidationMiddleware } from "../middleware";
import { createPacer } from "../pacing";
import { createMemoryWindowStore } from "../pacing";
import type { WindowStore } from "../pacing";
import { createRedactor } from "../core";
import { createRequestIdMiddleware, randomRequestId } from "../middleware";
import { createRetryBudget } from "../runner";
import { checkBaseUrl, parseToken } from "../core";
import { checkOptions, type ResellerClientOptions } from "./options";
import { resolveOptions } from "./resolved-options";
import { createCall } from "./call";
import { createPagedCall } from "./paged-call";
import type { ResellerClient, ResultMap } from "./client-type";
import type { WaitOptions, WaitResult } from "./operations-wait";
import type { RecoverOptions, RecoverSummary } from "../recovery";
import type * as Recovery from "../recovery";
import { createFleet } from "./fleet";
import { createClientGate } from "./closing";
import { createCommandHolders } from "../journal";

export type { ResellerClient, ResultMap } from "./client-type";

/** Exact body bytes pass through untouched (D4: a resend from the journal); anything else is JSON once. */
function bodySerializer(body: unknown): unknown {
  if (body instanceof Uint8Array) return body;
  try {
    return JSON.stringify(body);
  } catch (error) {
    // Before the chain runs: nothing recorded, nothing sent.
    const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new InvalidArgumentError(
      `body cannot be sent as JSON (${why}): pass plain data — no BigInt, no circular references. Nothing was recorded or sent.`,
      "body",
    );
  }
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
 * // Ids are UUIDs as the API returns them (A9): look the domain up by its name.
 * const page = await client.domains.list({ query: { name: ["example.kz"] } });
 * const domainUuid = page.kind === "succeeded" ? page.data.data[0]?.uuid : undefined;
 * if (domainUuid) {
 *   // The Idempotency-Key names this one business command: the same on every retry, a new one for the next.
 *   const outcome = await client.domains.renew({ domainUuid, body: { period: 1 } }, { idempotencyKey: `renew-${domainUuid}-2027` });
 *   console.log(outcome.kind); // "accepted": wait with client.operations.wait(outcome.operationUuid)
 * }
 * ```
 * @see https://github.com/reseller-api/reseller-api/blob/main/docs/contract.md for the behaviour and its rule IDs.
 */
export function createResellerClient(options: ResellerClientOptions): ResellerClient {
  checkOptions(options);
  const credential = parseToken(options.token);
  checkBaseUrl(options.baseUrl, options.allowInsecureHttp ?? false);
  if (options.language !== undefined) validateLanguage(options.language);
  const resolved = resolveOptions(options);
  const { clock, random } = resolved;
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
      store: resolved.pacing.store ?? processWindowStore(clock),
      windowMs: resolved.pacing.windowMs,
      initialLimit: resolved.pacing.initialLimit,
      maxConcurrency: resolved.pacing.maxConcurrency,
      clock,
      random,
      onEvent: events.enabled ? (event) => events.emit({ type: "pacing", event }) : undefined,
    });
  const budget = createRetryBudget(resolved.retry.budget);
  if (telemetry)
    telemetry = bindTelemetry(
      telemetry,
      options,
      credential.environment,
      credential.publicKeyId,
      pacer,
      budget,
      resolved.retry.budget.capacity,
    );
  const fleet =
    resolved.fleet && options.journal ? createFleet(resolved.fleet, options.journal, clock, events, random) : undefined;
  // Which journalled commands this client's calls, waits and recovery work on right now (journal/holders.ts).
  const holders = options.journal ? createCommandHolders() : undefined;
  const openapiOptions = {
    baseUrl: options.baseUrl,
    fetch: options.fetch as typeof globalThis.fetch | undefined,
    headers: { Authorization: `Bearer ${options.token}`, Accept: "application/json" },
    bodySerializer: bodySerializer as never,
    // Without one, openapi-fetch builds its default query serializer again on every call.
    querySerializer: createQuerySerializer(),
  };
  const chain = chainMiddleware(
    createLocalValidationMiddleware({
      environment: credential.environment,
      allowLiveOnlyWithTestKey: resolved.allowLiveOnlyWithTestKey,
    }),
    createIdempotencyMiddleware({
      environment: credential.environment,
      apiKeyId: credential.publicKeyId,
      clock,
      journal: options.journal,
      leases: fleet?.leases,
      holders,
      events,
      telemetry,
      secrets: [options.token, credential.secret],
    }),
    createLanguageMiddleware(options.language),
    createRequestIdMiddleware(randomRequestId),
    createAttemptLoopMiddleware({
      pacer,
      apiKeyId: credential.publicKeyId,
      clock,
      random,
      budget,
      retry: resolved.retry,
      timeoutMs: resolved.timeoutMs,
      deadlineMs: resolved.deadlineMs,
      maxResponseBytes: resolved.maxResponseBytes,
      windowMs: resolved.pacing.windowMs,
      journal: options.journal,
      leases: fleet?.leases,
      events,
      redactor,
      newRequestId: randomRequestId,
      signalInInit: options.fetch === undefined,
      telemetry,
    }),
  );
  // The facade's calls bring the chain as openapi-fetch's per-request middleware (src/call.ts);
  // `client.http`, for direct calls, has it registered once.
  const http = createClient<paths>(openapiOptions);
  http.use(chain);
  const call = createCall({
    http: createClient<paths>(openapiOptions),
    chain,
    pacer,
    apiKeyId: credential.publicKeyId,
    signalInInit: options.fetch === undefined,
    loggerReady: () => loggerReady,
  });

  // recoverOnStart: facade writes wait for the start-up recovery (its own calls use call() directly),
  // so a resumed command and recovery never race, and domain locks (I6) are settled first.
  let startupGate: Promise<unknown> | undefined;
  const gate = createClientGate(); // close(): no new work, the work in flight finishes first
  const invoke = (operationId: OperationId, args: unknown, callOptions: unknown): unknown => {
    const op = operationTable[operationId];
    const a = (args ?? undefined) as Record<string, unknown> | undefined;
    const o = (callOptions ?? {}) as CallOptions;
    if (op.pagination === null) {
      return gate.run(operationId, () =>
        startupGate && op.idempotencyRequired
          ? startupGate.then(() => call(operationId, a, o))
          : call(operationId, a, o),
      );
    }
    const query = (a?.query ?? {}) as Record<string, unknown>;
    return createPagedCall(
      (cursor) =>
        gate.run(operationId, () =>
          call(operationId, { ...a, query: cursor === undefined ? query : { ...query, cursor } }, o),
        ),
      typeof query.cursor === "string" ? query.cursor : undefined,
    );
  };

  const facade = createFacade<ResultMap, CallOptions>(invoke) as unknown as ResellerClient;
  // operations.wait and recover() load on first use: a separate chunk most calls never need.
  const wait = (operationUuid: string, waitOptions?: WaitOptions): Promise<WaitResult> =>
    gate.run("operations.wait", () => waitNow(operationUuid, waitOptions));
  const waitNow = (operationUuid: string, waitOptions?: WaitOptions): Promise<WaitResult> =>
    import("./operations-wait").then(({ waitForOperation }) =>
      waitForOperation(
        // Each poll ends by the wait's own deadline too, so no poll outlives the wait.
        (uuid, signal, leftMs) =>
          call(
            operationRoles.pollOperation,
            { operationUuid: uuid },
            { signal, deadlineMs: Math.max(1, Math.min(resolved.deadlineMs, leftMs)) },
          ),
        clock,
        operationUuid,
        waitOptions,
        options.journal && { journal: options.journal, leases: fleet?.leases, holders },
      ),
    );
  Object.assign(facade.operations, { wait });
  // Continuous recovery's rounds share one: accepted commands are polled when due, not every round.
  let schedule: Recovery.PollSchedule | undefined;
  const recover = (recoverOptions?: RecoverOptions, background = false): Promise<RecoverSummary> => {
    // Thrown, not rejected: a forgotten journal is a set-up mistake, and an un-awaited rejected promise
    // would surface later as an unhandled rejection that names nothing.
    if (!options.journal) {
      throw new InvalidOptionsError(
        "recover() needs the journal option: create the client with journal (e.g. createSqliteJournal from reseller-api/stores/sqlite), the journal its commands were recorded in.",
        "journal",
      );
    }
    const journal = options.journal;
    return loadRecovery().then(({ recoverCommands, createPollSchedule }) =>
      recoverCommands(
        {
          journal,
          clock,
          apiKeyId: credential.publicKeyId,
          environment: credential.environment,
          // The pacer's recovery lane: a saturated queue of new work does not hold a dead worker's commands back.
          call: (id, args, o) => call(id, args, o, "recovery"),
          redactor,
          windowMs: resolved.pacing.windowMs,
          leases: fleet?.leases,
          holders,
          schedule: background ? (schedule ??= createPollSchedule()) : undefined,
        },
        // I7: recovery steps reach the client's onEvent too, not only the one given to recover().
        events.observed
          ? {
              ...recoverOptions,
              onEvent: (event) => {
                events.emit({ type: "recovery", event });
                quietly(recoverOptions?.onEvent?.(event));
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
  fleet?.start((round) => recover(round, true));
  return Object.assign(facade, {
    workerId: fleet?.workerId,
    close: () =>
      gate.close(
        () => Promise.all([fleet?.stopRecovery(), recovery?.catch(() => undefined)]),
        () => fleet?.leases.stop(),
      ),
    http,
    pacer,
    retryBudget: budget,
    credential: { environment: credential.environment, publicKeyId: credential.publicKeyId },
    recover: (recoverOptions?: RecoverOptions) => gate.run("recover", () => recover(recoverOptions)),
    recovery,
  });
}

/** recover() and its plan and lookups: one chunk, loaded once per process on first use. */
let recoveryChunk: Promise<typeof Recovery> | undefined;
function loadRecovery(): Promise<typeof Recovery> {
  return (recoveryChunk ??= import("../recovery"));
}
