// E4/E5 as pure tables: classify() (status and Content-Type first, never decode 204, snippet ≤ 2 KiB)
// and decide() (x-unknown-outcome per operation). The emulator tests prove the same rows end to end.
import { describe, expect, it } from "vitest";
import { operationTable } from "../../generated/operations";
import { classify, isJsonContentType } from "../../runner";
import { createRedactor } from "../../core";
import { decide, type AttemptResult } from "../../runner";

const r = createRedactor();
const raw = (status: number, body: string, contentType?: string, extra: Record<string, string> = {}) => ({
  status,
  headers: new Headers({ ...(contentType ? { "content-type": contentType } : {}), ...extra }),
  bytes: new TextEncoder().encode(body),
});
const envelope = (code: string, details: unknown = []) =>
  JSON.stringify({ error: { code, message: "m", details, request_id: null } });

describe("client: classify and decide", () => {
  it("E5: Content-Type is checked before decoding; JSON decode errors are unknown, not failures", () => {
    const ctx = operationTable["context.get"];
    expect(classify(ctx, raw(200, '{"data":{}}', "application/json; charset=utf-8"), r).kind).toBe("success");
    expect(classify(ctx, raw(200, '{"data":{}}', "text/html"), r)).toMatchObject({
      kind: "unknown",
      reason: "malformed_response",
    });
    expect(classify(ctx, raw(200, '{"data":', "application/json"), r)).toMatchObject({
      kind: "unknown",
      reason: "malformed_response",
    });
    expect(classify(ctx, raw(200, "", "application/json"), r)).toMatchObject({
      kind: "unknown",
      reason: "malformed_response",
    });
    expect(isJsonContentType("application/vnd.api+json")).toBe(true);
    expect(isJsonContentType("application/jsonp")).toBe(false);
  });

  it("G3: a 204 is never decoded, whatever its headers claim", () => {
    const del = operationTable["webhooks.delete"];
    expect(
      classify(
        del,
        { status: 204, headers: new Headers({ "content-type": "application/json" }), bytes: new Uint8Array() },
        r,
      ),
    ).toEqual({
      kind: "success",
      status: 204,
      data: undefined,
      replayed: false,
    });
  });

  it("D9: Idempotency-Replayed: true → replayed; absent → not replayed", () => {
    const op = operationTable["domains.check"];
    expect(
      classify(op, raw(200, '{"data":[]}', "application/json", { "idempotency-replayed": "true" }), r),
    ).toMatchObject({ replayed: true });
    expect(classify(op, raw(200, '{"data":[]}', "application/json"), r)).toMatchObject({ replayed: false });
  });

  it("E4: statuses map to rejected / conflict / rate_limited / unknown; envelopes are typed, other bodies are snippets", () => {
    const op = operationTable["domains.renew"];
    for (const [status, code] of [
      [400, "request_failed"],
      [401, "unauthenticated"],
      [403, "forbidden"],
      [404, "resource_not_found"],
      [422, "validation_failed"],
    ] as const) {
      expect(
        classify(
          op,
          raw(status, envelope(code, code === "validation_failed" ? { period: ["bad"] } : []), "application/json"),
          r,
        ),
      ).toMatchObject({
        kind: "rejected",
        status,
        error: { code },
      });
    }
    const html405 = classify(op, raw(405, '{"message":"The POST method is not supported"}', "application/json"), r);
    expect(html405).toMatchObject({ kind: "rejected", status: 405 });
    expect(html405.kind !== "success" && html405.error).toBeUndefined();
    expect(html405.kind !== "success" && html405.snippet).toContain("not supported");
    expect(classify(op, raw(409, envelope("conflict"), "application/json"), r)).toMatchObject({ kind: "conflict" });
    expect(
      classify(
        op,
        raw(429, envelope("rate_limit_exceeded", { retry_after: 3 }), "application/json", { "retry-after": "3" }),
        r,
      ),
    ).toMatchObject({
      kind: "rate_limited",
      retryAfter: "3",
    });
    expect(classify(op, raw(503, "<html>down</html>", "text/html"), r)).toMatchObject({
      kind: "unknown",
      reason: "server_error",
      snippet: "<html>down</html>",
    });
    expect(classify(op, raw(302, "", undefined, { location: "/x" }), r)).toMatchObject({
      kind: "unknown",
      reason: "unexpected_status",
    });
  });

  it("E4/x-unknown-outcome: resend retries, reconcile looks up, report stops; GET retries; 4xx stop; 429 pauses", () => {
    const state = { attempts: 1, rateLimitRetries: 0, maxAttempts: 6, maxRateLimitRetries: 10 };
    const timeout: AttemptResult = { kind: "transport", error: "timeout" };
    const server: AttemptResult = { kind: "unknown", reason: "server_error", status: 500 };
    expect(decide(operationTable["domains.renew"], timeout, state)).toEqual({ action: "retry", charge: "timeout" });
    expect(decide(operationTable["domains.renew"], server, state)).toEqual({ action: "retry", charge: "error" });
    expect(decide(operationTable["orders.create"], timeout, state)).toEqual({ action: "reconcile" });
    expect(decide(operationTable["webhooks.create"], timeout, state)).toEqual({ action: "give_up", why: "report" });
    expect(decide(operationTable["webhooks.rotateSecret"], server, state)).toEqual({
      action: "give_up",
      why: "report",
    });
    expect(decide(operationTable["tickets.create"], server, state)).toEqual({ action: "give_up", why: "report" });
    expect(decide(operationTable["context.get"], server, state)).toEqual({ action: "retry", charge: "error" });
    expect(decide(operationTable["context.get"], server, { ...state, attempts: 6 })).toEqual({
      action: "give_up",
      why: "max_attempts",
    });
    expect(decide(operationTable["domains.renew"], { kind: "rejected", status: 422 }, state)).toEqual({
      action: "stop",
    });
    expect(decide(operationTable["domains.renew"], { kind: "conflict", status: 409 }, state)).toEqual({
      action: "stop",
    });
    expect(
      decide(operationTable["webhooks.create"], { kind: "rate_limited", status: 429, retryAfter: "1" }, state),
    ).toEqual({ action: "rate_limit" });
    expect(
      decide(
        operationTable["webhooks.create"],
        { kind: "rate_limited", status: 429, retryAfter: "1" },
        { ...state, rateLimitRetries: 10 },
      ),
    ).toEqual({
      action: "stop",
    });
  });
});
