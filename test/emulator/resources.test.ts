// Resource shapes and body validation per notes/shapes.md.
import { describe, expect, it } from "vitest";
import { call, firstDomain, json, setup } from "./helpers";

describe("resources and validation (shapes.md)", () => {
  it("Domain shape and auth-code (domains.write, stable per domain)", async () => {
    const { emu, test } = setup();
    const domain = (await json(await call(emu, test.token, `/domains/${await firstDomain(emu, test.token)}`))).data;
    expect(Object.keys(domain).sort()).toEqual([
      "auto_renew",
      "created_at",
      "expires_at",
      "name",
      "nameservers",
      "status",
      "updated_at",
      "uuid",
    ]);
    expect(domain.status).toBe("active");
    const code1 = (await json(await call(emu, test.token, `/domains/${domain.uuid}/auth-code`))).data;
    const code2 = (await json(await call(emu, test.token, `/domains/${domain.uuid}/auth-code`))).data;
    expect(code1).toEqual({ domain_uuid: domain.uuid, auth_code: expect.any(String) });
    expect(code2.auth_code).toBe(code1.auth_code);
    const reader = emu.control.createKey({
      environment: "test",
      scopes: ["domains.read"],
      reseller_uuid: test.reseller_uuid,
    });
    expect((await call(emu, reader.token, `/domains/${domain.uuid}/auth-code`)).status).toBe(403);
  });

  it("a domain past expires_at reports status expired", async () => {
    const { emu, test, clock } = setup();
    const d = emu.control.createDomain({
      token: test.token,
      name: "old.kz",
      expires_at: new Date(clock.now() + 1000).toISOString(),
    });
    clock.advance(1000);
    expect((await json(await call(emu, test.token, `/domains/${d.uuid}`))).data.status).toBe("expired");
  });

  it("renew/nameservers/check validation → 422 field maps", async () => {
    const { emu, test } = setup();
    const domain = await firstDomain(emu, test.token);
    const cases: [string, string, unknown, string[]][] = [
      ["POST", `/domains/${domain}/renew`, { period: 0 }, ["period"]],
      ["POST", `/domains/${domain}/renew`, { period: "1" }, ["period"]],
      ["POST", `/domains/${domain}/renew`, [], ["period"]],
      ["PUT", `/domains/${domain}/nameservers`, { nameservers: ["only.one.kz"] }, ["nameservers"]],
      ["PUT", `/domains/${domain}/nameservers`, { nameservers: ["ok.kz", "bad host"] }, ["nameservers.1"]],
      ["POST", "/domains/check", { names: Array.from({ length: 51 }, (_, i) => `n${i}.kz`) }, ["names"]],
      ["POST", "/domains/check", { names: "a.kz" }, ["names"]],
      [
        "POST",
        "/orders",
        { external_id: "x".repeat(65), action: "transfer", domain: "a.kz", period: 11 },
        ["external_id", "action", "period"],
      ],
      ["POST", "/webhooks", { url: "ftp://x", events: ["nope"] }, ["url", "events.0"]],
      ["POST", "/webhooks", {}, ["url", "events"]],
    ];
    for (const [method, path, body, fields] of cases) {
      const res = await call(emu, test.token, path, { method, body });
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(422);
      const err = (await json(res)).error;
      expect(err.code).toBe("validation_failed");
      expect(Object.keys(err.details)).toEqual(fields);
      for (const messages of Object.values(err.details)) expect(messages).toEqual([expect.any(String)]);
    }
    expect(emu.control.effects()).toEqual([]);
  });

  it("orders: a domain already registered → 422 {domain}", async () => {
    const { emu, live } = setup();
    const res = await call(emu, live.token, "/orders", {
      body: { external_id: "e", action: "register", domain: "example.kz", period: 1 },
    });
    expect(res.status).toBe(422);
    expect(Object.keys((await json(res)).error.details)).toEqual(["domain"]);
  });

  it("webhooks: create 201 (+secret), get, update 200, test 202 queued, delete 204 no body, then 404", async () => {
    const { emu, test } = setup();
    const created = await call(emu, test.token, "/webhooks", {
      body: { url: "https://hooks.example/a", events: ["operation.completed", "order.completed"] },
    });
    expect(created.status).toBe(201);
    const hook = (await json(created)).data;
    expect(Object.keys(hook).sort()).toEqual([
      "created_at",
      "events",
      "is_active",
      "signing_secret",
      "updated_at",
      "url",
      "uuid",
    ]);
    const got = (await json(await call(emu, test.token, `/webhooks/${hook.uuid}`))).data;
    expect(got).not.toHaveProperty("signing_secret");
    const updated = await call(emu, test.token, `/webhooks/${hook.uuid}`, {
      method: "PATCH",
      body: { is_active: false },
    });
    expect(updated.status).toBe(200);
    expect((await json(updated)).data).toMatchObject({ is_active: false, url: "https://hooks.example/a" });
    const tested = await call(emu, test.token, `/webhooks/${hook.uuid}/test`, { method: "POST" });
    expect(tested.status).toBe(202);
    expect((await json(tested)).data).toMatchObject({
      event: "webhook.test",
      status: "queued",
      delivery_uuid: expect.any(String),
    });
    const deleted = await call(emu, test.token, `/webhooks/${hook.uuid}`, { method: "DELETE", key: "del" });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe("");
    expect(deleted.headers.get("content-type")).toBeNull();
    const replay = await call(emu, test.token, `/webhooks/${hook.uuid}`, { method: "DELETE", key: "del" });
    expect([replay.status, replay.headers.get("idempotency-replayed")]).toEqual([204, "true"]);
    expect((await call(emu, test.token, `/webhooks/${hook.uuid}`)).status).toBe(404);
    expect(emu.control.effects().map((e) => e.kind)).toEqual([
      "webhook.create",
      "webhook.update",
      "webhook.test",
      "webhook.delete",
    ]);
  });

  it("live balance: renewals charge price × period at acceptance", async () => {
    const { emu, live } = setup();
    const domain = await firstDomain(emu, live.token); // example.kz, 4500.00 / year
    await call(emu, live.token, `/domains/${domain}/renew`, { body: { period: 3 } });
    const balance = (await json(await call(emu, live.token, "/balance"))).data;
    expect(balance).toEqual({
      available: { amount: "986500.00", currency: "KZT" },
      reserved: { amount: "0.00", currency: "KZT" },
      updated_at: "2026-10-05T09:00:00+00:00",
    });
    const ledger = (await json(await call(emu, live.token, "/ledger"))).data;
    expect(ledger.at(-1)).toMatchObject({
      type: "charge",
      amount: { amount: "-13500.00" },
      balance_after: { amount: "986500.00" },
      order_uuid: null,
    });
  });
});
