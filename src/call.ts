/**
 * One facade call: its options checked (before the journal sees it: nothing recorded, nothing sent),
 * its context built and handed to openapi-fetch through the documented per-request `middleware`
 * option — which runs the client's middleware chain with that context — and its Outcome read back.
 * The A5 rule (learn the key's limit from `context.get`) lives here too.
 */
import type { Client, Middleware } from "openapi-fetch";
import type { paths } from "../generated/schema";
import { operationTable, type OperationId } from "../generated/operations";
import type { CallContext, CallOptions } from "../runner";
import { InvalidArgumentError, ResellerClientError, validateIdempotencyKey, type Outcome } from "../core";
import { validateLanguage, type Chain } from "../middleware";
import type { Pacer, PacingPriority } from "../pacing";
import { isDeadline } from "./options";
import { checkArgumentNames, checkCallArgs } from "./options-shape";

export type Call = (
  operationId: OperationId,
  args: Record<string, unknown> | undefined,
  callOptions?: CallOptions,
  priority?: PacingPriority,
) => Promise<Outcome>;

export interface CallParts {
  /** openapi-fetch with no middleware of its own: each call brings the chain (CallMiddleware). */
  http: Client<paths>;
  /** The client's middleware chain. */
  chain: Chain;
  pacer: Pacer;
  apiKeyId: string;
  /** The platform's fetch: the first attempt's signal goes as fetch's `init.signal`, not on the Request. */
  signalInInit: boolean;
  /** Resolves once the logger's chunk has loaded; undefined when nothing is pending. */
  loggerReady: () => Promise<unknown> | undefined;
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

/** Per-call options are checked before the journal sees the command (nothing recorded, nothing sent). */
function checkCallOptions(operationId: OperationId, callOptions: CallOptions): void {
  const op = operationTable[operationId];
  checkArgumentNames(callOptions, "call");
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
}

/** A5: a key's limit, as the first `context.get` of a client reports it. */
function learnLimit(pacer: Pacer, apiKeyId: string, outcome: Outcome): void {
  if (outcome.kind !== "succeeded") return;
  const limit = (outcome.data as { data?: { credential?: { rate_limit_per_minute?: unknown } } })?.data?.credential
    ?.rate_limit_per_minute;
  if (typeof limit === "number") pacer.learnLimit(apiKeyId, limit);
}

/**
 * The per-request middleware of one call: runs the client's chain with this call's context. One
 * object per call (its method, not a closure).
 */
class CallMiddleware {
  constructor(
    private readonly ctx: CallContext,
    private readonly chain: Chain,
  ) {}

  onRequest(params: Parameters<NonNullable<Middleware["onRequest"]>>[0]) {
    return this.chain.run(params, this.ctx);
  }
}

export function createCall(parts: CallParts): Call {
  const { http, chain, pacer, apiKeyId } = parts;
  return async function call(operationId, args, callOptions = {}, priority) {
    const ready = parts.loggerReady();
    if (ready) await ready;
    const op = operationTable[operationId];
    checkCallArgs(operationId, op.pathParams, args);
    checkCallOptions(operationId, callOptions);
    // A custom fetch gets the attempt's signal on the Request (openapi-fetch's documented `signal` init).
    const firstAttempt = parts.signalInInit ? undefined : new AbortController();
    // Plain literals, no spreads: this runs once per call on the hot path.
    const ctx: CallContext = {
      op,
      idempotencyKey: callOptions.idempotencyKey,
      signal: callOptions.signal,
      timeoutMs: callOptions.timeoutMs,
      deadlineMs: callOptions.deadlineMs,
      language: callOptions.language,
      outcomeOnly: true,
      sendsOwnRequest: true,
      firstAttempt,
      priority,
    };
    const init = {
      params: paramsOf(op.pathParams, args),
      parseAs: "stream",
      // The first attempt sends openapi-fetch's own Request (the transport).
      signal: firstAttempt?.signal,
      redirect: "manual",
      body: args?.body, // undefined: no body (openapi-fetch serialises nothing)
      middleware: [new CallMiddleware(ctx, chain) as Middleware],
    };
    try {
      await http.request(op.method as never, op.path as never, init as never); // openapi-fetch upper-cases it
    } catch (error) {
      if (ctx.outcome) return ctx.outcome;
      throw error;
    } finally {
      ctx.settleHold?.(ctx.outcome); // a same-key call waiting on this one gets its outcome
    }
    const outcome = ctx.outcome;
    // The chain's last step (middleware/attempt-loop.ts) always sets it or throws.
    if (!outcome) throw new ResellerClientError(`${operationId}: the call ended without an outcome.`);
    if (operationTable[operationId].teachesLimit) learnLimit(pacer, apiKeyId, outcome); // A5: x-teaches-limit
    return outcome;
  };
}
