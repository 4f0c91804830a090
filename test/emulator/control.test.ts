// The control API over HTTP under /_emulator (the same routes the TCP server exposes).
import { describe, expect, it } from "vitest";
import { createEmulator } from "../../emulator/index";
import { VirtualClock } from "../../runtime/clock";
import { BASE, call, CONTROL, firstDomain, json, setup } from "./helpers";

function ctl(
  emu: ReturnType<typeof createEmulator>,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  return emu.fetch(CONTROL + path, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

describe("control API over HTTP", () => {
  it("createEmulator() without options starts empty; POST /_emulator/keys creates a working key", async () => {
    const emu = createEmulator({ clock: new VirtualClock({ autoAdvance: false }) });
    expect(await json(await ctl(emu, "GET", "/keys"))).toEqual({ data: [] });
    const res = await ctl(emu, "POST", "/keys", {
      environment: "live",
      scopes: ["domains.read"],
      rate_limit_per_minute: 5,
    });
    expect(res.status).toBe(201);
    const key = (await json(res)).data;
    expect(key).toMatchObject({ environment: "live", scopes: ["domains.read"], rate_limit_per_minute: 5 });
    expect(key.token).toMatch(/^rsl_live_[A-Za-z0-9]{24}\.[A-Za-z0-9_-]{64}$/);
    expect((await call(emu, key.token, "/context")).status).toBe(200);
    const bad = await ctl(emu, "POST", "/keys", { environment: "prod" });
    expect(bad.status).toBe(422);
  });

  it("keys: PATCH updates, /rotate returns a new token on the same counter, /revoke closes access", async () => {
    const { emu, test } = setup();
    await call(emu, test.token, "/context");
    const patched = await json(await ctl(emu, "PATCH", `/keys/${test.public_key_id}`, { rate_limit_per_minute: 7 }));
    expect(patched.data.rate_limit_per_minute).toBe(7);
    const rotated = (await json(await ctl(emu, "POST", `/keys/${test.public_key_id}/rotate`))).data;
    const res = await call(emu, rotated.token, "/context");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("5");
    expect((await ctl(emu, "POST", `/keys/${test.public_key_id}/revoke`)).status).toBe(204);
    expect((await call(emu, rotated.token, "/context")).status).toBe(401);
    expect((await ctl(emu, "POST", "/keys/nope/revoke")).status).toBe(404);
  });

  it("domains, counters, effects, requests, operations and the clock over HTTP", async () => {
    const { emu, live, clock } = setup();
    const created = await ctl(emu, "POST", "/domains", {
      token: live.token,
      name: "control.kz",
      expires_at: "2027-01-01T00:00:00Z",
    });
    expect(created.status).toBe(201);
    const domain = (await json(created)).data;
    expect(domain).toMatchObject({ name: "control.kz", expires_at: "2027-01-01T00:00:00+00:00" });
    const listed = await json(await ctl(emu, "GET", "/domains", undefined, { authorization: `Bearer ${live.token}` }));
    expect(listed.data.map((d: { name: string }) => d.name)).toContain("control.kz");

    const op = (
      await json(await call(emu, live.token, `/domains/${domain.uuid}/renew`, { body: { period: 1 }, key: "ctl-1" }))
    ).data;
    const effects = (await json(await ctl(emu, "GET", "/effects"))).data;
    expect(effects).toEqual([
      {
        kind: "domain.renew",
        resource_uuid: op.uuid,
        idempotency_key: "ctl-1",
        at: "2026-10-05T09:00:00+00:00",
        environment: "live",
        api_key_id: live.public_key_id,
        reseller_uuid: live.reseller_uuid,
      },
    ]);
    const counters = (await json(await ctl(emu, "GET", "/counters"))).data;
    expect(counters[live.public_key_id]).toEqual({
      window_started_at: "2026-10-05T09:00:00+00:00",
      window_ends_at: "2026-10-05T09:01:00+00:00",
      count: 1,
      limit: 120,
    });
    const requests = (await json(await ctl(emu, "GET", "/requests"))).data;
    expect(requests.at(-1)).toMatchObject({
      method: "POST",
      operation_id: "domains.renew",
      status: 202,
      counted: true,
      replayed: false,
    });

    expect((await ctl(emu, "POST", `/operations/${op.uuid}`, { status: "failed" })).status).toBe(204);
    expect((await json(await call(emu, live.token, `/operations/${op.uuid}`))).data.status).toBe("failed");

    const advanced = await json(await ctl(emu, "POST", "/clock/advance", { ms: 90_000 }));
    expect(advanced.data.now).toBe("2026-10-05T09:01:30+00:00");
    expect(clock.now()).toBe(Date.UTC(2026, 9, 5, 9, 1, 30));
  });

  it("faults over HTTP: POST adds, GET lists, DELETE clears", async () => {
    const { emu, live } = setup();
    const added = await ctl(emu, "POST", "/faults", {
      method: "GET",
      path: "/context",
      kind: "proxy_502_html",
      times: 3,
    });
    expect(added.status).toBe(201);
    expect((await json(added)).data).toMatchObject({
      method: "GET",
      path: "/context",
      kind: "proxy_502_html",
      times: 3,
      probability: 1,
    });
    expect((await call(emu, live.token, "/context")).status).toBe(502);
    expect((await json(await ctl(emu, "GET", "/faults"))).data[0].times).toBe(2);
    expect((await ctl(emu, "DELETE", "/faults")).status).toBe(204);
    expect((await call(emu, live.token, "/context")).status).toBe(200);
    expect((await ctl(emu, "POST", "/faults", { method: "GET", path: "/x", kind: "bogus" })).status).toBe(422);
  });

  it("reset restores the initial keys (same tokens) and domains, and forgets everything else", async () => {
    const { emu, live } = setup();
    const domain = await firstDomain(emu, live.token);
    await call(emu, live.token, `/domains/${domain}/renew`, { body: { period: 1 }, key: "before-reset" });
    emu.control.createKey({ environment: "test" });
    expect((await ctl(emu, "POST", "/reset")).status).toBe(204);
    expect(emu.control.keys()).toHaveLength(2);
    expect(emu.control.effects()).toEqual([]);
    expect(await firstDomain(emu, live.token)).toBe(domain);
    const again = await call(emu, live.token, `/domains/${domain}/renew`, { body: { period: 1 }, key: "before-reset" });
    expect(again.headers.get("idempotency-replayed")).toBeNull();
    expect(emu.control.counters()[live.public_key_id].count).toBe(2);
  });

  it("seed: fixed tokens and domains are reproducible; advanceClock refuses a system clock", async () => {
    const token = `rsl_test_${"A1".repeat(12)}.${"x".repeat(64)}`;
    const emu = createEmulator({
      seed: {
        keys: [{ environment: "test", token }],
        domains: [{ token, name: "seeded.kz", uuid: "11111111-1111-4111-8111-111111111111" }],
      },
    });
    const res = await emu.fetch(`${BASE}/domains/11111111-1111-4111-8111-111111111111`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect((await json(res)).data.name).toBe("seeded.kz");
    expect(() => emu.control.advanceClock(1)).toThrow();
    expect(
      (
        await emu.fetch(`${CONTROL}/clock/advance`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: '{"ms":1}',
        })
      ).status,
    ).toBe(409);
    expect((await emu.fetch(`${CONTROL}/nothing`)).status).toBe(404);
  });
});
