// Type sample (checked by tsc in webhook-events.test.ts and by `npm run typecheck`): the client's webhook
// event types are the spec's enum — the same list the generated `webhookEvents` holds and the emulator
// enforces — with nothing added or missing, and a name outside it does not compile.
import type { components, OperationArgs } from "../../../src";
import type { webhookEvents } from "../../../generated/operations";

/** true only when each union is assignable to the other: no name added, none missing. */
type Equal<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

type FromSpec = components["schemas"]["WebhookEvent"];
type Generated = (typeof webhookEvents)[number];
type OnCreate = OperationArgs["webhooks.create"]["body"]["events"][number];
type OnUpdate = NonNullable<OperationArgs["webhooks.update"]["body"]["events"]>[number];

export const sameLists: [Equal<FromSpec, Generated>, Equal<OnCreate, Generated>, Equal<OnUpdate, Generated>] = [
  true,
  true,
  true,
];

// @ts-expect-error a name outside the spec's enum is not a webhook event
export const unknownEvent: OnCreate = "domain.deleted";
