// operationId → handler. The routes themselves come from generated/operations (router.ts).
import type { OperationId } from "../../generated/operations";
import type { Handler } from "../handler";
import { checkDomains, getAuthCode, getDomain, listDomains, renewDomain, setNameservers, syncDomain } from "./domains";
import { getBalance, listLedger } from "./finance";
import { createOrder, createQuote, getOperation, getOrder, listOperations, listOrders } from "./orders";
import { addTicketMessage, createTicket, getTicket, listTickets } from "./tickets";
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  testWebhook,
  updateWebhook,
} from "./webhooks";

// A5: GET /context needs no scope; it reports the key as the server sees it.
const getContext: Handler = (ctx) => ({
  status: 200,
  body: {
    data: {
      environment: ctx.key.environment,
      reseller: { uuid: ctx.reseller.uuid, status: ctx.reseller.status },
      credential: {
        public_key_id: ctx.key.publicKeyId,
        scopes: [...ctx.key.scopes],
        rate_limit_per_minute: ctx.key.rateLimit,
        expires_at:
          ctx.key.expiresAt === null ? null : new Date(ctx.key.expiresAt).toISOString().replace(/\.\d{3}Z$/, "+00:00"),
      },
      language: ctx.lang,
    },
  },
});

export const handlers: Record<OperationId, Handler> = {
  "context.get": getContext,
  "domains.list": listDomains,
  "domains.get": getDomain,
  "domains.check": checkDomains,
  "domains.renew": renewDomain,
  "domains.sync": syncDomain,
  "domains.setNameservers": setNameservers,
  "domains.getAuthCode": getAuthCode,
  "quotes.create": createQuote,
  "orders.create": createOrder,
  "orders.list": listOrders,
  "orders.get": getOrder,
  "operations.list": listOperations,
  "operations.get": getOperation,
  "balance.get": getBalance,
  "ledger.list": listLedger,
  "webhooks.list": listWebhooks,
  "webhooks.create": createWebhook,
  "webhooks.get": getWebhook,
  "webhooks.update": updateWebhook,
  "webhooks.delete": deleteWebhook,
  "webhooks.test": testWebhook,
  "webhooks.rotateSecret": rotateWebhookSecret,
  "tickets.list": listTickets,
  "tickets.get": getTicket,
  "tickets.create": createTicket,
  "tickets.addMessage": addTicketMessage,
};
