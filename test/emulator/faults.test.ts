// Fault injection: every kind, and what each leaves committed.
import { describe, expect, it } from "vitest";
import { BASE, call, firstDomain, json, setup } from "./helpers";

const RENEW = "/domains/{domainUuid}/renew";

async function renewSetup() {
  const s = setup();
  const domain = await firstDomain(s.emu, s.live.token);
  const renew = (key: string, signal?: AbortSignal) =>
    call(s.emu, s.live.token, `/domains/${domain}/renew`, { body: { period: 1 }, key, signal });
  const renews = () => s.emu.control.effects().filter((e) => e.kind === "domain.renew").length;
  return { ...s, domain, renew, renews };
}

/** Starts a request that should hang, then aborts it the way a client timeout would. */
async function hangThenAbort(start: (signal: AbortSignal) => Promise<Response>): Promise<unknown> {
  const ctrl = new AbortController();
  const pending = start(ctrl.signal);
  let settled = false;
  void pending.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  expect(settled).toBe(false); // still hanging
  ctrl.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError"));
  return pending.then(
    () => null,
    (e: unknown) => e,
  );
}

describe("faults", () => {
  it("timeout_before: hangs until the caller aborts (rejects with the signal's reason); nothing committed or counted", async () => {
    const { emu, live, renew, renews } = await renewSetup();
    const before = emu.control.counters()[live.public_key_id].count;
    emu.control.addFault({ method: "POST", path: RENEW, kind: "timeout_before" });
    const error = await hangThenAbort((signal) => renew("t1", signal));
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe("TimeoutError");
    expect(renews()).toBe(0);
    expect(emu.control.counters()[live.public_key_id].count).toBe(before);
    const retry = await renew("t1");
    expect(retry.status).toBe(202);
    expect(retry.headers.get("idempotency-replayed")).toBeNull(); // it really runs now
    expect(renews()).toBe(1);
  });

  it("timeout_after: commits, then hangs; a retry with the same key replays the stored success", async () => {
    const { emu, renew, renews } = await renewSetup();
    emu.control.addFault({ method: "POST", path: RENEW, kind: "timeout_after" });
    await hangThenAbort((signal) => renew("t2", signal));
    expect(renews()).toBe(1);
    const retry = await renew("t2");
    expect(retry.status).toBe(202);
    expect(retry.headers.get("idempotency-replayed")).toBe("true");
    expect(renews()).toBe(1);
  });

  it("reset_before: rejects like undici (TypeError fetch failed, cause UND_ERR_SOCKET); nothing committed", async () => {
    const { emu, renew, renews } = await renewSetup();
    emu.control.addFault({ method: "POST", path: RENEW, kind: "reset_before" });
    const error = (await renew("r1").catch((e: unknown) => e)) as TypeError & { cause: { code: string } };
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe("fetch failed");
    expect(error.cause.code).toBe("UND_ERR_SOCKET");
    expect(renews()).toBe(0);
    expect((await renew("r1")).headers.get("idempotency-replayed")).toBeNull();
  });

  it("reset_after: commits, then drops the connection; the retry replays", async () => {
    const { emu, renew, renews } = await renewSetup();
    emu.control.addFault({ method: "POST", path: RENEW, kind: "reset_after" });
    await expect(renew("r2")).rejects.toThrow("fetch failed");
    expect(renews()).toBe(1);
    expect((await renew("r2")).headers.get("idempotency-replayed")).toBe("true");
  });

  it("error_500_after: commits and answers a 500 internal_error envelope; the retry replays the stored success", async () => {
    const { emu, renew, renews } = await renewSetup();
    emu.control.addFault({ method: "POST", path: RENEW, kind: "error_500_after" });
    const res = await renew("e1");
    expect(res.status).toBe(500);
    const body = await json(res);
    expect(body.error).toMatchObject({ code: "internal_error", details: [] });
    expect(body.error.request_id).toBe(res.headers.get("x-request-id"));
    expect(renews()).toBe(1);
    const retry = await renew("e1");
    expect(retry.status).toBe(202);
    expect(retry.headers.get("idempotency-replayed")).toBe("true");
    expect(renews()).toBe(1);
  });

  it("error_503_before: 503 internal_error envelope, nothing committed or counted; the retry executes", async () => {
    const { emu, live, renew, renews } = await renewSetup();
    const before = emu.control.counters()[live.public_key_id].count;
    emu.control.addFault({ method: "POST", path: RENEW, kind: "error_503_before" });
    const res = await renew("e2");
    expect(res.status).toBe(503);
    expect((await json(res)).error.code).toBe("internal_error");
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    expect(renews()).toBe(0);
    expect(emu.control.counters()[live.public_key_id].count).toBe(before);
    const retry = await renew("e2");
    expect([retry.status, retry.headers.get("idempotency-replayed")]).toEqual([202, null]);
  });

  it("proxy_502_html: a 502 HTML page without X-Request-ID; nothing committed", async () => {
    const { emu, renew, renews } = await renewSetup();
    emu.control.addFault({ method: "POST", path: RENEW, kind: "proxy_502_html" });
    const res = await renew("p1");
    expect(res.status).toBe(502);
    expect(res.headers.get("content-type")).toBe("text/html");
    expect(res.headers.get("x-request-id")).toBeNull();
    expect(await res.text()).toContain("<html>");
    expect(renews()).toBe(0);
  });

  it("proxy_429_date: an HTML 429 with an HTTP-date Retry-After N s ahead, no envelope, no hit", async () => {
    const { emu, live, clock } = await renewSetup();
    const before = emu.control.counters()[live.public_key_id].count;
    emu.control.addFault({ method: "GET", path: "/context", kind: "proxy_429_date", retry_after_seconds: 7 });
    const res = await call(emu, live.token, "/context");
    expect(res.status).toBe(429);
    expect(res.headers.get("content-type")).toBe("text/html");
    const at = Date.parse(res.headers.get("retry-after")!);
    expect(at - clock.now()).toBe(7_000);
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    expect(emu.control.counters()[live.public_key_id].count).toBe(before);
    expect((await call(emu, live.token, "/context")).status).toBe(200); // fired once
  });

  it("retry_after_zero: the limiter's 429 with Retry-After: 0 and details.retry_after 0, no hit", async () => {
    const { emu, live } = await renewSetup();
    const before = emu.control.counters()[live.public_key_id].count;
    emu.control.addFault({ method: "GET", path: "/context", kind: "retry_after_zero" });
    const res = await call(emu, live.token, "/context");
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("0");
    expect((await json(res)).error).toMatchObject({ code: "rate_limit_exceeded", details: { retry_after: 0 } });
    expect(emu.control.counters()[live.public_key_id].count).toBe(before);
  });

  it("rate_limit_no_header: the limiter's 429 without Retry-After (and without X-RateLimit-*)", async () => {
    const { emu, live } = await renewSetup();
    emu.control.addFault({ method: "GET", path: "/context", kind: "rate_limit_no_header" });
    const res = await call(emu, live.token, "/context");
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBeNull();
    expect(res.headers.get("x-ratelimit-remaining")).toBeNull();
    expect(res.headers.get("x-request-id")).toBeTruthy();
    const body = await json(res);
    expect(body.error.code).toBe("rate_limit_exceeded");
    expect(Number.isInteger(body.error.details.retry_after)).toBe(true);
  });

  it("truncated_json: commits, then a 2xx body cut in the middle labelled application/json; the retry replays it whole", async () => {
    const { emu, renew, renews } = await renewSetup();
    emu.control.addFault({ method: "POST", path: RENEW, kind: "truncated_json" });
    const res = await renew("tj");
    expect(res.status).toBe(202);
    expect(res.headers.get("content-type")).toBe("application/json");
    const text = await res.text();
    expect(() => JSON.parse(text)).toThrow();
    expect(text.length).toBeGreaterThan(0);
    expect(renews()).toBe(1);
    const retry = await renew("tj");
    expect((await json(retry)).data.action).toBe("renew");
  });

  it("empty_body: commits, answers its status with an empty body", async () => {
    const { emu, renew, renews } = await renewSetup();
    emu.control.addFault({ method: "POST", path: RENEW, kind: "empty_body" });
    const res = await renew("eb");
    expect(res.status).toBe(202);
    expect(await res.text()).toBe("");
    expect(renews()).toBe(1);
    expect((await renew("eb")).headers.get("idempotency-replayed")).toBe("true");
  });

  it("stuck_processing: the record stays processing, the request hangs, every repeat gets 409; nothing executes", async () => {
    const { emu, renew, renews, clock } = await renewSetup();
    emu.control.addFault({ method: "POST", path: RENEW, kind: "stuck_processing" });
    await hangThenAbort((signal) => renew("st", signal));
    clock.advance(600_000);
    for (let i = 0; i < 3; i++) expect((await renew("st")).status).toBe(409);
    expect(renews()).toBe(0);
  });

  it("faults match method + template, fire `times` times, honour probability, and clearFaults removes them", async () => {
    const { emu, live, renew } = await renewSetup();
    emu.control.addFault({ method: "GET", path: "/context", kind: "proxy_502_html", times: 2 });
    emu.control.addFault({ method: "GET", path: "/domains", kind: "proxy_502_html", probability: 0 });
    expect((await call(emu, live.token, "/domains")).status).toBe(200);
    expect((await renew("other")).status).toBe(202); // a different route is untouched
    expect((await call(emu, live.token, "/context")).status).toBe(502);
    expect((await call(emu, live.token, "/context")).status).toBe(502);
    expect((await call(emu, live.token, "/context")).status).toBe(200);
    expect(emu.control.faults()).toHaveLength(1);
    emu.control.clearFaults();
    expect(emu.control.faults()).toEqual([]);
    expect(() => emu.control.addFault({ method: "GET", path: "/context", kind: "nope" as never })).toThrow();
  });

  it("handle() hands socket faults to the server adapter as {kind:'hang'} / {kind:'reset'}", async () => {
    const { emu, live } = await renewSetup();
    emu.control.addFault({ method: "GET", path: "/context", kind: "timeout_before" });
    emu.control.addFault({ method: "GET", path: "/domains", kind: "reset_after" });
    const req = (p: string) => new Request(BASE + p, { headers: { authorization: `Bearer ${live.token}` } });
    expect(await emu.handle(req("/context"))).toEqual({ kind: "hang" });
    expect(await emu.handle(req("/domains"))).toEqual({ kind: "reset" });
  });

  it("close() ends hung in-process requests like a closed connection", async () => {
    const { emu, live } = await renewSetup();
    emu.control.addFault({ method: "GET", path: "/context", kind: "timeout_before" });
    const pending = call(emu, live.token, "/context");
    await new Promise((r) => setImmediate(r));
    await emu.close();
    await expect(pending).rejects.toThrow("fetch failed");
  });
});
