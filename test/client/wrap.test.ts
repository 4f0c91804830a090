/**
 * The attempt loop is a wrap around openapi-fetch's single fetch: the facade's call context reaches
 * it through openapi-fetch's documented per-request `middleware` option (src/call.ts).
 */
import { describe, expect, it } from "vitest";
import { setup } from "./harness";

describe("the attempt loop is a wrap", () => {
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
