// Support tickets: live only (B1 — the pipeline answers 403 to test keys before any of this runs).
import { ApiError } from "../errors";
import type { Handler, HandlerContext } from "../handler";
import { paginate, readPage } from "../pagination";
import type { Ticket, TicketMessage } from "../state";
import { iso, uuidV4 } from "../util";
import { Validator } from "../validation";

function present(t: Ticket): Record<string, unknown> {
  return {
    uuid: t.uuid,
    subject: t.subject,
    status: t.status,
    created_at: iso(t.createdAt),
    updated_at: iso(t.updatedAt),
  };
}

function presentMessage(m: TicketMessage): Record<string, unknown> {
  return { uuid: m.uuid, author: m.author, body: m.body, created_at: iso(m.createdAt) };
}

function owned(ctx: HandlerContext): Ticket {
  const t = ctx.state.tickets.get(ctx.params.ticketUuid.toLowerCase());
  if (!t || !ctx.state.owns(t, ctx.key)) throw new ApiError(404, "resource_not_found", ctx.tr("not_found"));
  return t;
}

export const listTickets: Handler = (ctx) => {
  const page = readPage(ctx.query, ctx.tr);
  const items = ctx.state.tickets.owned(ctx.key);
  return { status: 200, body: paginate(items, page, ctx.op.pagination ?? "links", ctx.url, present) };
};

export const getTicket: Handler = (ctx) => {
  const t = owned(ctx);
  return { status: 200, body: { data: { ...present(t), messages: t.messages.map(presentMessage) } } };
};

export const createTicket: Handler = (ctx) => {
  const v = new Validator(ctx.body, ctx.tr);
  const subject = v.string("subject", 1, 200);
  const message = v.string("message", 1, 10_000);
  v.done();
  const { state } = ctx;
  const t: Ticket = {
    seq: state.nextSeq(),
    resellerUuid: ctx.key.resellerUuid,
    environment: ctx.key.environment,
    uuid: uuidV4(state.config.random),
    subject: subject!,
    status: "open",
    messages: [{ uuid: uuidV4(state.config.random), author: "reseller", body: message!, createdAt: ctx.now }],
    createdAt: ctx.now,
    updatedAt: ctx.now,
  };
  state.tickets.set(t.uuid, t);
  ctx.effect("ticket.create", t.uuid);
  return { status: 201, body: { data: present(t) } };
};

export const addTicketMessage: Handler = (ctx) => {
  const t = owned(ctx);
  const v = new Validator(ctx.body, ctx.tr);
  const message = v.string("message", 1, 10_000);
  v.done();
  const m: TicketMessage = {
    uuid: uuidV4(ctx.state.config.random),
    author: "reseller",
    body: message!,
    createdAt: ctx.now,
  };
  t.messages.push(m);
  t.status = "open";
  t.updatedAt = ctx.now;
  ctx.effect("ticket.message", m.uuid);
  return { status: 201, body: { data: presentMessage(m) } };
};
