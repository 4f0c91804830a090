// A2–A9: credentials, scopes, access checks, scoping and malformed UUIDs.
import { describe, expect, it } from "vitest";
import { call, firstDomain, json, OTHER_UUID, setup } from "./helpers";

describe("A: transport, credentials, context", () => {
  it("A2: a request with a valid Bearer token is answered", async () => {
    const { emu, test } = setup();
    const res = await call(emu, test.token, "/context");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
  });

  it("A2/A3: missing, malformed, unknown or wrong-secret tokens → 401 unauthenticated, no hit, no X-RateLimit-*", async () => {
    const { emu, test } = setup();
    const [, , id] = /^rsl_(test)_([A-Za-z0-9]{24})\./.exec(test.token)!;
    const tokens: (string | null)[] = [
      null,
      "garbage",
      `rsl_test_${id}.short`,
      `rsl_live_${id}.${"a".repeat(64)}`, // A3: the environment is part of the token
      `rsl_test_${"A".repeat(24)}.${"a".repeat(64)}`,
      `rsl_test_${id}.${"b".repeat(64)}`,
    ];
    for (const token of tokens) {
      const res = await call(emu, token, "/context");
      expect(res.status).toBe(401);
      expect(res.headers.get("x-ratelimit-limit")).toBeNull();
      expect(res.headers.get("x-ratelimit-remaining")).toBeNull();
      const body = await json(res);
      expect(body.error.code).toBe("unauthenticated");
      expect(body.error.details).toEqual([]);
      expect(JSON.stringify(body)).not.toContain(test.token.split(".")[1]); // A4: never echo a secret
    }
    const basic = await emu.fetch(`http://e.test/api/reseller/v1/context`, {
      headers: { authorization: `Basic ${test.token}` },
    });
    expect(basic.status).toBe(401);
    expect(emu.control.counters()[test.public_key_id].count).toBe(0); // C6
  });

  it("A3: tokens created by the control API follow rsl_{env}_{24 alnum}.{64 base64url}", () => {
    const { emu } = setup();
    for (const environment of ["test", "live"] as const) {
      const k = emu.control.createKey({ environment });
      expect(k.token).toMatch(new RegExp(`^rsl_${environment}_[A-Za-z0-9]{24}\\.[A-Za-z0-9_-]{64}$`));
    }
  });

  it("A3: revoked and expired keys → 401", async () => {
    const { emu, clock } = setup();
    const revoked = emu.control.createKey({ environment: "test" });
    emu.control.revokeKey(revoked.public_key_id);
    expect((await call(emu, revoked.token, "/context")).status).toBe(401);
    const expiring = emu.control.createKey({
      environment: "test",
      expires_at: new Date(clock.now() + 1000).toISOString(),
    });
    expect((await call(emu, expiring.token, "/context")).status).toBe(200);
    clock.advance(1000);
    expect((await call(emu, expiring.token, "/context")).status).toBe(401);
  });

  it("A5: GET /context needs no scope and reports environment, scopes and rate_limit_per_minute", async () => {
    const { emu } = setup();
    const k = emu.control.createKey({ environment: "live", scopes: [], rate_limit_per_minute: 300 });
    const body = await json(await call(emu, k.token, "/context"));
    expect(body.data.environment).toBe("live");
    expect(body.data.credential).toEqual({
      public_key_id: k.public_key_id,
      scopes: [],
      rate_limit_per_minute: 300,
      expires_at: null,
    });
    expect(body.data.reseller).toEqual({ uuid: k.reseller_uuid, status: "active" });
  });

  it("A6: scopes are ANDed — domains.read cannot renew; a counted 403 forbidden", async () => {
    const { emu, test } = setup();
    const domain = await firstDomain(emu, test.token);
    const k = emu.control.createKey({
      environment: "test",
      scopes: ["domains.read", "domains.write"],
      reseller_uuid: test.reseller_uuid,
    });
    const res = await call(emu, k.token, `/domains/${domain}/renew`, { body: { period: 1 } });
    expect(res.status).toBe(403);
    expect((await json(res)).error.code).toBe("forbidden");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("119"); // C5: scope errors spend quota
    expect(emu.control.effects()).toEqual([]);
    expect((await call(emu, k.token, `/domains/${domain}`)).status).toBe(200);
  });

  it("A7: IP allowlist → 403 before the limiter; an allowed address passes", async () => {
    const { emu } = setup();
    const k = emu.control.createKey({ environment: "test", ip_allowlist: ["10.0.0.0/8", "192.168.1.5"] });
    const req = () =>
      new Request("http://e.test/api/reseller/v1/context", { headers: { authorization: `Bearer ${k.token}` } });
    const denied = (await emu.handle(req(), { remoteAddress: "127.0.0.1" })) as Response;
    expect(denied.status).toBe(403);
    expect((await json(denied)).error.code).toBe("forbidden");
    expect(denied.headers.get("x-ratelimit-limit")).toBeNull();
    expect(((await emu.handle(req(), { remoteAddress: "10.1.2.3" })) as Response).status).toBe(200);
    expect(((await emu.handle(req(), { remoteAddress: "::ffff:192.168.1.5" })) as Response).status).toBe(200);
    expect(emu.control.counters()[k.public_key_id].count).toBe(2);
  });

  it("A7: a restricted reseller may GET but every POST/PUT/PATCH/DELETE — even POST /domains/check — is 403, not counted", async () => {
    const { emu } = setup();
    const k = emu.control.createKey({ environment: "test", reseller_status: "restricted" });
    const d = emu.control.createDomain({ token: k.token, name: "restricted.kz" });
    expect((await call(emu, k.token, "/domains")).status).toBe(200);
    expect((await call(emu, k.token, "/context", { method: "HEAD" })).status).toBe(200);
    const writes = [
      call(emu, k.token, "/domains/check", { body: { names: ["free.kz"] } }),
      call(emu, k.token, `/domains/${d.uuid}/nameservers`, { method: "PUT", body: { nameservers: ["a.kz", "b.kz"] } }),
      call(emu, k.token, `/webhooks/${OTHER_UUID}`, { method: "PATCH", body: { is_active: false } }),
      call(emu, k.token, `/webhooks/${OTHER_UUID}`, { method: "DELETE" }),
    ];
    for (const res of await Promise.all(writes)) {
      expect(res.status).toBe(403);
      expect((await json(res)).error.code).toBe("forbidden");
      expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    }
    expect(emu.control.counters()[k.public_key_id].count).toBe(2); // the two GET/HEAD only
  });

  it("A8: another reseller's domain and the other environment's domain answer the same 404", async () => {
    const { emu, test, live } = setup();
    const other = emu.control.createKey({ environment: "test" });
    const foreign = emu.control.createDomain({ token: other.token, name: "foreign.kz" });
    const liveDomain = await firstDomain(emu, live.token);
    const bodies = [];
    for (const uuid of [foreign.uuid, liveDomain, OTHER_UUID]) {
      const res = await call(emu, test.token, `/domains/${uuid}`);
      expect(res.status).toBe(404);
      const body = await json(res);
      expect(body.error.code).toBe("resource_not_found");
      expect(JSON.stringify(body)).not.toContain(other.reseller_uuid);
      bodies.push({ ...body.error, request_id: null });
    }
    expect(bodies[0]).toEqual(bodies[2]);
    expect(bodies[1]).toEqual(bodies[2]);
    const list = await json(await call(emu, test.token, "/domains"));
    expect(list.data.map((d: { name: string }) => d.name)).not.toContain("foreign.kz");
  });

  it("A9: a malformed UUID → 422 validation_failed with field details on domains.*, 500 internal_error on orders/operations/webhooks", async () => {
    const { emu, live } = setup();
    const r422 = await call(emu, live.token, "/domains/not-a-uuid");
    expect(r422.status).toBe(422);
    const b422 = await json(r422);
    expect(b422.error.code).toBe("validation_failed");
    expect(Object.keys(b422.error.details)).toEqual(["domainUuid"]);
    expect((await call(emu, live.token, "/tickets/xyz")).status).toBe(422);
    for (const path of ["/orders/123", "/operations/abc", "/webhooks/zzz"]) {
      const res = await call(emu, live.token, path);
      expect(res.status).toBe(500);
      const body = await json(res);
      expect(body.error).toMatchObject({ code: "internal_error", details: [] });
      expect(typeof body.error.request_id).toBe("string");
    }
  });
});
