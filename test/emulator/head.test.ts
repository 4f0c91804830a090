// A7/D1: HEAD is answered exactly where the spec declares it (the generated table's `head`), as the
// GET without a body — errors, the limiter's 429 and faults included (RFC 9110 §9.3.2).
import { describe, expect, it } from "vitest";
import { operationList } from "../../generated/operations";
import { call, firstDomain, setup } from "./helpers";

const MISSING = "3f1e8c2a-9b7d-4c6e-8a5f-1d2c3b4a5e6f";

describe("emulator: HEAD where the spec declares it", () => {
  it("A7: every GET with head: true answers HEAD with the GET's status and headers and no body", async () => {
    const { emu, test, live } = setup();
    const domain = await firstDomain(emu, test.token);
    const heads = operationList.filter((o) => o.head);
    expect(heads.length).toBeGreaterThan(0);
    for (const op of heads) {
      const token = op.liveOnly ? live.token : test.token;
      // An unknown UUID is a fine probe: HEAD and GET must agree on 404 just as on 200.
      const path = op.path.replace("{domainUuid}", domain).replace(/\{\w+Uuid\}/g, MISSING);
      const got = await call(emu, token, path);
      const head = await call(emu, token, path, { method: "HEAD" });
      expect(head.status, op.operationId).toBe(got.status);
      expect(head.headers.get("x-request-id"), op.operationId).toBeTruthy();
      expect(head.headers.get("x-ratelimit-limit"), op.operationId).toBe(got.headers.get("x-ratelimit-limit"));
      expect(await head.text(), op.operationId).toBe("");
    }
  });

  it("D1: a HEAD needs no Idempotency-Key and is counted like the GET (C5)", async () => {
    const { emu } = setup();
    const k = emu.control.createKey({ environment: "test" });
    const res = await call(emu, k.token, "/context", { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-remaining")).toBe(String(k.rate_limit_per_minute - 1));
  });

  it("E4/C11: a HEAD's 401 and 429 keep status and headers (Retry-After) but carry no body", async () => {
    const { emu } = setup();
    const unknown = await call(emu, "rsl_test_AAAAAAAAAAAAAAAAAAAAAAAA." + "A".repeat(64), "/context", {
      method: "HEAD",
    });
    expect(unknown.status).toBe(401);
    expect(await unknown.text()).toBe("");
    const k = emu.control.createKey({ environment: "test", rate_limit_per_minute: 1 });
    await call(emu, k.token, "/context", { method: "HEAD" });
    const limited = await call(emu, k.token, "/context", { method: "HEAD" });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await limited.text()).toBe("");
  });

  it("A7: HEAD is a safe method — a read_only key and a restricted reseller may use it", async () => {
    const { emu, test } = setup();
    emu.control.updateKey(test.public_key_id, { api_mode: "read_only" });
    expect((await call(emu, test.token, "/domains", { method: "HEAD" })).status).toBe(200);
    expect(
      (await call(emu, test.token, "/quotes", { body: { action: "register", domain: "x.kz", period: 1 } })).status,
    ).toBe(403);
    const restricted = emu.control.createKey({ environment: "test", reseller_status: "restricted" });
    expect((await call(emu, restricted.token, "/domains", { method: "HEAD" })).status).toBe(200);
  });

  it("E5: HEAD on a path without a GET is the router's 405, which lists no HEAD", async () => {
    const { emu, test } = setup();
    const res = await call(emu, test.token, "/quotes", { method: "HEAD" });
    expect(res.status).toBe(405);
    const allow = await call(emu, test.token, "/quotes", { method: "GET" });
    expect(((await allow.json()) as { message: string }).message).toMatch(/Supported methods: POST\.$/);
  });
});
