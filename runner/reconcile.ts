/**
 * Reconciliation for `x-unknown-outcome: reconcile` writes (I4, F5, D7): after a timeout, reset or
 * 5xx on orders.create, look the order up by its `external_id` BEFORE any resend. Found → the
 * purchase happened, return it; not found → a resend with the same key and bytes is safe.
 */
import { operationRoles, operationTable, type OperationMeta } from "../generated/operations";
import type { CommandState } from "../journal";
import { classify } from "./classify";
import { envelopeList, isRecord, type Redactor } from "../core";
import type { AttemptRequest, AttemptTransport } from "./transport";

export type LookupResult =
  | { result: "found"; order: Record<string, unknown>; status: number; headers: Headers; requestId?: string }
  | { result: "not_found"; requestId?: string }
  | { result: "lookup_failed"; why: string; status?: number; requestId?: string };

/**
 * The one rule of every resend path, the runner's and recovery's (D7, F5, I4): a `reconcile` write in a
 * state where it may have reached the server is looked up by external_id before it is sent again —
 * past the replay TTL the server no longer replays the key and would create a second order.
 */
export function looksUpBeforeResend(op: Pick<OperationMeta, "unknownOutcome">, state: CommandState): boolean {
  return op.unknownOutcome === "reconcile" && state !== "accepted";
}

/** The external_id of a frozen orders.create body, or null when it has none. */
export function externalIdOf(body: Uint8Array | null | undefined): string | null {
  if (!body) return null;
  try {
    const parsed = JSON.parse(new TextDecoder().decode(body)) as { external_id?: unknown };
    return typeof parsed?.external_id === "string" && parsed.external_id.length > 0 ? parsed.external_id : null;
  } catch {
    return null;
  }
}

/** The one order lookup's query (F5): GET /orders?external_id=…&per_page=100 — the runner's and recovery's. */
export function orderLookupQuery(externalId: string): { external_id: string; per_page: number } {
  return { external_id: externalId, per_page: 100 };
}

/**
 * The one order lookup's verdict on a 2xx body (F5, I4), for the runner and for recovery: only an
 * order whose external_id matches exactly counts (a server-side filter is not trusted). Total: a body
 * with no data list (204, 200 with nothing, any other shape) is a failed lookup — the order may
 * exist, so the outcome stays unknown and nothing is created again.
 */
export function orderFromList(
  data: unknown,
  externalId: string,
):
  | { result: "found"; order: Record<string, unknown> }
  | { result: "not_found" }
  | { result: "lookup_failed"; why: string } {
  const list = envelopeList(data);
  if (!list) return { result: "lookup_failed", why: "lookup body has no data list" };
  const order = list.find((o): o is Record<string, unknown> => isRecord(o) && o.external_id === externalId);
  return order ? { result: "found", order } : { result: "not_found" };
}

/** GET /orders?external_id=… request derived from the command's own headers (no key, no body). */
export function lookupRequest(baseUrl: string, template: Record<string, string>, externalId: string): AttemptRequest {
  const headers = { ...template };
  delete headers["idempotency-key"];
  delete headers["content-type"];
  delete headers["x-request-id"];
  const q = orderLookupQuery(externalId);
  const url = `${baseUrl.replace(/\/+$/, "")}/orders?external_id=${encodeURIComponent(q.external_id)}&per_page=${q.per_page}`;
  return { url, method: "GET", headers, body: null };
}

/**
 * Runs the lookup through `send` (paced by the caller, 429s retried by the caller's rules).
 * Only an order whose external_id matches exactly counts (a server-side filter is not trusted).
 */
export async function lookupOrder(
  send: (req: AttemptRequest) => Promise<{ transport: AttemptTransport; requestId: string }>,
  req: AttemptRequest,
  externalId: string,
  redactor: Redactor,
): Promise<LookupResult> {
  const { transport, requestId } = await send(req);
  if (!transport.ok) return { result: "lookup_failed", why: `lookup ${transport.error}`, requestId };
  const c = classify(operationTable[operationRoles.reconcileLookup], transport.raw, redactor);
  const rid = transport.raw.headers.get("x-request-id") ?? requestId;
  if (c.kind !== "success")
    return { result: "lookup_failed", why: `lookup answered ${c.status}`, status: c.status, requestId: rid };
  const verdict = orderFromList(c.data, externalId);
  if (verdict.result === "found")
    return { result: "found", order: verdict.order, status: c.status, headers: transport.raw.headers, requestId: rid };
  return verdict.result === "not_found" ? { result: "not_found", requestId: rid } : { ...verdict, requestId: rid };
}
