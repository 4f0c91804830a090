// Faults as real network failures: the emulator behind node:http on an ephemeral loopback port, driven by
// the global fetch (undici). What an in-process fetch can only simulate — a socket that never answers, a
// connection reset, a body cut short — happens here on a real TCP connection.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { FaultKind } from "../../emulator/types";
import { firstDomainUuid, networkFailure, startHarness, type PortHarness } from "./harness";

const RENEW = "/domains/{domainUuid}/renew";
const RENEW_BODY = '{"period":1}';

let h: PortHarness;
let domainUuid: string;
let keySeq = 0;

beforeAll(async () => {
  h = await startHarness();
  domainUuid = await firstDomainUuid(h);
});
afterAll(async () => {
  await h?.close();
});
afterEach(async () => {
  await h.control.clearFaults();
});

function renew(idempotencyKey: string, init: RequestInit = {}) {
  return h.api(`/domains/${domainUuid}/renew`, {
    method: "POST",
    body: RENEW_BODY,
    headers: { "idempotency-key": idempotencyKey },
    ...init,
  });
}

async function executions(idempotencyKey: string): Promise<number> {
  return (await h.control.effects()).filter((e) => e.idempotency_key === idempotencyKey).length;
}

async function fault(kind: FaultKind, path = RENEW, method = "POST") {
  await h.control.addFault({ method, path, kind, times: 1 });
}

const freshKey = (label: string) => `port-${label}-${process.pid}-${++keySeq}`;

