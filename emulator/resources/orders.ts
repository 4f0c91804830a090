// Quotes, orders (F5: registration goes through an order, found again by external_id) and the
// operations list/get (F1).
import { ApiError, validationError } from "../errors";
import type { Handler } from "../handler";
import { paginate, readPage } from "../pagination";
import { ownerKeyOf } from "../indexes";
import type { Operation, Order } from "../state";
import { iso, money, uuidV4 } from "../util";
import { isDomainName, Validator } from "../validation";
import { presentOperation } from "./domains";
import { charge, priceFor } from "./finance";

function presentOrder(o: Order): Record<string, unknown> {
  return {
    uuid: o.uuid,
    external_id: o.externalId,
    action: o.action,
    domain: o.domain,
    period: o.period,
    status: o.status,
    amount: money(o.amountMinor),
    domain_uuid: o.domainUuid,
    created_at: iso(o.createdAt),
    updated_at: iso(o.updatedAt),
  };
}

/** Shared checks of a domain name + zone; returns the yearly price. */
function zonePrice(v: Validator, domain: string | undefined): number | undefined {
  if (domain === undefined) return undefined;
  if (!isDomainName(domain)) return void v.fail("domain", "v.domain");
  const price = priceFor(domain);
  if (price === null) return void v.fail("domain", "v.tld");
  return price;
}

export const createQuote: Handler = (ctx) => {
  const v = new Validator(ctx.body, ctx.tr);
  const action = v.oneOf("action", ["register", "renew", "transfer"] as const);
  const domain = v.string("domain", 1, 253)?.toLowerCase();
  const period = v.integer("period", 1, 10);
  const unit = zonePrice(v, domain);
  v.done();
  return {
    status: 200,
    body: {
      data: { action, domain, period, price: money(unit! * period!), valid_until: iso(ctx.now + 15 * 60_000) },
    },
  };
};

export const createOrder: Handler = (ctx) => {
  const { state } = ctx;
  const v = new Validator(ctx.body, ctx.tr);
  const externalId = v.string("external_id", 1, 64);
  v.oneOf("action", ["register"] as const);
  const domain = v.string("domain", 1, 253)?.toLowerCase();
  const period = v.integer("period", 1, 10);
  const nameservers = v.stringArray("nameservers", 2, 13, (n) => (isDomainName(n) ? null : "v.domain"), false);
  const unit = zonePrice(v, domain);
  v.done();
  const registered = state.domains.byName(ctx.key.environment, domain!) !== undefined;
  if (registered) throw validationError({ domain: [ctx.tr("v.unavailable", { field: domain! })] });
  const order: Order = {
    seq: state.nextSeq(),
    resellerUuid: ctx.key.resellerUuid,
    environment: ctx.key.environment,
    uuid: uuidV4(state.config.random),
    externalId: externalId!,
    action: "register",
    domain: domain!,
    period: period!,
    nameservers: nameservers ?? [],
    amountMinor: unit! * period!,
    createdAt: ctx.now,
    updatedAt: ctx.now,
    policy: { ...state.config.policy },
    forcedStatus: null,
    status: "pending",
    domainUuid: null,
    settled: false,
  };
  // Orders charge at creation: two orders are two charges, whatever happens later.
  charge(
    state,
    ctx.key,
    order.amountMinor,
    `Registration of ${order.domain} for ${order.period} year(s)`,
    { orderUuid: order.uuid },
    ctx.tr,
  );
  state.orders.set(order.uuid, order);
  state.unsettledOrders.add(order.uuid);
  ctx.effect("order.create", order.uuid);
  return { status: 201, body: { data: presentOrder(order) } };
};

export const listOrders: Handler = (ctx) => {
  const page = readPage(ctx.query, ctx.tr);
  const externalId = ctx.query.get("external_id");
  const items =
    externalId === null
      ? ctx.state.orders.owned(ctx.key)
      : ctx.state.ordersByExternalId.get(`${ownerKeyOf(ctx.key)}:${externalId}`);
  return { status: 200, body: paginate(items, page, ctx.op.pagination ?? "links", ctx.url, presentOrder) };
};

export const getOrder: Handler = (ctx) => {
  const order = ctx.state.orders.get(ctx.params.orderUuid.toLowerCase());
  if (!order || !ctx.state.owns(order, ctx.key)) throw new ApiError(404, "resource_not_found", ctx.tr("not_found"));
  return { status: 200, body: { data: presentOrder(order) } };
};

export const listOperations: Handler = (ctx) => {
  const page = readPage(ctx.query, ctx.tr);
  const domainUuid = ctx.query.get("domain_uuid");
  const status = ctx.query.get("status");
  const items =
    domainUuid === null
      ? ctx.state.operations.owned(ctx.key)
      : ctx.state.operationsByDomain.get(domainUuid.toLowerCase());
  const keep = (o: Operation) =>
    (domainUuid === null || ctx.state.owns(o, ctx.key)) && (status === null || o.status === status);
  return {
    status: 200,
    body: paginate(items, page, ctx.op.pagination ?? "links", ctx.url, presentOperation, keep),
  };
};

export const getOperation: Handler = (ctx) => {
  const op = ctx.state.operations.get(ctx.params.operationUuid.toLowerCase());
  if (!op || !ctx.state.owns(op, ctx.key)) throw new ApiError(404, "resource_not_found", ctx.tr("not_found"));
  return { status: 200, body: { data: presentOperation(op) } };
};
