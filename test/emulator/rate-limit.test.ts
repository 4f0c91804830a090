// C1–C11: the fixed window per API-key record.
import { describe, expect, it } from "vitest";
import { call, firstDomain, json, setup } from "./helpers";

describe("C: rate limit", () => {
  it("C1: a new key allows 120 requests per 60 s; the 121st is 429", async () => {
    const { emu, test } = setup();
    for (let i = 0; i < 120; i++) expect((await call(emu, test.token, "/context")).status).toBe(200);
    const res = await call(emu, test.token, "/context");
    expect(res.status).toBe(429);
  });

  it("C1: the provider may set 1..10000; outside that range the control API refuses", async () => {
    const { emu } = setup();
    const one = emu.control.createKey({ environment: "test", rate_limit_per_minute: 1 });
    expect((await call(emu, one.token, "/context")).headers.get("x-ratelimit-limit")).toBe("1");
    expect((await call(emu, one.token, "/context")).status).toBe(429);
    expect(emu.control.createKey({ environment: "test", rate_limit_per_minute: 10_000 }).rate_limit_per_minute).toBe(
      10_000,
    );
    expect(() => emu.control.createKey({ environment: "test", rate_limit_per_minute: 0 })).toThrow();
    expect(() => emu.control.createKey({ environment: "test", rate_limit_per_minute: 10_001 })).toThrow();
  });

  it("C2: one counter per key record across methods and source IPs", async () => {
    const { emu, test } = setup({ defaultRateLimit: 4 });
    const k = emu.control.createKey({ environment: "test", rate_limit_per_minute: 4 });
    const req = (method: string, path: string) =>
      new Request(`http://e.test/api/reseller/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${k.token}`,
          "idempotency-key": crypto.randomUUID(),
          "content-type": "application/json",
        },
        body: method === "POST" ? JSON.stringify({ names: ["a.kz"] }) : undefined,
      });
    expect(((await emu.handle(req("GET", "/context"), { remoteAddress: "10.0.0.1" })) as Response).status).toBe(200);
    expect(((await emu.handle(req("POST", "/domains/check"), { remoteAddress: "10.0.0.2" })) as Response).status).toBe(
      200,
    );
    expect(((await emu.handle(req("GET", "/domains"), { remoteAddress: "10.0.0.3" })) as Response).status).toBe(200);
    const last = (await emu.handle(req("GET", "/context"), { remoteAddress: "10.0.0.4" })) as Response;
    expect(last.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(((await emu.handle(req("GET", "/context"), { remoteAddress: "10.0.0.5" })) as Response).status).toBe(429);
    // another key has its own window
    expect((await call(emu, test.token, "/context")).status).toBe(200);
  });

  it("C3: the window is fixed from the first counted request — not a calendar minute, not sliding", async () => {
    const { emu, clock } = setup();
    clock.advance(37_000); // mid-minute: a calendar window would reset at :00
    const k = emu.control.createKey({ environment: "test", rate_limit_per_minute: 3 });
    await call(emu, k.token, "/context");
    clock.advance(30_000); // crosses a calendar minute boundary
    await call(emu, k.token, "/context");
    await call(emu, k.token, "/context");
    const blocked = await call(emu, k.token, "/context");
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("retry-after")).toBe("30");
    clock.advance(29_999);
    expect((await call(emu, k.token, "/context")).status).toBe(429);
    clock.advance(1);
    const fresh = await call(emu, k.token, "/context");
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("x-ratelimit-remaining")).toBe("2"); // a whole new window, not a slide
  });

  it("C4: requests inside the window never extend it; the next window starts at the next counted request", async () => {
    const { emu, clock } = setup();
    const k = emu.control.createKey({ environment: "test", rate_limit_per_minute: 2 });
    const start = clock.now();
    await call(emu, k.token, "/context");
    clock.advance(59_000);
    await call(emu, k.token, "/context");
    expect(emu.control.counters()[k.public_key_id].window_ends_at).toBe(
      new Date(start + 60_000).toISOString().replace(".000Z", "+00:00"),
    );
    clock.advance(1_000);
    expect((await call(emu, k.token, "/context")).status).toBe(200);
    clock.advance(5_000);
    await call(emu, k.token, "/context");
    expect(emu.control.counters()[k.public_key_id]).toMatchObject({
      count: 2,
      window_started_at: new Date(start + 60_000).toISOString().replace(".000Z", "+00:00"),
    });
  });

  it("C5: validation, scope, missing Idempotency-Key errors and HTTP replays all spend quota", async () => {
    const { emu, test } = setup();
    const noScope = emu.control.createKey({ environment: "test", scopes: [], reseller_uuid: test.reseller_uuid });
    const domain = await firstDomain(emu, test.token); // 1 hit on `test`
    await call(emu, test.token, `/domains/${domain}/renew`, { body: { period: 99 } }); // 422 validation
    await call(emu, test.token, `/domains/${domain}/renew`, { body: { period: 1 }, key: null }); // 422 no key
    await call(emu, test.token, `/domains/${domain}/renew`, { body: { period: 1 }, key: "r" });
    const replay = await call(emu, test.token, `/domains/${domain}/renew`, { body: { period: 1 }, key: "r" });
    expect(replay.headers.get("idempotency-replayed")).toBe("true");
    expect(replay.headers.get("x-ratelimit-remaining")).toBe("115");
    expect((await call(emu, noScope.token, "/domains")).status).toBe(403);
    expect(emu.control.counters()[noScope.public_key_id].count).toBe(1);
  });

  it("C6: early auth/reseller rejections spend nothing and a 429 adds no hit nor extends the pause", async () => {
    const { emu, clock } = setup();
    const k = emu.control.createKey({ environment: "test", rate_limit_per_minute: 1 });
    await call(emu, k.token, "/context");
    clock.advance(10_000);
    const a = await call(emu, k.token, "/context");
    clock.advance(10_000);
    const b = await call(emu, k.token, "/context");
    expect([a.headers.get("retry-after"), b.headers.get("retry-after")]).toEqual(["50", "40"]);
    expect(emu.control.counters()[k.public_key_id].count).toBe(1);
    clock.advance(40_000);
    expect((await call(emu, k.token, "/context")).status).toBe(200);
    const wrong = k.token.slice(0, -1) + (k.token.endsWith("a") ? "b" : "a");
    await call(emu, wrong, "/context");
    expect(emu.control.counters()[k.public_key_id].count).toBe(1);
  });

  it("C7: rotating the key's secret keeps the same counter; the old token stops working", async () => {
    const { emu } = setup();
    const k = emu.control.createKey({ environment: "test", rate_limit_per_minute: 3 });
    await call(emu, k.token, "/context");
    await call(emu, k.token, "/context");
    const { token } = emu.control.rotateKey(k.public_key_id);
    expect(token).not.toBe(k.token);
    expect((await call(emu, k.token, "/context")).status).toBe(401);
    const res = await call(emu, token, "/context");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
    expect((await call(emu, token, "/context")).status).toBe(429);
  });

  it("C8: check-and-increment is atomic here — 10 parallel requests on a limit of 5 give exactly 5 × 200", async () => {
    const { emu } = setup();
    const k = emu.control.createKey({ environment: "test", rate_limit_per_minute: 5 });
    const all = await Promise.all(Array.from({ length: 10 }, () => call(emu, k.token, "/context")));
    expect(all.filter((r) => r.status === 200)).toHaveLength(5);
    expect(all.filter((r) => r.status === 429)).toHaveLength(5);
  });

  it("C10: responses that passed the limiter (4xx included) carry X-RateLimit-Limit/-Remaining and X-Request-ID; no Retry-After", async () => {
    const { emu, test } = setup();
    for (const res of [
      await call(emu, test.token, "/context"),
      await call(emu, test.token, "/domains/x"),
      await call(emu, test.token, "/domains?per_page=0"),
    ]) {
      expect(res.headers.get("x-ratelimit-limit")).toBe("120");
      expect(res.headers.get("x-ratelimit-remaining")).toMatch(/^\d+$/);
      expect(res.headers.get("x-request-id")).toBeTruthy();
      expect(res.headers.get("retry-after")).toBeNull();
    }
    const echoed = await call(emu, test.token, "/context", { headers: { "x-request-id": "my-attempt-1" } });
    expect(echoed.headers.get("x-request-id")).toBe("my-attempt-1");
  });

  it("C11: the limiter's 429 — integer Retry-After = details.retry_after, X-Request-ID, no X-RateLimit-*, English message", async () => {
    const { emu, clock } = setup();
    const k = emu.control.createKey({ environment: "test", rate_limit_per_minute: 1 });
    await call(emu, k.token, "/context");
    clock.advance(17_500);
    const res = await call(emu, k.token, "/context", { headers: { "x-language": "ru" } });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("43"); // ceil(42.5)
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    expect(res.headers.get("x-ratelimit-remaining")).toBeNull();
    expect(await json(res)).toEqual({
      error: {
        code: "rate_limit_exceeded",
        message: "API rate limit exceeded.",
        details: { retry_after: 43 },
        request_id: res.headers.get("x-request-id"),
      },
    });
    for (const name of ["x-ratelimit-reset", "ratelimit", "ratelimit-policy", "ratelimit-reset"])
      expect(res.headers.get(name)).toBeNull();
    clock.advance(42_400); // 0.1 s left
    expect((await call(emu, k.token, "/context")).headers.get("retry-after")).toBe("1"); // never 0
  });
});
