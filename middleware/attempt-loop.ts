/**
 * The wrap around openapi-fetch's single `fetch` (see README: "The attempt loop is a wrap").
 * Last in the chain, its onRequest runs the whole command through runner/ (pacing, retries,
 * reconciliation), calling `options.fetch` itself, so the other middleware never re-run and the body
 * is never re-serialised (D4). The Outcome goes back on the call context (runner/call-context.ts),
 * which the facade's call step (openapi-fetch's per-request `middleware` option) handed to the chain.
 */
import type { ChainStep } from "./chain";
import { NetworkError, ResponseTooLargeError } from "../core";
import { runCommand, type RunnerDeps } from "../runner";
import type { AttemptRequest } from "../runner";

/** What openapi-fetch gets when the facade reads the Outcome instead (body-less, never read, shared). */
const OUTCOME_READY = new Response(null, { status: 204 });
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

function templateOf(request: Request, body: Uint8Array | null): AttemptRequest {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => (headers[name] = value));
  return { url: request.url, method: request.method, headers, body };
}

export function createAttemptLoopMiddleware(deps: RunnerDeps): ChainStep {
  return {
    async onRequest({ request, options, callContext: ctx }) {
      if (!ctx) return undefined; // an undocumented route: plain openapi-fetch behaviour
      let body = ctx.body;
      if (body === undefined) body = request.body === null ? null : new Uint8Array(await request.clone().arrayBuffer());
      // Retries (and the reconcile lookup) rebuild the request from its parts; built on demand only.
      let template: AttemptRequest | undefined;
      // The facade's Request carries the frozen bytes (and, with a custom fetch, the first attempt's
      // signal): attempt 1 sends it.
      const first = ctx.sendsOwnRequest && !request.bodyUsed ? { request, controller: ctx.firstAttempt } : undefined;
      let result;
      try {
        result = await runCommand(deps, {
          ctx,
          first,
          templateOf: () => (template ??= templateOf(request, body)),
          baseUrl: options.baseUrl,
          fetch: options.fetch,
        });
      } catch (error) {
        ctx.settleHold?.(); // a same-key call waiting on this one decides afresh
        throw error;
      }
      const { outcome, raw } = result;
      ctx.outcome = outcome;
      ctx.settleHold?.(outcome); // a same-key call waiting on this one gets this outcome
      if (ctx.outcomeOnly) return OUTCOME_READY;
      if (raw?.truncated) throw new ResponseTooLargeError(raw.status, deps.maxResponseBytes); // never a cut body
      if (raw) {
        return new Response(NULL_BODY_STATUSES.has(raw.status) ? null : (raw.bytes as BodyInit), {
          status: raw.status,
          headers: raw.headers,
        });
      }
      // No HTTP response at all: surface the transport failure to a raw client.http caller.
      throw outcome.kind === "unknown" && outcome.cause
        ? outcome.cause
        : new NetworkError(`${outcome.operationId}: no response`);
    },
  };
}
