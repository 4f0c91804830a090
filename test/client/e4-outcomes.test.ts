// E4/E5: one test per row of the decision table, against the in-process emulator (or, for bodies
// the emulator cannot produce through the facade, a custom fetch shaped like a router/proxy).
import { describe, expect, it } from "vitest";
import { decode, requestsTo, setup } from "./harness";

const renewArgs = (domainUuid: string, period = 1) => ({ domainUuid, body: { period } }) as never;

describe("client: E4 decision table", () => {
  it("E4 2xx: context.get → succeeded with data, request id and the rate-limit snapshot", async () => {
    const h = setup({ rateLimit: 500 });
    const out = await h.client.context.get();
    expect(out.kind).toBe("succeeded");
    if (out.kind !== "succeeded") return;
    expect(out.replayed).toBe(false);
    expect((out.data as { data: { environment: string } }).data.environment).toBe("test");
    expect(out.attempts).toEqual([expect.objectContaining({ status: 200, delayMs: expect.any(Number) })]);
    expect(out.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(out.rateLimit).toEqual({ limit: 500, remaining: 499 });
    expect(out.idempotencyKey).toBeUndefined();
    // A5: the limit is learnt from data.credential.rate_limit_per_minute.
    expect(h.client.pacer.snapshot(h.publicKeyId).limit).toBe(500);
  });

  it("E4 202 / F1: renew → accepted, keeps the operation uuid", async () => {
    const h = setup();
    const out = await h.client.domains.renew(renewArgs(h.domainUuid));
    expect(out.kind).toBe("accepted");
    if (out.kind !== "accepted") return;
    expect(out.operationUuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(out.operation.uuid).toBe(out.operationUuid);
    expect(out.status).toBe(202);
    expect(out.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("E4 400 request_failed: malformed JSON bytes → rejected, not repeated", async () => {
    const h = setup();
    const body = new TextEncoder().encode('{"period": 1');
    const out = await h.client.domains.renew({ domainUuid: h.domainUuid, body } as never);
    expect(out.kind).toBe("rejected");
    if (out.kind !== "rejected") return;
    expect(out.status).toBe(400);
    expect(out.error?.code).toBe("request_failed");
    expect(out.attempts).toHaveLength(1);
    expect(decode(h.captured[0].body)).toBe('{"period": 1'); // D4: exact bytes
  });

  it("E4 401 unauthenticated: a well-formed but unknown token → rejected, no retry", async () => {
    const h = setup();
    const other = h.makeClient({ token: `rsl_test_${"Z".repeat(24)}.${"q".repeat(64)}` });
    const out = await other.domains.renew(renewArgs(h.domainUuid));
    expect(out.kind).toBe("rejected");
    if (out.kind !== "rejected") return;
    expect(out.status).toBe(401);
    expect(out.error?.code).toBe("unauthenticated");
    expect(requestsTo(h.captured, "POST", "/renew")).toHaveLength(1);
  });

  it("E4 403 forbidden: domains.read cannot renew (A6) → rejected, no retry", async () => {
    const h = setup({ scopes: ["domains.read"] });
    const out = await h.client.domains.renew(renewArgs(h.domainUuid));
    expect(out.kind).toBe("rejected");
    if (out.kind !== "rejected") return;
    expect(out.status).toBe(403);
    expect(out.error?.code).toBe("forbidden");
    expect(out.attempts).toHaveLength(1);
    expect(h.emulator.control.effects()).toHaveLength(0);
  });

  it("E4 404 resource_not_found: an unknown domain uuid → rejected", async () => {
    const h = setup();
    const out = await h.client.domains.get({ domainUuid: "00000000-0000-4000-8000-000000000000" });
    expect(out.kind).toBe("rejected");
    if (out.kind !== "rejected") return;
    expect(out.status).toBe(404);
    expect(out.error?.code).toBe("resource_not_found");
    expect(out.attempts).toHaveLength(1);
  });

  it("E4 405 / E5: the router's message-only JSON → rejected with a snippet, no typed error", async () => {
    const h = setup();
    const client = h.makeClient({
      fetch: async () =>
        new Response(
          '{"message":"The POST method is not supported for route api/reseller/v1/context. Supported methods: GET, HEAD."}',
          {
            status: 405,
            headers: { "content-type": "application/json" },
          },
        ),
    });
    const out = await client.domains.check({ body: { names: ["a.kz"] } });
    expect(out.kind).toBe("rejected");
    if (out.kind !== "rejected") return;
    expect(out.status).toBe(405);
    expect(out.error).toBeUndefined();
    expect(out.snippet).toContain("not supported");
    expect(out.attempts).toHaveLength(1);
  });

  it("E4 409 conflict: same key, different bytes → conflict, never a new key", async () => {
    const h = setup();
    const key = "order-2026-10-05-renew-1";
    const first = await h.client.domains.renew(renewArgs(h.domainUuid, 1), { idempotencyKey: key });
    expect(first.kind).toBe("accepted");
    const second = await h.client.domains.renew(renewArgs(h.domainUuid, 2), { idempotencyKey: key });
    expect(second.kind).toBe("conflict");
    if (second.kind !== "conflict") return;
    expect(second.error?.code).toBe("conflict");
    expect(second.attempts).toHaveLength(1);
    const sent = requestsTo(h.captured, "POST", "/renew").map((c) => c.headers["idempotency-key"]);
    expect(sent).toEqual([key, key]);
    expect(h.emulator.control.effects()).toHaveLength(1);
  });

  it("E4 422 validation_failed: field errors come back typed, no retry", async () => {
    const h = setup();
    const out = await h.client.domains.renew(renewArgs(h.domainUuid, 0));
    expect(out.kind).toBe("rejected");
    if (out.kind !== "rejected") return;
    expect(out.status).toBe(422);
    expect(out.error?.code).toBe("validation_failed");
    expect(out.error?.details).toHaveProperty("period");
    expect(out.attempts).toHaveLength(1);
  });

  it("E4 429: the limiter's 429 pauses the key, then the SAME command goes again", async () => {
    const h = setup();
    h.emulator.control.addFault({ method: "POST", path: "/domains/{domainUuid}/renew", kind: "rate_limit_no_header" });
    const out = await h.client.domains.renew(renewArgs(h.domainUuid));
    expect(out.kind).toBe("accepted");
    const sent = requestsTo(h.captured, "POST", "/renew");
    expect(sent).toHaveLength(2);
    expect(sent[1].headers["idempotency-key"]).toBe(sent[0].headers["idempotency-key"]);
    expect(sent[1].headers["x-request-id"]).not.toBe(sent[0].headers["x-request-id"]);
    expect(out.attempts.map((a) => a.status)).toEqual([429, 202]);
    expect(sent[1].at - sent[0].at).toBeGreaterThanOrEqual(250); // no busy loop
  });

  it("E4 5xx: error_500_after on renew → resend with the same key and bytes → replayed accepted, one effect", async () => {
    const h = setup();
    h.emulator.control.addFault({ method: "POST", path: "/domains/{domainUuid}/renew", kind: "error_500_after" });
    const out = await h.client.domains.renew(renewArgs(h.domainUuid));
    expect(out.kind).toBe("accepted");
    if (out.kind !== "accepted") return;
    expect(out.replayed).toBe(true);
    expect(out.attempts.map((a) => a.status)).toEqual([500, 202]);
    const sent = requestsTo(h.captured, "POST", "/renew");
    expect(decode(sent[1].body)).toBe(decode(sent[0].body));
    expect(sent[1].headers["idempotency-key"]).toBe(sent[0].headers["idempotency-key"]);
    expect(h.emulator.control.effects().filter((e) => e.kind.includes("renew"))).toHaveLength(1);
  });

  it("E4 timeout: a GET that hangs times out, is retried, and succeeds; the first attempt has no status", async () => {
    const h = setup({ client: { timeoutMs: 5000 } });
    h.emulator.control.addFault({ method: "GET", path: "/context", kind: "timeout_before" });
    const out = await h.client.context.get();
    expect(out.kind).toBe("succeeded");
    expect(out.attempts[0]).toEqual(expect.objectContaining({ error: "timeout" }));
    expect(out.attempts[0].status).toBeUndefined();
    expect(out.attempts[1].status).toBe(200);
    expect(out.attempts[1].delayMs).toBeGreaterThan(0); // backoff before the retry
  });

  it("E4 non-JSON: an HTML 502 from a proxy is unknown, not failed; GET retries it", async () => {
    const h = setup();
    h.emulator.control.addFault({ method: "GET", path: "/context", kind: "proxy_502_html", times: 10 });
    const out = await h.client.context.get();
    expect(out.kind).toBe("unknown");
    if (out.kind !== "unknown") return;
    expect(out.reason).toBe("server_error");
    expect(out.status).toBe(502);
    expect(out.snippet).toContain("502 Bad Gateway");
    expect(new TextEncoder().encode(out.snippet).byteLength).toBeLessThanOrEqual(2048);
    expect(out.attempts).toHaveLength(6); // 1 + 5 retries (seed 002)
  });

  it("E5: a huge HTML error body is kept as a ≤ 2 KiB snippet", async () => {
    const h = setup();
    const client = h.makeClient({
      fetch: async () =>
        new Response(`<html>${"é".repeat(5000)}</html>`, { status: 404, headers: { "content-type": "text/html" } }),
    });
    const out = await client.context.get();
    expect(out.kind).toBe("rejected");
    if (out.kind !== "rejected") return;
    expect(new TextEncoder().encode(out.snippet).byteLength).toBeLessThanOrEqual(2048);
    expect(out.snippet!.length).toBeGreaterThan(500);
  });

  it("G3: a 204 is never decoded (webhooks.delete)", async () => {
    const h = setup();
    const created = await h.client.webhooks.create({
      body: { url: "https://hooks.example/a", events: ["domain.renewed"] },
    });
    expect(created.kind).toBe("succeeded");
    if (created.kind !== "succeeded") return;
    const uuid = (created.data as { data: { uuid: string } }).data.uuid;
    const del = await h.client.webhooks.delete({ webhookUuid: uuid });
    expect(del.kind).toBe("succeeded");
    if (del.kind !== "succeeded") return;
    expect(del.status).toBe(204);
    expect(del.data).toBeUndefined();
    expect(requestsTo(h.captured, "DELETE", uuid)[0].body).toBeNull();
  });
});
