// C12/G4: a 429 pauses the WHOLE queue of that key for Retry-After (+ margin), then the same commands
// go again; Retry-After: 0 is not a busy loop. The pacer has its own tests; this checks
// that the client routes every attempt of every command through it.
import { describe, expect, it } from "vitest";
import { setup } from "./harness";

describe("client: 429 pauses the whole key", () => {
  it("C12: two+ concurrent commands on one key — nothing is sent after a 429 until its Retry-After elapsed", async () => {
    const h = setup({ rateLimit: 3 });
    // A proxy that strips X-RateLimit-* keeps our pacer ignorant of the real limit (3), so the
    // server's own limiter answers 429 with Retry-After.
    const stripping = async (request: Request) => {
      const res = await h.fetch(request);
      const headers = new Headers(res.headers);
      headers.delete("x-ratelimit-limit");
      headers.delete("x-ratelimit-remaining");
      return new Response(await res.arrayBuffer(), { status: res.status, headers });
    };
    // No call deadline: this checks the pause itself (a full window's Retry-After + margin > the 60 s default).
    const client = h.makeClient({
      fetch: stripping,
      pacing: { initialLimit: 1000 },
      deadlineMs: Number.POSITIVE_INFINITY,
    });
    const outs = await Promise.all(Array.from({ length: 6 }, () => client.domains.get({ domainUuid: h.domainUuid })));
    expect(outs.map((o) => o.kind)).toEqual(Array(6).fill("succeeded"));
    const log = h.emulator.control.requests();
    const first429 = log.findIndex((r) => r.status === 429);
    expect(first429).toBeGreaterThan(0);
    const t429 = Date.parse(log[first429].at);
    expect(outs.flatMap((o) => o.attempts).some((a) => a.status === 429)).toBe(true);
    // Every request sent strictly after the 429 waited for the server window to reset.
    const after = log.filter((r) => Date.parse(r.at) > t429);
    expect(after.length).toBeGreaterThan(0);
    for (const r of after) expect(Date.parse(r.at) - t429).toBeGreaterThanOrEqual(50_000);
    // And the retried commands kept their identity: each 429'd command succeeded on a later attempt.
    for (const o of outs.filter((o) => o.attempts.length > 1)) {
      expect(o.attempts[0].status).toBe(429);
      expect(o.attempts.at(-1)!.status).toBe(200);
    }
    expect(h.events.some((e) => e.type === "pause")).toBe(true);
    expect(h.events.some((e) => e.type === "pacing" && e.event.type === "pause")).toBe(true);
  });

  it("C12: Retry-After: 0 does not become a busy loop", async () => {
    const h = setup();
    h.emulator.control.addFault({ method: "GET", path: "/context", kind: "retry_after_zero", times: 3 });
    const out = await h.client.context.get();
    expect(out.kind).toBe("succeeded");
    expect(out.attempts.map((a) => a.status)).toEqual([429, 429, 429, 200]);
    const sends = h.captured.map((c) => c.at);
    for (let i = 1; i < sends.length; i++) expect(sends[i] - sends[i - 1]).toBeGreaterThanOrEqual(250);
  });

  it("C12: 429 retries are bounded — after maxRateLimitRetries the command is rejected (nothing happened)", async () => {
    const h = setup({ client: { retry: { maxRateLimitRetries: 2 } } });
    h.emulator.control.addFault({
      method: "POST",
      path: "/domains/{domainUuid}/renew",
      kind: "rate_limit_no_header",
      times: 10,
    });
    const out = await h.client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
    expect(out.kind).toBe("rejected");
    if (out.kind !== "rejected") return;
    expect(out.status).toBe(429);
    expect(out.error?.code).toBe("rate_limit_exceeded");
    expect(out.attempts).toHaveLength(3);
    expect(h.emulator.control.effects()).toHaveLength(0);
  });
});
