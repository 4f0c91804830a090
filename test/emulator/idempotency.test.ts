// D1–D9: Idempotency-Key handling, fingerprints, replays, TTL and the durable operation binding.
import { describe, expect, it } from "vitest";
import { BASE, call, firstDomain, json, OTHER_UUID, setup } from "./helpers";

describe("D: idempotency", () => {
  it("D1: every POST/PUT/PATCH/DELETE without Idempotency-Key → 422 validation_failed, details []", async () => {
    const { emu, live } = setup();
    const domain = await firstDomain(emu, live.token);
    const writes: [string, string, unknown?][] = [
      ["POST", "/domains/check", { names: ["a.kz"] }],
      ["POST", "/quotes", { action: "register", domain: "a.kz", period: 1 }],
      ["POST", `/domains/${domain}/sync`],
      ["PUT", `/domains/${domain}/nameservers`, { nameservers: ["a.kz", "b.kz"] }],
      ["PATCH", `/webhooks/${OTHER_UUID}`, { is_active: false }],
      ["DELETE", `/webhooks/${OTHER_UUID}`],
      ["POST", `/webhooks/${OTHER_UUID}/test`],
      ["POST", `/webhooks/${OTHER_UUID}/rotate-secret`],
    ];
    for (const [method, path, body] of writes) {
      const res = await call(emu, live.token, path, { method, body, key: null });
      expect(res.status, `${method} ${path}`).toBe(422);
      const err = (await json(res)).error;
      expect(err.code).toBe("validation_failed");
      expect(err.details).toEqual([]);
    }
    expect(emu.control.effects()).toEqual([]);
    // GET does not take it
    expect((await call(emu, live.token, "/domains")).status).toBe(200);
  });

  it("D2: the value is trimmed; blank or longer than 160 characters → 422", async () => {
    const { emu, test } = setup();
    const check = (key: string) => call(emu, test.token, "/domains/check", { body: { names: ["a.kz"] }, key });
    expect((await check("   ")).status).toBe(422);
    expect((await check("x".repeat(161))).status).toBe(422);
    expect((await check(" " + "y".repeat(160) + " ")).status).toBe(200);
    const a = await check("  trimmed  ");
    const b = await check("trimmed");
    expect(a.status).toBe(200);
    expect(b.headers.get("idempotency-replayed")).toBe("true");
  });

  it("D4: the fingerprint uses exact body bytes — reordered fields, whitespace, 1.0 or {} vs empty are different requests → 409", async () => {
    const { emu, test } = setup();
    const domain = await firstDomain(emu, test.token);
    const path = `/domains/${domain}/renew`;
    expect((await call(emu, test.token, path, { raw: '{"period":1}', key: "k" })).status).toBe(202);
    for (const raw of ['{"period": 1}', '{"period":1.0}', '{ "period":1}']) {
      const res = await call(emu, test.token, path, { raw, key: "k" });
      expect(res.status, raw).toBe(409);
      expect((await json(res)).error.code).toBe("conflict");
    }
    const sync = `/domains/${domain}/sync`;
    expect((await call(emu, test.token, sync, { method: "POST", key: "s" })).status).toBe(202);
    expect((await call(emu, test.token, sync, { raw: "{}", key: "s" })).status).toBe(409);
    // a different path with the same key and bytes is a different request too
    expect((await call(emu, test.token, "/orders", { raw: '{"period":1}', key: "k" })).status).toBe(409);
    expect(emu.control.effects().filter((e) => e.kind === "domain.renew")).toHaveLength(1);
  });

  it("D4: language headers and X-Request-ID are not part of the fingerprint; percent-encoding case is normalised", async () => {
    const { emu, test } = setup();
    const first = await call(emu, test.token, "/domains/check", {
      body: { names: ["a.kz"] },
      key: "lang",
      headers: { "x-language": "ru", "x-request-id": "one" },
    });
    const again = await call(emu, test.token, "/domains/check", {
      body: { names: ["a.kz"] },
      key: "lang",
      headers: { "x-language": "kk", "x-request-id": "two" },
    });
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    expect(await again.text()).toBe(await first.text());
    const q1 = await emu.fetch(`${BASE}/domains/check?x=%c3%a9`, {
      method: "POST",
      headers: { authorization: `Bearer ${test.token}`, "idempotency-key": "pct" },
      body: '{"names":["a.kz"]}',
    });
    const q2 = await emu.fetch(`${BASE}/domains/check?x=%C3%A9`, {
      method: "POST",
      headers: { authorization: `Bearer ${test.token}`, "idempotency-key": "pct" },
      body: '{"names":["a.kz"]}',
    });
    expect(q1.status).toBe(200);
    expect(q2.headers.get("idempotency-replayed")).toBe("true");
  });

  it("D5: same key + same fingerprint → same status and JSON bytes, Idempotency-Replayed: true, no second execution", async () => {
    const { emu, live } = setup();
    const body = { external_id: "ord-1", action: "register", domain: "new-shop.kz", period: 2 };
    const first = await call(emu, live.token, "/orders", { body, key: "order-1" });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotency-replayed")).toBeNull(); // D9: absent, not "false"
    const second = await call(emu, live.token, "/orders", { body, key: "order-1" });
    expect(second.status).toBe(201);
    expect(second.headers.get("idempotency-replayed")).toBe("true");
    expect(await second.text()).toBe(await first.text());
    expect(emu.control.effects().filter((e) => e.kind === "order.create")).toHaveLength(1);
    const ledger = (await json(await call(emu, live.token, "/ledger"))).data;
    expect(ledger.filter((e: { type: string }) => e.type === "charge")).toHaveLength(1);
  });

  it("D5: 4xx responses after the key check are stored and replayed (keeping the old request_id)", async () => {
    const { emu, test } = setup();
    const first = await call(emu, test.token, `/domains/${OTHER_UUID}/renew`, { body: { period: 1 }, key: "nf" });
    expect(first.status).toBe(404);
    const firstBody = await first.text();
    const replay = await call(emu, test.token, `/domains/${OTHER_UUID}/renew`, { body: { period: 1 }, key: "nf" });
    expect(replay.status).toBe(404);
    expect(replay.headers.get("idempotency-replayed")).toBe("true");
    expect(await replay.text()).toBe(firstBody);
    // D9: a fresh X-Request-ID on the replay, the stored body keeps the first one
    expect(replay.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    expect(JSON.parse(firstBody).error.request_id).toBe(first.headers.get("x-request-id"));
  });

  it("D5: a 5xx is not stored — the key is released and a retry runs again", async () => {
    const { emu, test } = setup();
    const a = await call(emu, test.token, "/webhooks/not-a-uuid/test", { method: "POST", key: "w" });
    expect(a.status).toBe(500);
    const b = await call(emu, test.token, "/webhooks/not-a-uuid/test", { method: "POST", key: "w" });
    expect(b.status).toBe(500);
    expect(b.headers.get("idempotency-replayed")).toBeNull();
  });

  it("D5: 50 simultaneous requests with one key execute the side effect exactly once", async () => {
    const { emu, live } = setup();
    const domain = await firstDomain(emu, live.token);
    const all = await Promise.all(
      Array.from({ length: 50 }, () =>
        call(emu, live.token, `/domains/${domain}/renew`, { body: { period: 1 }, key: "burst" }),
      ),
    );
    const statuses = all.map((r) => r.status);
    expect(statuses.filter((s) => s === 202).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 202 || s === 409)).toBe(true);
    expect(all.filter((r) => r.status === 202 && r.headers.get("idempotency-replayed") === null)).toHaveLength(1);
    expect(emu.control.effects().filter((e) => e.kind === "domain.renew")).toHaveLength(1);
    const ledger = (await json(await call(emu, live.token, "/ledger"))).data;
    expect(ledger.filter((e: { type: string }) => e.type === "charge")).toHaveLength(1);
  });

  it("D5/D6: same key while the first attempt is still processing → 409 conflict, forever (no short unlock)", async () => {
    const { emu, test, clock } = setup();
    emu.control.addFault({ method: "POST", path: "/domains/check", kind: "stuck_processing" });
    const ctrl = new AbortController();
    const stuck = call(emu, test.token, "/domains/check", {
      body: { names: ["a.kz"] },
      key: "stuck",
      signal: ctrl.signal,
    });
    await new Promise((r) => setImmediate(r));
    ctrl.abort();
    await expect(stuck).rejects.toThrow();
    for (const wait of [0, 60_000, 3_600_000]) {
      clock.advance(wait);
      const res = await call(emu, test.token, "/domains/check", { body: { names: ["a.kz"] }, key: "stuck" });
      expect(res.status).toBe(409);
      expect((await json(res)).error.code).toBe("conflict");
    }
  });

  it("D6: replay TTL runs from the first reservation and is not extended by repeats; an expired record is gone", async () => {
    const { emu, test, clock } = setup({ replayTtlMs: 10_000 });
    const path = "/quotes";
    const body = { action: "register", domain: "ttl.kz", period: 1 };
    await call(emu, test.token, path, { body, key: "q" });
    clock.advance(9_000);
    expect((await call(emu, test.token, path, { body, key: "q" })).headers.get("idempotency-replayed")).toBe("true");
    clock.advance(1_000); // 10 s after the first reservation, despite the repeat at 9 s
    const after = await call(emu, test.token, path, { body, key: "q" });
    expect(after.status).toBe(200);
    expect(after.headers.get("idempotency-replayed")).toBeNull();
    // and the record is new: a different body with that key is now a conflict against the new one
    expect((await call(emu, test.token, path, { body: { ...body, period: 2 }, key: "q" })).status).toBe(409);
  });

  it("D7: after the TTL an async domain operation's key still returns the same operation, never a new one", async () => {
    const { emu, live, clock } = setup({ replayTtlMs: 1_000 });
    const domain = await firstDomain(emu, live.token);
    const first = await json(
      await call(emu, live.token, `/domains/${domain}/renew`, { body: { period: 1 }, key: "renew-1" }),
    );
    clock.advance(86_400_000 * 2);
    const later = await call(emu, live.token, `/domains/${domain}/renew`, { body: { period: 1 }, key: "renew-1" });
    expect(later.status).toBe(202);
    const op = (await json(later)).data;
    expect(op.uuid).toBe(first.data.uuid);
    expect(op.status).toBe("completed"); // the operation's current state
    expect(emu.control.effects().filter((e) => e.kind === "domain.renew")).toHaveLength(1);
    expect(
      (await call(emu, live.token, `/domains/${domain}/renew`, { body: { period: 2 }, key: "renew-1" })).status,
    ).toBe(409);
    // other methods have no such binding: a quote key is free again after the TTL
    await call(emu, live.token, "/quotes", {
      body: { action: "renew", domain: "example.kz", period: 1 },
      key: "quote-1",
    });
    clock.advance(2_000);
    const q = await call(emu, live.token, "/quotes", {
      body: { action: "renew", domain: "example.kz", period: 1 },
      key: "quote-1",
    });
    expect(q.headers.get("idempotency-replayed")).toBeNull();
  });

  it("D8: bearer validity is checked before a replay, the scope is not (a removed scope still replays)", async () => {
    const { emu } = setup();
    const k = emu.control.createKey({ environment: "test" });
    const body = { url: "https://hooks.example/kz", events: ["operation.completed"] };
    const created = await call(emu, k.token, "/webhooks", { body, key: "wh" });
    expect(created.status).toBe(201);
    emu.control.updateKey(k.public_key_id, { scopes: ["domains.read"] });
    const replay = await call(emu, k.token, "/webhooks", { body, key: "wh" });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotency-replayed")).toBe("true");
    expect((await call(emu, k.token, "/webhooks", { body, key: "wh-new" })).status).toBe(403);
    emu.control.revokeKey(k.public_key_id);
    expect((await call(emu, k.token, "/webhooks", { body, key: "wh" })).status).toBe(401);
  });

  it("D9: replays of webhook create and rotate-secret show the secret again", async () => {
    const { emu, test } = setup();
    const body = { url: "https://hooks.example/kz", events: ["operation.completed"] };
    const created = await json(await call(emu, test.token, "/webhooks", { body, key: "c" }));
    expect(created.data.signing_secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const replay = await json(await call(emu, test.token, "/webhooks", { body, key: "c" }));
    expect(replay.data.signing_secret).toBe(created.data.signing_secret);
    const rotated = await json(
      await call(emu, test.token, `/webhooks/${created.data.uuid}/rotate-secret`, { method: "POST", key: "r" }),
    );
    expect(rotated.data.signing_secret).not.toBe(created.data.signing_secret);
    const again = await json(
      await call(emu, test.token, `/webhooks/${created.data.uuid}/rotate-secret`, { method: "POST", key: "r" }),
    );
    expect(again.data.signing_secret).toBe(rotated.data.signing_secret);
    expect(emu.control.effects().filter((e) => e.kind === "webhook.rotate_secret")).toHaveLength(1);
  });

  it("D: records are scoped per API-key record — another key may use the same Idempotency-Key", async () => {
    const { emu, test } = setup();
    const other = emu.control.createKey({ environment: "test", reseller_uuid: test.reseller_uuid });
    const body = { names: ["a.kz"] };
    await call(emu, test.token, "/domains/check", { body, key: "shared" });
    const res = await call(emu, other.token, "/domains/check", { body, key: "shared" });
    expect(res.headers.get("idempotency-replayed")).toBeNull();
    // C7: rotation keeps the record (same key record)
    const { token } = emu.control.rotateKey(test.public_key_id);
    expect(
      (await call(emu, token, "/domains/check", { body, key: "shared" })).headers.get("idempotency-replayed"),
    ).toBe("true");
  });
});
