// E1–E6: the envelope, router answers, malformed JSON and languages.
import { describe, expect, it } from "vitest";
import { BASE, call, firstDomain, json, setup } from "./helpers";

describe("E: errors", () => {
  it("E1: errors use the API's own envelope, not application/problem+json", async () => {
    const { emu, test } = setup();
    const res = await call(emu, test.token, "/quotes", { body: {} });
    expect(res.status).toBe(422);
    expect(res.headers.get("content-type")).toBe("application/json");
    const body = await json(res);
    expect(Object.keys(body)).toEqual(["error"]);
    expect(body.error.code).toBe("validation_failed");
    expect(body.error.message).toBe("The action field is required. (and 2 more errors)");
    expect(body.error.details).toEqual({
      action: ["The action field is required."],
      domain: ["The domain field is required."],
      period: ["The period field is required."],
    });
    expect(body.error.request_id).toBe(res.headers.get("x-request-id"));
  });

  it("E2: empty details are [], field errors are string arrays, 429 carries {retry_after}; never null", async () => {
    const { emu } = setup();
    const k = emu.control.createKey({ environment: "test", rate_limit_per_minute: 2 });
    const e404 = await json(await call(emu, k.token, "/domains/55555555-5555-4555-8555-555555555555"));
    expect(e404.error.details).toEqual([]);
    const e422 = await json(await call(emu, k.token, "/domains/check", { body: { names: [] } }));
    expect(e422.error.details).toEqual({ names: ["The names field must have between 1 and 50 items."] });
    const e429 = await json(await call(emu, k.token, "/context"));
    expect(e429.error.details).toEqual({ retry_after: 60 });
  });

  it("E2: the router's 404 has request_id null when no context was assigned", async () => {
    const { emu, test } = setup();
    const res = await call(emu, test.token, "/does-not-exist");
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({
      error: { code: "resource_not_found", message: "Route not found.", details: [], request_id: null },
    });
    expect(res.headers.get("x-request-id")).toBeNull();
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    expect(emu.control.counters()[test.public_key_id].count).toBe(0);
  });

  it("E3: an operation's own `error` field is null on success and an object when uncertain — not an ErrorEnvelope", async () => {
    const { emu, live, clock } = setup({ operationPolicy: { outcome: "uncertain" } });
    const domain = await firstDomain(emu, live.token);
    const op = (await json(await call(emu, live.token, `/domains/${domain}/renew`, { body: { period: 1 } }))).data;
    expect(op.error).toBeNull();
    clock.advance(3_000);
    const later = (await json(await call(emu, live.token, `/operations/${op.uuid}`))).data;
    expect(later.status).toBe("uncertain");
    expect(later.error).toEqual({
      code: "registry_result_unknown",
      message: "Registry result is not confirmed. Do not repeat this operation; reconciliation is scheduled.",
    });
  });

  it("E4: malformed JSON → 400 request_failed envelope", async () => {
    const { emu, test } = setup();
    const res = await call(emu, test.token, "/domains/check", { raw: '{"names": ["a.kz"' });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({ code: "request_failed", details: [] });
  });

  it("E5: an unsupported method → 405 with a message-only body, no X-Request-ID, not counted", async () => {
    const { emu, test } = setup();
    const res = await call(emu, test.token, "/context", { method: "POST", body: {} });
    expect(res.status).toBe(405);
    expect(await json(res)).toEqual({
      message: "The POST method is not supported for route api/reseller/v1/context. Supported methods: GET, HEAD.",
    });
    expect(res.headers.get("x-request-id")).toBeNull();
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    const del = await call(emu, test.token, "/domains/check", { method: "DELETE" });
    expect(del.status).toBe(405);
    expect((await json(del)).message).toContain("Supported methods:");
    expect(emu.control.counters()[test.public_key_id].count).toBe(0);
  });

  it("E6: language from X-Language, then X-Locale, then Accept-Language, then the default; ru-RU → ru", async () => {
    const { emu, test } = setup();
    const lang = async (headers: Record<string, string>) =>
      (await json(await call(emu, test.token, "/context", { headers }))).data.language;
    expect(await lang({})).toBe("en");
    expect(await lang({ "x-language": "ru-RU" })).toBe("ru");
    expect(await lang({ "x-language": "kk", "x-locale": "ru", "accept-language": "en" })).toBe("kk");
    expect(await lang({ "x-locale": "ru_KZ", "accept-language": "kk" })).toBe("ru");
    expect(await lang({ "accept-language": "de-DE, kk;q=0.8, ru;q=0.9" })).toBe("ru");
    expect(await lang({ "x-language": "fr" })).toBe("en");
    const { emu: ruEmu, test: ruKey } = setup({ language: "ru" });
    expect((await json(await call(ruEmu, ruKey.token, "/context"))).data.language).toBe("ru");
  });

  it("E6: messages are translated but code, field names and structure never change; some stay English", async () => {
    const { emu, test } = setup();
    const get = async (language: string) =>
      (await json(await call(emu, test.token, "/quotes", { body: { period: 1 }, headers: { "x-language": language } })))
        .error;
    const [en, ru, kk] = [await get("en"), await get("ru"), await get("kk")];
    expect(new Set([en.message, ru.message, kk.message]).size).toBe(3);
    for (const e of [ru, kk]) {
      expect(e.code).toBe(en.code);
      expect(Object.keys(e.details)).toEqual(Object.keys(en.details));
    }
    expect(ru.message).toContain("обязательно");
    const k = emu.control.createKey({ environment: "test", rate_limit_per_minute: 1 });
    await call(emu, k.token, "/context");
    expect((await json(await call(emu, k.token, "/context", { headers: { "x-language": "ru" } }))).error.message).toBe(
      "API rate limit exceeded.",
    );
  });

  it("E5: HEAD is served by GET routes — same status and headers, no body, counted", async () => {
    const { emu, test } = setup();
    const res = await call(emu, test.token, "/domains", { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("119");
    expect(await res.text()).toBe("");
  });

  it("E: paths outside the base path are unknown routes too", async () => {
    const { emu } = setup();
    const res = await emu.fetch("http://emulator.test/api/reseller/v2/context");
    expect(res.status).toBe(404);
    expect((await emu.fetch(`${BASE}/context`)).status).toBe(401);
  });
});
