// The order of checks for one API request (see README.md). Everything after the body has been
// read is synchronous, so a reservation and its execution can never interleave with another
// request using the same Idempotency-Key (D5).
import type { OperationMeta } from "../generated/operations";
import { authenticate, checkAccess } from "./auth";
import { ApiError, errorResult, jsonResult, type ApiResult } from "./errors";
import {
  AFTER_KINDS,
  BEFORE_KINDS,
  LIMITER_KINDS,
  proxyResult,
  takeFault,
  truncate,
  unavailableResult,
} from "./faults";
import type { HandlerContext } from "./handler";
import { resolveLanguage, t, type Translate } from "./i18n";
import { bindOperation, complete, fingerprint, lookupOrReserve, readIdempotencyKey, release } from "./idempotency";
import { settle } from "./operations-lifecycle";
import { hit, rateHeaders, secondsToWindowEnd } from "./rate-limiter";
import { presentOperation } from "./resources/domains";
import { handlers } from "./resources/index";
import { methodNotAllowedBody, route } from "./router";
import { REQUEST_LOG_LIMIT, type ApiKey, type IdempotencyRecord, type State } from "./state";
import type { FaultInfo, RequestLogEntry, SocketFault } from "./types";
import { iso, UUID_RE, uuidV4 } from "./util";

export type Outcome = ApiResult | SocketFault;

const REQUEST_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** Handles a request under the API base path (or any non-control path: unknown route). */
export async function handleApi(
  state: State,
  request: Request,
  remoteAddress: string,
  /** Receives the request's log entry (complete once the returned promise settles): the tracer reads it. */
  seen?: { log?: RequestLogEntry },
): Promise<Outcome> {
  const method = request.method.toUpperCase();
  const bytes = method === "GET" || method === "HEAD" ? new Uint8Array() : new Uint8Array(await request.arrayBuffer());
  // ---- synchronous from here on ----
  settle(state);
  const url = new URL(request.url);
  const log: RequestLogEntry = {
    at: iso(state.now()),
    method,
    path: url.pathname,
    operation_id: null,
    public_key_id: null,
    status: null,
    counted: false,
    replayed: false,
    request_id: null,
    fault: null,
  };
  state.requestLog.push(log);
  if (seen) seen.log = log;
  if (state.requestLog.length > REQUEST_LOG_LIMIT)
    state.requestLog.splice(0, state.requestLog.length - REQUEST_LOG_LIMIT);
  const done = (outcome: Outcome): Outcome => {
    if ("status" in outcome) {
      log.status = outcome.status;
      log.request_id = outcome.headers["x-request-id"] ?? null;
      // RFC 9110 §9.3.2: every HEAD answer (errors, faults and the limiter's 429 too) has no body.
      if (method === "HEAD") outcome.body = null;
    }
    return outcome;
  };

  const lang = resolveLanguage(request.headers, state.config.language);
  const tr: Translate = (key, params) => t(lang, key, params);
  const match = route(method, url.pathname);
  if (match.kind === "not_found") {
    // E5: the router's 404 — envelope, but no request context, so no X-Request-ID.
    return done(errorResult(new ApiError(404, "resource_not_found", tr("route_not_found")), null));
  }
  if (match.kind === "method_not_allowed") {
    return done({
      status: 405,
      body: methodNotAllowedBody(method, match),
      headers: { "content-type": "application/json" },
    });
  }
  const op = match.op;
  log.operation_id = op.operationId;

  const fault = takeFault(state, method === "HEAD" ? "GET" : method, op.path);
  log.fault = fault?.kind ?? null;
  const clientId = request.headers.get("x-request-id");
  const requestId = clientId && REQUEST_ID_RE.test(clientId) ? clientId : uuidV4(state.config.random);
  if (fault && BEFORE_KINDS.has(fault.kind)) {
    if (fault.kind === "timeout_before") return { kind: "hang" };
    if (fault.kind === "reset_before") return { kind: "reset" };
    if (fault.kind === "error_503_before") return done(unavailableResult(tr("service_unavailable"), requestId));
    return done(proxyResult(fault, state.now()));
  }

  const withId = (result: ApiResult, extra: Record<string, string> = {}): ApiResult => ({
    ...result,
    headers: { ...result.headers, ...extra, "x-request-id": requestId },
  });

  // A2–A7: authentication and general access; early rejections spend no hit (C6).
  let key: ApiKey;
  let reseller;
  try {
    ({ key, reseller } = authenticate(state, request.headers, tr));
    log.public_key_id = key.publicKeyId;
    checkAccess(key, reseller, method, op.operationId, remoteAddress, tr);
  } catch (error) {
    return done(withId(errorResult(error as ApiError, requestId)));
  }

  // C1–C11: the limiter (or a fault shaped like it).
  if (fault && LIMITER_KINDS.has(fault.kind)) {
    const seconds = fault.kind === "retry_after_zero" ? 0 : secondsToWindowEnd(state, key);
    const result = errorResult(
      new ApiError(429, "rate_limit_exceeded", tr("rate_limited"), { retry_after: seconds }),
      requestId,
    );
    return done(withId(result, fault.kind === "retry_after_zero" ? { "retry-after": "0" } : {}));
  }
  const decision = hit(state, key);
  if (!decision.allowed) {
    const err = new ApiError(429, "rate_limit_exceeded", tr("rate_limited"), { retry_after: decision.retryAfter });
    return done(withId(errorResult(err, requestId), { "retry-after": String(decision.retryAfter) }));
  }
  log.counted = true;
  const limitHeaders = rateHeaders(decision);
  const finish = (result: ApiResult, replayed = false): Outcome => {
    log.replayed = replayed;
    return done(withId(result, { ...limitHeaders, ...(replayed ? { "idempotency-replayed": "true" } : {}) }));
  };
  const fail = (error: ApiError) => finish(errorResult(error, requestId));

  // B1–B3: live-only resources, before any replay (B2).
  if (op.liveOnly && key.environment !== "live") {
    return fail(
      new ApiError(
        403,
        "forbidden",
        tr(op.operationId.startsWith("tickets.") ? "support_live_only" : "finance_live_only"),
      ),
    );
  }

  // D1–D7: Idempotency-Key, then the stored record.
  let idemKey: string | null = null;
  let record: IdempotencyRecord | null = null;
  let print = "";
  if (op.idempotencyRequired) {
    idemKey = readIdempotencyKey(request.headers);
    if (idemKey === null) return fail(new ApiError(422, "validation_failed", tr("idempotency_key_invalid"), []));
    print = fingerprint(method, url, bytes);
    const found = lookupOrReserve(state, key, idemKey, print);
    if (found.kind === "conflict") {
      return fail(
        new ApiError(
          409,
          "conflict",
          tr(found.reason === "mismatch" ? "idempotency_mismatch" : "idempotency_processing"),
        ),
      );
    }
    // D8: bearer and general access were checked above; the scope is not re-checked for a replay.
    if (found.kind === "replay") {
      const headers: Record<string, string> = found.body === null ? {} : { "content-type": "application/json" };
      return finish({ status: found.status, body: found.body, headers }, true);
    }
    if (found.kind === "bound") {
      const operation = state.operations.get(found.operationUuid)!;
      return finish(jsonResult(202, { data: presentOperation(operation) }), true);
    }
    record = found.record;
    if (fault?.kind === "stuck_processing") return { kind: "hang" }; // D6: the record stays processing
  } else if (fault?.kind === "stuck_processing") {
    return { kind: "hang" };
  }

  const result = execute(state, op, match.params, url, bytes, key, reseller, lang, tr, idemKey, requestId);
  if (record && idemKey) {
    // D5: 2xx and 4xx are stored; an exception or a 5xx releases the key so a retry runs again.
    if (result.result.status >= 500) release(state, key, idemKey, record);
    else complete(record, result.result.status, result.result.body);
    if (result.operationUuid && result.result.status === 202)
      bindOperation(state, key, idemKey, print, result.operationUuid);
  }
  const spoiled = applyAfterFault(fault, finish(result.result), requestId, tr);
  if (!("status" in spoiled)) log.status = null;
  return done(spoiled);
}

