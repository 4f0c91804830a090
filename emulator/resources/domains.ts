// Domains: list/get/check/auth-code, and the three async domain operations (F1: 202 + Operation).
import { ApiError, validationError } from "../errors";
import type { Handler, HandlerContext } from "../handler";
import { paginate, readPage } from "../pagination";
import type { Domain, Operation, OperationAction } from "../state";
import { authCode, iso, money, uuidV4 } from "../util";
import { isDomainName, Validator } from "../validation";
import { charge, priceFor } from "./finance";

export function presentDomain(d: Domain, now: number): Record<string, unknown> {
  return {
    uuid: d.uuid,
    name: d.name,
    status: d.expiresAt <= now ? "expired" : "active",
    expires_at: iso(d.expiresAt),
    auto_renew: d.autoRenew,
    nameservers: [...d.nameservers],
    created_at: iso(d.createdAt),
    updated_at: iso(d.updatedAt),
  };
}

export function presentOperation(op: Operation): Record<string, unknown> {
  return {
    uuid: op.uuid,
    domain_uuid: op.domainUuid,
    action: op.action,
    status: op.status,
    result: op.result,
    error: op.error,
    created_at: iso(op.createdAt),
    completed_at: op.completedAt === null ? null : iso(op.completedAt),
    next_check_at: op.nextCheckAt === null ? null : iso(op.nextCheckAt),
  };
}

/** A8: another reseller's, another environment's or a missing domain all answer the same 404. */
function ownedDomain(ctx: HandlerContext): Domain {
  const domain = ctx.state.domains.get(ctx.params.domainUuid?.toLowerCase() ?? "");
  if (!domain || !ctx.state.owns(domain, ctx.key)) throw new ApiError(404, "resource_not_found", ctx.tr("not_found"));
  return domain;
}

/** `?name=` (repeatable, 1..100): the caller's domains with those names, via the name index. */
function namedDomains(ctx: HandlerContext, names: string[]): Domain[] {
  if (names.length > 100 || names.some((n) => n.length < 1 || n.length > 253))
    throw validationError({ name: [ctx.tr("v.items", { field: "name", min: 1, max: 100 })] });
  const found = new Set<Domain>();
  for (const raw of names) {
    const d = ctx.state.domains.byName(ctx.key.environment, raw.trim().toLowerCase());
    if (d && ctx.state.owns(d, ctx.key)) found.add(d);
  }
  return [...found].sort((a, b) => a.seq - b.seq);
}

export const listDomains: Handler = (ctx) => {
  const page = readPage(ctx.query, ctx.tr);
  const names = ctx.query.getAll("name");
  const items = names.length > 0 ? namedDomains(ctx, names) : ctx.state.domains.owned(ctx.key);
  return {
    status: 200,
    body: paginate(items, page, ctx.op.pagination ?? "links", ctx.url, (d) => presentDomain(d, ctx.now)),
  };
};

export const getDomain: Handler = (ctx) => ({ status: 200, body: { data: presentDomain(ownedDomain(ctx), ctx.now) } });

export const checkDomains: Handler = (ctx) => {
  const v = new Validator(ctx.body, ctx.tr);
  const names = v.stringArray("names", 1, 50, (n) => (isDomainName(n) ? null : "v.domain"));
  v.done();
  const data = names!.map((raw) => {
    const name = raw.toLowerCase();
    const price = priceFor(name);
    const taken = ctx.state.domains.byName(ctx.key.environment, name) !== undefined;
    return { name, available: price !== null && !taken, price: price === null ? null : money(price) };
  });
  return { status: 200, body: { data } };
};

export const getAuthCode: Handler = (ctx) => {
  const domain = ownedDomain(ctx);
  domain.authCode ??= authCode(ctx.state.config.random);
  return { status: 200, body: { data: { domain_uuid: domain.uuid, auth_code: domain.authCode } } };
};

function startOperation(
  ctx: HandlerContext,
  domain: Domain,
  action: OperationAction,
  payload: Operation["payload"],
  effectKind: string,
): { status: number; body: unknown } {
  const { state } = ctx;
  const op: Operation = {
    seq: state.nextSeq(),
    resellerUuid: domain.resellerUuid,
    environment: domain.environment,
    uuid: uuidV4(state.config.random),
    domainUuid: domain.uuid,
    action,
    createdAt: ctx.now,
    policy: { ...state.config.policy },
    forcedStatus: null,
    forcedAt: null,
    settled: false,
    payload,
    status: "pending",
    completedAt: null,
    nextCheckAt: null,
    error: null,
    result: [],
  };
  if (payload.chargeMinor) {
    charge(
      state,
      ctx.key,
      payload.chargeMinor,
      `Renewal of ${domain.name} for ${payload.period} year(s)`,
      { operationUuid: op.uuid },
      ctx.tr,
    );
  }
  state.operations.set(op.uuid, op);
  state.unsettledOperations.add(op.uuid);
  ctx.effect(effectKind, op.uuid);
  ctx.boundOperationUuid = op.uuid;
  return { status: 202, body: { data: presentOperation(op) } };
}

export const renewDomain: Handler = (ctx) => {
  const domain = ownedDomain(ctx);
  const v = new Validator(ctx.body, ctx.tr);
  const period = v.integer("period", 1, 10);
  v.done();
  const unit = priceFor(domain.name) ?? 450_000;
  return startOperation(ctx, domain, "renew", { period, chargeMinor: unit * period! }, "domain.renew");
};

export const syncDomain: Handler = (ctx) => startOperation(ctx, ownedDomain(ctx), "sync", {}, "domain.sync");

export const setNameservers: Handler = (ctx) => {
  const domain = ownedDomain(ctx);
  const v = new Validator(ctx.body, ctx.tr);
  const nameservers = v.stringArray("nameservers", 2, 13, (n) => (isDomainName(n) ? null : "v.domain"));
  v.done();
  const list = nameservers!.map((n) => n.toLowerCase());
  return startOperation(ctx, domain, "update_nameservers", { nameservers: list }, "domain.nameservers");
};
