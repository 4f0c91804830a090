/**
 * The attempt loop is a wrap around openapi-fetch's single fetch: the facade's call context travels
 * on the init key CALL_CONTEXT_KEY, which openapi-fetch must copy onto its Request. These tests fail
 * loudly if an openapi-fetch upgrade stops doing that.
 */
import createClient from "openapi-fetch";
import { describe, expect, it } from "vitest";
import { CALL_CONTEXT_KEY } from "../../runner";
import { setup } from "./harness";

describe("the attempt loop is a wrap", () => {
  it("openapi-fetch copies an unknown init key onto the Request the middleware sees", async () => {
    const marker = { any: "object" };
    let seen: unknown;
    const http = createClient({ baseUrl: "http://127.0.0.1/api", fetch: async () => new Response("{}") });
    http.use({
      onRequest({ request }) {
        seen = (request as unknown as Record<string, unknown>)[CALL_CONTEXT_KEY];
        return undefined;
      },
    });
    await http.GET("/x" as never, { [CALL_CONTEXT_KEY]: marker } as never);
    expect(seen).toBe(marker);
  });

  it("D1/D2: the caller's Idempotency-Key reaches the wire through the wrap", async () => {
    const h = setup();
    const outcome = await h.client.domains.renew(
      { domainUuid: h.domainUuid, body: { period: 1 } },
      { idempotencyKey: "wrap-check-1" },
    );
    expect(outcome.kind).toBe("accepted");
    const sent = h.captured.filter((c) => c.method === "POST");
    expect(sent.map((c) => c.headers["idempotency-key"])).toEqual(["wrap-check-1"]);
  });
});