function execute(
  state: State,
  op: OperationMeta,
  params: Record<string, string>,
  url: URL,
  bytes: Uint8Array,
  key: ApiKey,
  reseller: HandlerContext["reseller"],
  lang: HandlerContext["lang"],
  tr: Translate,
  idemKey: string | null,
  requestId: string,
): { result: ApiResult; operationUuid?: string } {
  const ctx: HandlerContext = {
    state,
    key,
    reseller,
    op,
    params,
    url,
    query: url.searchParams,
    body: {},
    lang,
    tr,
    idempotencyKey: idemKey,
    now: state.now(),
    effect(kind, resourceUuid) {
      state.effects.push({
        kind,
        resource_uuid: resourceUuid,
        idempotency_key: idemKey,
        at: iso(state.now()),
        environment: key.environment,
        api_key_id: key.publicKeyId,
        reseller_uuid: key.resellerUuid,
      });
    },
  };
  try {
    // A6: several scopes mean logical AND.
    if (!op.scopes.every((s) => key.scopes.includes(s))) throw new ApiError(403, "forbidden", tr("scope_forbidden"));
    // A9: a malformed path UUID answers 422 on some methods and 500 on others.
    for (const name of op.pathParams) {
      if (UUID_RE.test(params[name] ?? "")) continue;
      if (op.malformedUuidStatus === 500) throw new ApiError(500, "internal_error", tr("server_error"));
      throw new ApiError(422, "validation_failed", tr("v.uuid", { field: name }), {
        [name]: [tr("v.uuid", { field: name })],
      });
    }
    if (op.hasBody) ctx.body = parseBody(bytes, tr);
    const handler = handlers[op.operationId];
    const out = handler(ctx);
    return { result: jsonResult(out.status, out.body), operationUuid: ctx.boundOperationUuid };
  } catch (error) {
    if (error instanceof ApiError) return { result: errorResult(error, requestId) };
    return { result: errorResult(new ApiError(500, "internal_error", tr("server_error")), requestId) };
  }
}

function parseBody(bytes: Uint8Array, tr: Translate): unknown {
  const text = new TextDecoder().decode(bytes);
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, "request_failed", tr("malformed_json"));
  }
}

/** The "…_after" faults: the side effect and its idempotency record are already committed. */
function applyAfterFault(fault: FaultInfo | null, outcome: Outcome, requestId: string, tr: Translate): Outcome {
  if (!fault || !AFTER_KINDS.has(fault.kind) || !("status" in outcome)) return outcome;
  switch (fault.kind) {
    case "timeout_after":
      return { kind: "hang" };
    case "reset_after":
      return { kind: "reset" };
    case "error_500_after": {
      const result = errorResult(new ApiError(500, "internal_error", tr("server_error")), requestId);
      return {
        ...outcome,
        status: 500,
        body: result.body,
        headers: { ...outcome.headers, "content-type": "application/json" },
      };
    }
    case "truncated_json":
      return truncate(outcome);
    case "empty_body":
      return { ...outcome, body: "" };
    default:
      return outcome;
  }
}
