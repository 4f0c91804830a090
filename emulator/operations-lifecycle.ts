// F1–F5: operations and orders move through their lifecycle lazily, from the clock, whenever the
// emulator is asked anything. pending → processing → completed | failed | uncertain (→ completed
// at next_check_at). A status forced through the control API freezes the lifecycle (F3: unknown
// statuses such as "awaiting_registry" are kept as they are).
import { refund } from "./resources/finance";
import type { Domain, Operation, Order, State } from "./state";
import { addYears, iso, uuidV4 } from "./util";

const UNKNOWN_RESULT = {
  code: "registry_result_unknown",
  message: "Registry result is not confirmed. Do not repeat this operation; reconciliation is scheduled.",
};
const REJECTED = { code: "registry_rejected", message: "The registry rejected the operation." };

interface Snapshot {
  status: string;
  completedAt: number | null;
  nextCheckAt: number | null;
  error: { code: string; message: string } | null;
}

function operationAt(op: Operation, now: number): Snapshot {
  const { pendingMs, processingMs, outcome, uncertainRecheckMs } = op.policy;
  if (op.forcedStatus !== null) {
    const at = op.forcedAt ?? now;
    const s = op.forcedStatus;
    return {
      status: s,
      completedAt: s === "completed" || s === "failed" ? at : null,
      nextCheckAt: s === "uncertain" ? at + uncertainRecheckMs : null,
      error: s === "failed" ? REJECTED : s === "uncertain" ? UNKNOWN_RESULT : null,
    };
  }
  const t1 = op.createdAt + pendingMs;
  const t2 = t1 + processingMs;
  if (now < t1) return { status: "pending", completedAt: null, nextCheckAt: null, error: null };
  if (now < t2) return { status: "processing", completedAt: null, nextCheckAt: null, error: null };
  if (outcome === "failed") return { status: "failed", completedAt: t2, nextCheckAt: null, error: REJECTED };
  if (outcome === "uncertain") {
    const check = t2 + uncertainRecheckMs;
    if (now < check) return { status: "uncertain", completedAt: null, nextCheckAt: check, error: UNKNOWN_RESULT };
    return { status: "completed", completedAt: check, nextCheckAt: null, error: null };
  }
  return { status: "completed", completedAt: t2, nextCheckAt: null, error: null };
}

function settleOperation(state: State, op: Operation, now: number): void {
  const snap = operationAt(op, now);
  op.status = snap.status;
  op.completedAt = snap.completedAt;
  op.nextCheckAt = snap.nextCheckAt;
  op.error = snap.error;
  if (op.settled || (snap.status !== "completed" && snap.status !== "failed")) return;
  op.settled = true;
  state.unsettledOperations.delete(op.uuid);
  const at = snap.completedAt ?? now;
  const domain = state.domains.get(op.domainUuid);
  if (snap.status === "failed") {
    refund(state, op, op.payload.chargeMinor ?? 0, `Refund: ${op.action} failed`, { operationUuid: op.uuid });
    return;
  }
  if (!domain) return;
  if (op.action === "renew" && op.payload.period) domain.expiresAt = addYears(domain.expiresAt, op.payload.period);
  if (op.action === "update_nameservers" && op.payload.nameservers) domain.nameservers = [...op.payload.nameservers];
  domain.updatedAt = Math.max(domain.updatedAt, at);
  op.result =
    op.action === "renew"
      ? { expires_at: iso(domain.expiresAt) }
      : op.action === "update_nameservers"
        ? { nameservers: [...domain.nameservers] }
        : { synced_at: iso(at) };
}

function orderAt(order: Order, now: number): { status: string; at: number } {
  if (order.forcedStatus !== null) return { status: order.forcedStatus, at: now };
  const t1 = order.createdAt + order.policy.pendingMs;
  const t2 = t1 + order.policy.processingMs;
  if (now < t1) return { status: "pending", at: order.createdAt };
  if (now < t2) return { status: "processing", at: t1 };
  return { status: order.policy.outcome === "failed" ? "failed" : "completed", at: t2 };
}

function settleOrder(state: State, order: Order, now: number): void {
  const { status, at } = orderAt(order, now);
  if (status !== order.status) {
    order.status = status;
    order.updatedAt = Math.max(order.updatedAt, at);
  }
  if (order.settled || (status !== "completed" && status !== "failed" && status !== "cancelled")) return;
  order.settled = true;
  state.unsettledOrders.delete(order.uuid);
  const taken = state.domains.byName(order.environment, order.domain) !== undefined;
  if (status !== "completed" || taken) {
    // A failed, cancelled or duplicate registration gives the money back; the charge stays visible.
    if (status === "completed") order.status = "failed";
    refund(state, order, order.amountMinor, `Refund: order ${order.externalId}`, { orderUuid: order.uuid });
    return;
  }
  // F5: the domain appears when its order completes.
  const domain: Domain = {
    seq: state.nextSeq(),
    resellerUuid: order.resellerUuid,
    environment: order.environment,
    uuid: uuidV4(state.config.random),
    name: order.domain,
    expiresAt: addYears(at, order.period),
    autoRenew: false,
    nameservers: order.nameservers.length ? [...order.nameservers] : ["ns1.example.kz", "ns2.example.kz"],
    createdAt: at,
    updatedAt: at,
  };
  state.domains.set(domain.uuid, domain);
  order.domainUuid = domain.uuid;
}

/**
 * Brings every unfinished operation and order up to the clock. Finished ones (and forced ones,
 * whose snapshot depends only on the time they were forced) never change again.
 */
export function settle(state: State): void {
  const now = state.now();
  // Sets iterate in insertion order, i.e. creation order — orders settle in the order they were placed.
  for (const uuid of [...state.unsettledOrders]) settleOrder(state, state.orders.get(uuid)!, now);
  for (const uuid of [...state.unsettledOperations]) settleOperation(state, state.operations.get(uuid)!, now);
}

/** control.setOperationStatus: an operation or an order, any status string. */
export function forceStatus(state: State, uuid: string, status: string): boolean {
  const now = state.now();
  const op = state.operations.get(uuid);
  if (op) {
    op.forcedStatus = status;
    op.forcedAt = now;
    settleOperation(state, op, now);
    return true;
  }
  const order = state.orders.get(uuid);
  if (order) {
    order.forcedStatus = status;
    settleOrder(state, order, now);
    return true;
  }
  return false;
}