describe("emulator server over a real port", () => {
  it("A5/C10: GET /context → 200 with X-RateLimit-Limit/Remaining and X-Request-ID", async () => {
    const response = await h.api("/context", { headers: { "x-request-id": "port-ctx-1" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.headers.get("x-ratelimit-limit")).toMatch(/^\d+$/);
    expect(response.headers.get("x-ratelimit-remaining")).toMatch(/^\d+$/);
    expect(response.headers.get("x-request-id")).toBe("port-ctx-1");
    const body = (await response.json()) as { data: { environment: string; credential: { public_key_id: string } } };
    expect(body.data.environment).toBe("test");
    expect(body.data.credential.public_key_id).toBe(h.testKey.public_key_id);
  });

  it("D4: the exact body bytes cross the wire — same key, re-spaced JSON → 409 conflict; same bytes → replay", async () => {
    const key = freshKey("d4");
    const send = (body: string) =>
      h.api("/domains/check", { method: "POST", body, headers: { "idempotency-key": key } });
    const first = await send('{"names":["port-d4.kz"]}');
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotency-replayed")).toBeNull();
    const respaced = await send('{"names": ["port-d4.kz"]}');
    expect(respaced.status).toBe(409);
    expect(((await respaced.json()) as { error: { code: string } }).error.code).toBe("conflict");
    const same = await send('{"names":["port-d4.kz"]}');
    expect(same.status).toBe(200);
    expect(same.headers.get("idempotency-replayed")).toBe("true");
    expect(await same.json()).toEqual(await first.json());
  });

  it("E4 unknown outcome: timeout_before — client times out, nothing executed; the retry executes once", async () => {
    const key = freshKey("tb");
    await fault("timeout_before");
    const failure = await networkFailure(renew(key, { signal: AbortSignal.timeout(400) }));
    expect(failure.name).toBe("TimeoutError");
    expect(await executions(key)).toBe(0);
    const retry = await renew(key);
    expect(retry.status).toBe(202);
    expect(retry.headers.get("idempotency-replayed")).toBeNull();
    expect(await executions(key)).toBe(1);
  });

  it("E4/D5: timeout_after — executed and committed while the client timed out; same-key retry replays, one execution", async () => {
    const key = freshKey("ta");
    await fault("timeout_after");
    const failure = await networkFailure(renew(key, { signal: AbortSignal.timeout(400) }));
    expect(failure.name).toBe("TimeoutError");
    expect(await executions(key)).toBe(1);
    const retry = await renew(key);
    expect(retry.status).toBe(202);
    expect(retry.headers.get("idempotency-replayed")).toBe("true");
    const body = (await retry.json()) as { data: { uuid: string; action: string } };
    expect(body.data.action).toBe("renew");
    expect(await executions(key)).toBe(1);
  });

  it("E4: reset_before — the connection is dropped (fetch failed, ECONNRESET/UND_ERR_SOCKET), nothing executed", async () => {
    const key = freshKey("rb");
    await fault("reset_before");
    const failure = await networkFailure(renew(key));
    expect(failure.name).toBe("TypeError");
    expect(failure.message).toBe("fetch failed");
    expect(["ECONNRESET", "UND_ERR_SOCKET"]).toContain(failure.code);
    expect(await executions(key)).toBe(0);
    const retry = await renew(key);
    expect(retry.status).toBe(202);
    expect(retry.headers.get("idempotency-replayed")).toBeNull();
    expect(await executions(key)).toBe(1);
  });

  it("E4/D5: reset_after — dropped after the commit; same-key retry replays the stored 202, one execution", async () => {
    const key = freshKey("ra");
    await fault("reset_after");
    const failure = await networkFailure(renew(key));
    expect(failure.message).toBe("fetch failed");
    expect(["ECONNRESET", "UND_ERR_SOCKET"]).toContain(failure.code);
    expect(await executions(key)).toBe(1);
    const retry = await renew(key);
    expect(retry.status).toBe(202);
    expect(retry.headers.get("idempotency-replayed")).toBe("true");
    expect(await executions(key)).toBe(1);
  });

  it("E5: proxy_502_html — a proxy's HTML 502 over the wire, no X-Request-ID, no envelope", async () => {
    await fault("proxy_502_html", "/context", "GET");
    const response = await h.api("/context");
    expect(response.status).toBe(502);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.headers.get("x-request-id")).toBeNull();
    const text = await response.text();
    expect(text).toMatch(/<html/i);
    expect(() => JSON.parse(text)).toThrow();
  });

  it("C12: proxy_429_date — a proxy's 429 with an HTTP-date Retry-After and no X-RateLimit-* crosses the wire", async () => {
    await fault("proxy_429_date", "/context", "GET");
    const response = await h.api("/context");
    expect(response.status).toBe(429);
    const retryAfter = response.headers.get("retry-after");
    expect(retryAfter).not.toBeNull();
    expect(Number.isNaN(Date.parse(retryAfter!))).toBe(false);
    expect(retryAfter).not.toMatch(/^\d+$/);
    expect(response.headers.get("x-ratelimit-limit")).toBeNull();
    await response.arrayBuffer();
  });

  it("E5: truncated_json — the body arrives cut short and does not decode as JSON", async () => {
    await fault("truncated_json", "/context", "GET");
    const response = await h.api("/context");
    const text = await response.text();
    expect(text.length).toBeGreaterThan(0);
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    // It is a prefix of a real context answer, which decodes fine.
    const whole = await (await h.api("/context")).text();
    expect(whole.startsWith(text)).toBe(true);
    expect(() => JSON.parse(whole)).not.toThrow();
  });

  it("E5: empty_body — a status with zero body bytes over the wire", async () => {
    await fault("empty_body", "/context", "GET");
    const response = await h.api("/context");
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(bytes.length).toBe(0);
    expect(response.headers.get("content-length") ?? "0").toBe("0");
  });

  it("E4: error_503_before — a 5xx before execution; the same-key retry executes once (D5: no replay of a 5xx)", async () => {
    const key = freshKey("e503");
    await fault("error_503_before");
    const response = await renew(key);
    expect(response.status).toBe(503);
    expect(await executions(key)).toBe(0);
    const retry = await renew(key);
    expect(retry.status).toBe(202);
    expect(retry.headers.get("idempotency-replayed")).toBeNull();
    expect(await executions(key)).toBe(1);
  });

  it("G3: 204 No Content crosses the wire with no body (webhooks.delete)", async () => {
    const created = await h.api("/webhooks", {
      method: "POST",
      body: JSON.stringify({ url: "https://hooks.example/port", events: ["domain.renewed"] }),
      headers: { "idempotency-key": freshKey("wh") },
    });
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as { data: { uuid: string } };
    const deleted = await h.api(`/webhooks/${data.uuid}`, {
      method: "DELETE",
      headers: { "idempotency-key": freshKey("whd") },
    });
    expect(deleted.status).toBe(204);
    expect((await deleted.arrayBuffer()).byteLength).toBe(0);
  });

  it("E5: router 405 over the wire — message-only JSON, not counted", async () => {
    const response = await h.api("/context", {
      method: "POST",
      body: "{}",
      headers: { "idempotency-key": freshKey("405") },
    });
    expect(response.status).toBe(405);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({
      message: "The POST method is not supported for route api/reseller/v1/context. Supported methods: GET, HEAD.",
    });
  });
});
