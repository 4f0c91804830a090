/**
 * The GETs recover() reconciles with (I4, F5, seed 000 "after the TTL, reconcile by UUID /
 * external_id and operations"), through the client's own call path (paced, journalled rules).
 */
import type { OperationId } from "../generated/operations";
import type { CallOptions } from "../runner";
import { envelopeList, isRecord, type OperationResource, type Outcome } from "../core";

type Call = (
  operationId: OperationId,
  args: Record<string, unknown> | undefined,
  options?: CallOptions,
) => Promise<Outcome>;

export type OrderLookup =
  | { kind: "found"; order: Record<string, unknown>; requestId?: string }
  | { kind: "not_found"; requestId?: string }
  | { kind: "failed"; why: string; requestId?: string };

const describeOutcome = (o: Outcome) => `${o.kind}${"status" in o && o.status ? ` ${o.status}` : ""}`;

/** GET /orders?external_id=…; only an exact external_id match counts (a server filter is not trusted blindly). */
export async function lookupOrderByExternalId(
  call: Call,
  externalId: string,
  signal?: AbortSignal,
): Promise<OrderLookup> {
  const outcome = await call("orders.list", { query: { external_id: externalId, per_page: 100 } }, { signal });
  if (outcome.kind !== "succeeded")
    return { kind: "failed", why: describeOutcome(outcome), requestId: outcome.requestId };
  // Total: a 2xx with no body or a body of any shape is "failed", never a TypeError (E5).
  const list = envelopeList(outcome.data);
  if (!list) return { kind: "failed", why: "no data list", requestId: outcome.requestId };
  const order = list.find((o): o is Record<string, unknown> => isRecord(o) && o.external_id === externalId);
  return order
    ? { kind: "found", order, requestId: outcome.requestId }
    : { kind: "not_found", requestId: outcome.requestId };
}

/** GET /operations?domain_uuid=…: UUIDs of the domain's operations created since `since` (− 5 min skew). */
export async function listDomainOperations(
  call: Call,
  domainUuid: string,
  since: number,
  signal?: AbortSignal,
): Promise<{ uuids: string[]; requestId?: string }> {
  const outcome = await call("operations.list", { query: { domain_uuid: domainUuid, per_page: 100 } }, { signal });
  if (outcome.kind !== "succeeded") return { uuids: [], requestId: outcome.requestId };
  const list = envelopeList(outcome.data) ?? [];
  const uuids = list
    .filter(
      (o): o is OperationResource =>
        isRecord(o) &&
        typeof o.uuid === "string" &&
        (typeof o.created_at !== "string" || !(Date.parse(o.created_at) < since - 300_000)),
    )
    .map((o) => o.uuid);
  return { uuids, requestId: outcome.requestId };
}
