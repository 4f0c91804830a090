// E6: X-Language from the client option or per call; codes never change with language.
// client.http: the raw openapi-fetch client runs through the same middleware (retries included).
import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../../src/index";
import { requestsTo, setup } from "./harness";

describe("client: language and client.http", () => {
  it("E6: X-Language comes from the client option and can be overridden per call; code is language-independent", async () => {
    const h = setup({ client: { language: "ru" } });
    const ru = await h.client.domains.get({ domainUuid: "00000000-0000-4000-8000-000000000000" });
    const kk = await h.client.domains.get(
      { domainUuid: "00000000-0000-4000-8000-000000000000" },
      { language: "kk-KZ" },
    );
    const sent = requestsTo(h.captured, "GET", /\/domains\//);
    expect(sent.map((s) => s.headers["x-language"])).toEqual(["ru", "kk-KZ"]);
    expect(ru.kind === "rejected" && kk.kind === "rejected").toBe(true);
    if (ru.kind !== "rejected" || kk.kind !== "rejected") return;
    expect(ru.error?.code).toBe("resource_not_found");
    expect(kk.error?.code).toBe(ru.error?.code);
    await expect(h.client.context.get({}, { language: "de" })).rejects.toBeInstanceOf(InvalidArgumentError);
  });

  it("I8: client.http (openapi-fetch) goes through the same middleware — a 503 is retried with a fresh request id", async () => {
    const h = setup();
    h.emulator.control.addFault({ method: "GET", path: "/context", kind: "error_503_before" });
    const { data, response } = await h.client.http.GET("/context");
    expect(response.status).toBe(200);
    expect(data?.data.environment).toBe("test");
    const sent = requestsTo(h.captured, "GET", "/context");
    expect(sent).toHaveLength(2);
    expect(sent[0].headers["x-request-id"]).not.toBe(sent[1].headers["x-request-id"]);
  });

  it("I8: client.http writes get an Idempotency-Key and local validation too", async () => {
    const h = setup();
    const { response } = await h.client.http.POST("/domains/{domainUuid}/renew", {
      params: { path: { domainUuid: h.domainUuid }, header: { "Idempotency-Key": "  raw-http-1 " } },
      body: { period: 1 },
    });
    expect(response.status).toBe(202);
    expect(requestsTo(h.captured, "POST", "/renew")[0].headers["idempotency-key"]).toBe("raw-http-1"); // D2: trimmed
    await expect(
      h.client.http.POST("/domains/{domainUuid}/renew", {
        params: { path: { domainUuid: "nope" }, header: { "Idempotency-Key": "raw-http-2" } },
        body: { period: 1 },
      }),
    ).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(
      h.client.http.POST("/domains/{domainUuid}/renew", {
        params: { path: { domainUuid: h.domainUuid }, header: { "Idempotency-Key": " " } },
        body: { period: 1 },
      }),
    ).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(requestsTo(h.captured, "POST", "/renew")).toHaveLength(1);
  });
});
