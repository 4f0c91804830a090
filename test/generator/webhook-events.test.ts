// One source for webhook events: the spec's `WebhookEvent` enum. The generated `webhookEvents` is that
// enum (x-enum-const), the emulator accepts exactly it (and 422s another name), and the client's body
// types are it (tsc over test/generator/samples/webhook-events.ts).
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { webhookEvents } from "../../generated/operations";
import { call, json, setup } from "../emulator/helpers";
import { tscSample } from "../support/tsc-sample";

const root = resolve(import.meta.dirname, "../..");
const spec = parse(readFileSync(join(root, "spec/openapi.yaml"), "utf8")) as {
  components: { schemas: Record<string, { enum?: string[]; maxItems?: number; properties?: Record<string, never> }> };
};

describe("webhook events: the spec's enum everywhere", () => {
  it("the generated webhookEvents is the spec's WebhookEvent enum, in order", () => {
    expect([...webhookEvents]).toEqual(spec.components.schemas.WebhookEvent.enum);
    expect(webhookEvents.length).toBeGreaterThan(0);
  });

  it("E1: the emulator accepts every spec event and answers 422 details.events for any other name", async () => {
    const { emu, test } = setup();
    const created = await call(emu, test.token, "/webhooks", {
      body: { url: "https://hooks.example/all", events: [...webhookEvents] },
    });
    expect(created.status).toBe(201);
    expect((await json(created)).data.events).toEqual([...webhookEvents]);
    for (const name of ["domain.deleted", "DOMAIN.RENEWED", ""]) {
      const res = await call(emu, test.token, "/webhooks", {
        body: { url: "https://hooks.example/bad", events: [name] },
      });
      expect(res.status, name).toBe(422);
      expect(
        Object.keys((await json(res)).error.details).some((k) => k.startsWith("events")),
        name,
      ).toBe(true);
    }
  });

  it("the client's create/update event types equal the generated list (tsc)", async () => {
    const result = await tscSample("test/generator/samples/webhook-events.ts");
    expect(result.out).toBe("");
    expect(result.code).toBe(0);
  }, 180_000);
});
