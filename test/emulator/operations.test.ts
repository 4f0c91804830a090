// F1–F5: async domain operations, orders, and the money they move (balance/ledger).
import { describe, expect, it } from "vitest";
import { call, firstDomain, json, setup } from "./helpers";

describe("F: asynchronous operations", () => {
  it("F1: renew/sync/nameservers answer 202 {data: Operation}; GET /operations/{uuid} polls it", async () => {
    const { emu, live } = setup();
    const domain = await firstDomain(emu, live.token);
    const calls = [
      call(emu, live.token, `/domains/${domain}/renew`, { body: { period: 1 } }),
      call(emu, live.token, `/domains/${domain}/sync`, { method: "POST" }),
      call(emu, live.token, `/domains/${domain}/nameservers`, {
        method: "PUT",
        body: { nameservers: ["ns1.host.kz", "ns2.host.kz"] },
      }),
    ];
    const actions = [];
    for (const res of await Promise.all(calls)) {
      expect(res.status).toBe(202);
      const op = (await json(res)).data;
      expect(Object.keys(op).sort()).toEqual([
        "action",
        "completed_at",
        "created_at",
        "domain_uuid",
        "error",
        "next_check_at",
        "result",
        "status",
        "uuid",
      ]);
      expect(op).toMatchObject({
        domain_uuid: domain,
        status: "pending",
        result: [],
        error: null,
        completed_at: null,
        next_check_at: null,
      });
      const polled = await call(emu, live.token, `/operations/${op.uuid}`);
      expect((await json(polled)).data.uuid).toBe(op.uuid);
      actions.push(op.action);
    }
    expect(actions).toEqual(["renew", "sync", "update_nameservers"]);
    expect(
      emu.control
        .effects()
        .map((e) => e.kind)
        .sort(),
    ).toEqual(["domain.nameservers", "domain.renew", "domain.sync"]);
  });

  it("F3: pending → processing → completed lazily from the clock; completion applies the change", async () => {
    const { emu, live, clock } = setup();
    const domain = await firstDomain(emu, live.token);
    const before = (await json(await call(emu, live.token, `/domains/${domain}`))).data;
    const op = (await json(await call(emu, live.token, `/domains/${domain}/renew`, { body: { period: 2 } }))).data;
    const status = async () => (await json(await call(emu, live.token, `/operations/${op.uuid}`))).data;
    expect((await status()).status).toBe("pending");
    clock.advance(1_000);
    expect((await status()).status).toBe("processing");
    clock.advance(2_000);
    const done = await status();
    expect(done.status).toBe("completed");
    expect(done.completed_at).toBe("2026-10-05T09:00:03+00:00");
    const after = (await json(await call(emu, live.token, `/domains/${domain}`))).data;
    expect(Date.parse(after.expires_at) - Date.parse(before.expires_at)).toBeGreaterThan(
      2 * 365 * 86_400_000 - 86_400_000,
    );
    expect(done.result).toEqual({ expires_at: after.expires_at });
  });

  it("F3: failed outcome refunds the charge; nameservers only change on completion", async () => {
    const { emu, live, clock } = setup({ operationPolicy: { outcome: "failed", pendingMs: 10, processingMs: 10 } });
    const domain = await firstDomain(emu, live.token);
    const op = (await json(await call(emu, live.token, `/domains/${domain}/renew`, { body: { period: 1 } }))).data;
    const ns = (
      await json(
        await call(emu, live.token, `/domains/${domain}/nameservers`, {
          method: "PUT",
          body: { nameservers: ["a.host.kz", "b.host.kz"] },
        }),
      )
    ).data;
    clock.advance(20);
    const failed = (await json(await call(emu, live.token, `/operations/${op.uuid}`))).data;
    expect(failed).toMatchObject({ status: "failed", error: { code: "registry_rejected" } });
    expect((await json(await call(emu, live.token, `/operations/${ns.uuid}`))).data.status).toBe("failed");
    expect((await json(await call(emu, live.token, `/domains/${domain}`))).data.nameservers).toEqual([
      "ns1.example.kz",
      "ns2.example.kz",
    ]);
    const ledger = (await json(await call(emu, live.token, "/ledger"))).data;
    expect(ledger.map((e: { type: string; amount: { amount: string } }) => `${e.type}:${e.amount.amount}`)).toEqual([
      "deposit:1000000.00",
      "charge:-4500.00",
      "refund:4500.00",
    ]);
  });

  it("F3: uncertain carries next_check_at and resolves at the scheduled check (completed by default)", async () => {
    const { emu, live, clock } = setup({ operationPolicy: { outcome: "uncertain", uncertainRecheckMs: 300_000 } });
    const domain = await firstDomain(emu, live.token);
    const op = (await json(await call(emu, live.token, `/domains/${domain}/sync`, { method: "POST" }))).data;
    clock.advance(3_000);
    const uncertain = (await json(await call(emu, live.token, `/operations/${op.uuid}`))).data;
    expect(uncertain).toMatchObject({
      status: "uncertain",
      completed_at: null,
      next_check_at: "2026-10-05T09:05:03+00:00",
    });
    clock.advance(300_000);
    expect((await json(await call(emu, live.token, `/operations/${op.uuid}`))).data.status).toBe("completed");
  });

  it("F3: setOperationStatus forces any status, including unknown ones such as awaiting_registry", async () => {
    const { emu, live, clock } = setup();
    const domain = await firstDomain(emu, live.token);
    const op = (await json(await call(emu, live.token, `/domains/${domain}/sync`, { method: "POST" }))).data;
    emu.control.setOperationStatus(op.uuid, "awaiting_registry");
    clock.advance(3_600_000);
    expect((await json(await call(emu, live.token, `/operations/${op.uuid}`))).data.status).toBe("awaiting_registry");
    const filtered = await json(
      await call(emu, live.token, `/operations?status=awaiting_registry&domain_uuid=${domain}`),
    );
    expect(filtered.data.map((o: { uuid: string }) => o.uuid)).toEqual([op.uuid]);
    emu.control.setOperationStatus(op.uuid, "uncertain");
    const u = (await json(await call(emu, live.token, `/operations/${op.uuid}`))).data;
    expect(u.status).toBe("uncertain");
    expect(u.next_check_at).not.toBeNull();
    expect(() => emu.control.setOperationStatus("55555555-5555-4555-8555-555555555555", "completed")).toThrow();
  });

  it("F5: orders.create → 201 pending Order, completing lazily and creating the Domain; found by external_id", async () => {
    const { emu, live, clock } = setup();
    const res = await call(emu, live.token, "/orders", {
      body: {
        external_id: "crm-42",
        action: "register",
        domain: "fresh.kz",
        period: 1,
        nameservers: ["ns1.fresh.kz", "ns2.fresh.kz"],
      },
    });
    expect(res.status).toBe(201);
    const order = (await json(res)).data;
    expect(order).toMatchObject({
      external_id: "crm-42",
      status: "pending",
      domain_uuid: null,
      amount: { amount: "4500.00", currency: "KZT" },
    });
    clock.advance(3_000);
    const found = await json(await call(emu, live.token, "/orders?external_id=crm-42"));
    expect(found.data).toHaveLength(1);
    expect(found.data[0]).toMatchObject({ uuid: order.uuid, status: "completed" });
    const domain = (await json(await call(emu, live.token, `/domains/${found.data[0].domain_uuid}`))).data;
    expect(domain).toMatchObject({ name: "fresh.kz", status: "active", nameservers: ["ns1.fresh.kz", "ns2.fresh.kz"] });
    expect((await json(await call(emu, live.token, `/orders/${order.uuid}`))).data.status).toBe("completed");
    expect((await json(await call(emu, live.token, "/orders?external_id=unknown"))).data).toEqual([]);
    // the domain is now taken
    const check = (
      await json(
        await call(emu, live.token, "/domains/check", { body: { names: ["fresh.kz", "other.kz", "nozone.xyz"] } }),
      )
    ).data;
    expect(check).toEqual([
      { name: "fresh.kz", available: false, price: { amount: "4500.00", currency: "KZT" } },
      { name: "other.kz", available: true, price: { amount: "4500.00", currency: "KZT" } },
      { name: "nozone.xyz", available: false, price: null },
    ]);
  });

  it("F4/I4: a duplicate purchase with a new key is money spent twice in the ledger", async () => {
    const { emu, live, clock } = setup();
    const body = { external_id: "dup-1", action: "register", domain: "twice.kz", period: 1 };
    await call(emu, live.token, "/orders", { body, key: "a" });
    await call(emu, live.token, "/orders", { body, key: "b" }); // the mistake: a new key after a timeout
    clock.advance(3_000);
    const ledger = (await json(await call(emu, live.token, "/ledger"))).data;
    expect(ledger.filter((e: { type: string }) => e.type === "charge")).toHaveLength(2);
    const orders = (await json(await call(emu, live.token, "/orders?external_id=dup-1"))).data;
    expect(orders.map((o: { status: string }) => o.status).sort()).toEqual(["completed", "failed"]);
    const balance = (await json(await call(emu, live.token, "/balance"))).data;
    expect(balance.available.amount).toBe("995500.00"); // the duplicate was refunded on failure
  });

  it("F: test keys run the same effects without balance endpoints (B3)", async () => {
    const { emu, test } = setup();
    const domain = await firstDomain(emu, test.token);
    expect((await call(emu, test.token, `/domains/${domain}/renew`, { body: { period: 1 } })).status).toBe(202);
    expect(emu.control.effects()).toMatchObject([
      { kind: "domain.renew", environment: "test", api_key_id: test.public_key_id },
    ]);
    expect((await call(emu, test.token, "/balance")).status).toBe(403);
  });

  it("quotes.create prices action × period by zone; unsupported zone → 422", async () => {
    const { emu, test } = setup();
    const q = (
      await json(
        await call(emu, test.token, "/quotes", { body: { action: "renew", domain: "shop.com.kz", period: 3 } }),
      )
    ).data;
    expect(q).toMatchObject({
      action: "renew",
      domain: "shop.com.kz",
      period: 3,
      price: { amount: "10500.00", currency: "KZT" },
    });
    expect(q.valid_until).toBe("2026-10-05T09:15:00+00:00");
    const bad = await json(
      await call(emu, test.token, "/quotes", { body: { action: "register", domain: "a.xyz", period: 1 } }),
    );
    expect(Object.keys(bad.error.details)).toEqual(["domain"]);
  });
});
