/**
 * The GETs recover() reconciles with (I4, F5, seed 000 "after the TTL, reconcile by UUID /
 * external_id and operations"), through the client's own call path (paced, journalled rules).
 */
import { operationRoles, type OperationId } from "../generated/operations";
import { orderFromList, orderLookupQuery, type CallOptions } from "../runner";
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

/** GET /orders?external_id=… through the client's call path; the verdict is the runner's own (orderFromList). */
export async function lookupOrderByExternalId(
  call: Call,
  externalId: string,
  signal?: AbortSignal,
): Promise<OrderLookup> {
  const outcome = await call(operationRoles.reconcileLookup, { query: orderLookupQuery(externalId) }, { signal });
  if (outcome.kind !== "succeeded")
    return { kind: "failed", why: describeOutcome(outcome), requestId: outcome.requestId };
  const verdict = orderFromList(outcome.data, externalId);
  const requestId = outcome.requestId;
  if (verdict.result === "found") return { kind: "found", order: verdict.order, requestId };
  return verdict.result === "not_found"
    ? { kind: "not_found", requestId }
    : { kind: "failed", why: verdict.why, requestId };
}

/** GET /operations?domain_uuid=…: UUIDs of the domain's operations created since `since` (− 5 min skew). */
export async function listDomainOperations(
  call: Call,
  domainUuid: string,
  since: number,
  signal?: AbortSignal,
): Promise<{ uuids: string[]; requestId?: string }> {
  const outcome = await call(
    operationRoles.domainOperations,
    { query: { domain_uuid: domainUuid, per_page: 100 } },
    { signal },
  );
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
