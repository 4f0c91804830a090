// Webhooks (meta-only pagination, H1). create and rotate-secret return signing_secret, and their
// replays show it again (D9).
import { webhookEvents } from "../../generated/operations";
import { ApiError } from "../errors";
import type { Handler, HandlerContext } from "../handler";
import { paginate, readPage } from "../pagination";
import type { Webhook } from "../state";
import { iso, signingSecret, uuidV4 } from "../util";
import { Validator } from "../validation";

// The accepted events are the spec's enum (components.schemas.WebhookEvent), never a copy.
const WEBHOOK_EVENTS = webhookEvents;

function present(w: Webhook): Record<string, unknown> {
  return {
    uuid: w.uuid,
    url: w.url,
    events: [...w.events],
    is_active: w.isActive,
    created_at: iso(w.createdAt),
    updated_at: iso(w.updatedAt),
  };
}

function owned(ctx: HandlerContext): Webhook {
  const w = ctx.state.webhooks.get(ctx.params.webhookUuid.toLowerCase());
  if (!w || w.deleted || !ctx.state.owns(w, ctx.key))
    throw new ApiError(404, "resource_not_found", ctx.tr("not_found"));
  return w;
}

const eventRule = (e: string) => ((WEBHOOK_EVENTS as readonly string[]).includes(e) ? null : "v.in");

export const listWebhooks: Handler = (ctx) => {
  const page = readPage(ctx.query, ctx.tr);
  const items = ctx.state.webhooks.owned(ctx.key);
  const body = paginate(items, page, ctx.op.pagination ?? "meta-only", ctx.url, present, (w) => !w.deleted);
  return { status: 200, body };
};

export const getWebhook: Handler = (ctx) => ({ status: 200, body: { data: present(owned(ctx)) } });

export const createWebhook: Handler = (ctx) => {
  const v = new Validator(ctx.body, ctx.tr);
  const url = v.url("url");
  const events = v.stringArray("events", 1, WEBHOOK_EVENTS.length, eventRule);
  v.done();
  const { state } = ctx;
  const w: Webhook = {
    seq: state.nextSeq(),
    resellerUuid: ctx.key.resellerUuid,
    environment: ctx.key.environment,
    uuid: uuidV4(state.config.random),
    url: url!,
    events: [...new Set(events)],
    isActive: true,
    signingSecret: signingSecret(state.config.random),
    createdAt: ctx.now,
    updatedAt: ctx.now,
    deleted: false,
  };
  state.webhooks.set(w.uuid, w);
  ctx.effect("webhook.create", w.uuid);
  return { status: 201, body: { data: { ...present(w), signing_secret: w.signingSecret } } };
};

export const updateWebhook: Handler = (ctx) => {
  const w = owned(ctx);
  const v = new Validator(ctx.body, ctx.tr);
  const url = v.has("url") ? v.url("url") : undefined;
  const events = v.has("events") ? v.stringArray("events", 1, WEBHOOK_EVENTS.length, eventRule) : undefined;
  const isActive = v.boolean("is_active");
  v.done();
  if (url !== undefined) w.url = url;
  if (events !== undefined) w.events = [...new Set(events)];
  if (isActive !== undefined) w.isActive = isActive;
  w.updatedAt = ctx.now;
  ctx.effect("webhook.update", w.uuid);
  return { status: 200, body: { data: present(w) } };
};

export const deleteWebhook: Handler = (ctx) => {
  const w = owned(ctx);
  w.deleted = true;
  w.updatedAt = ctx.now;
  ctx.effect("webhook.delete", w.uuid);
  return { status: 204 };
};

export const testWebhook: Handler = (ctx) => {
  const w = owned(ctx);
  const delivery = uuidV4(ctx.state.config.random);
  ctx.effect("webhook.test", w.uuid);
  return { status: 202, body: { data: { delivery_uuid: delivery, event: "webhook.test", status: "queued" } } };
};

export const rotateWebhookSecret: Handler = (ctx) => {
  const w = owned(ctx);
  w.signingSecret = signingSecret(ctx.state.config.random);
  w.updatedAt = ctx.now;
  ctx.effect("webhook.rotate_secret", w.uuid);
  return { status: 200, body: { data: { uuid: w.uuid, signing_secret: w.signingSecret, rotated_at: iso(ctx.now) } } };
};
