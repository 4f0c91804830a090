/**
 * The wrap around openapi-fetch's single `fetch` (see README: "The attempt loop is a wrap").
 * Registered last, its onRequest runs the whole command through runner/ (pacing, retries,
 * reconciliation), calling `options.fetch` itself, so the other middleware never re-run and the body
 * is never re-serialised (D4). The Outcome goes back on the call context, which openapi-fetch copies
 * onto the Request from the init key CALL_CONTEXT_KEY.
 */
import type { Middleware } from "openapi-fetch";
import { callContextOf } from "../runner";
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

export function createAttemptLoopMiddleware(deps: RunnerDeps): Middleware {
  return {
    async onRequest({ request, schemaPath, options }) {
      const ctx = callContextOf(request, schemaPath);
      if (!ctx) return undefined; // an undocumented route: plain openapi-fetch behaviour
      let body = ctx.body;
      if (body === undefined) body = request.body === null ? null : new Uint8Array(await request.clone().arrayBuffer());
      // Retries (and the reconcile lookup) rebuild the request from its parts; built on demand only.
      let template: AttemptRequest | undefined;
      // The facade's Request has the frozen bytes (and our signal, or it goes as init): attempt 1.
      const first = ctx.firstAttempt;
      const prepared =
        first && request.signal && !request.bodyUsed
          ? { request, controller: first, init: ctx.signalViaInit ? first.fetchInit : undefined }
          : undefined;
      let result;
      try {
        result = await runCommand(
          deps,
          ctx,
          () => (template ??= templateOf(request, body)),
          prepared,
          options.baseUrl,
          options.fetch,
        );
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
