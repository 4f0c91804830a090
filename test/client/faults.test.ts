// E4/E5/G4 per emulator fault kind: what the client does with each, on domains.renew (x-unknown-outcome:
// resend). Every retry carries the same Idempotency-Key and the same body bytes; the emulator's
// effects ledger shows at most one renew per command.
import { describe, expect, it } from "vitest";
import type { FaultKind } from "../../emulator/index";
import { decode, requestsTo, setup } from "./harness";

const RENEW = "/domains/{domainUuid}/renew";

interface Row {
  kind: FaultKind;
  outcome: "accepted" | "conflict";
  replayed?: boolean;
  firstAttempt: { status?: number; error?: string };
  effects: number;
}

const rows: Row[] = [
  { kind: "timeout_before", outcome: "accepted", replayed: false, firstAttempt: { error: "timeout" }, effects: 1 },
  { kind: "timeout_after", outcome: "accepted", replayed: true, firstAttempt: { error: "timeout" }, effects: 1 },
  { kind: "reset_before", outcome: "accepted", replayed: false, firstAttempt: { error: "network" }, effects: 1 },
  { kind: "reset_after", outcome: "accepted", replayed: true, firstAttempt: { error: "network" }, effects: 1 },
  { kind: "error_500_after", outcome: "accepted", replayed: true, firstAttempt: { status: 500 }, effects: 1 },
  { kind: "error_503_before", outcome: "accepted", replayed: false, firstAttempt: { status: 503 }, effects: 1 },
  { kind: "proxy_502_html", outcome: "accepted", replayed: false, firstAttempt: { status: 502 }, effects: 1 },
  { kind: "proxy_429_date", outcome: "accepted", replayed: false, firstAttempt: { status: 429 }, effects: 1 },
  { kind: "retry_after_zero", outcome: "accepted", replayed: false, firstAttempt: { status: 429 }, effects: 1 },
  { kind: "rate_limit_no_header", outcome: "accepted", replayed: false, firstAttempt: { status: 429 }, effects: 1 },
  {
    kind: "truncated_json",
    outcome: "accepted",
    replayed: true,
    firstAttempt: { status: 202, error: "malformed_response" },
    effects: 1,
  },
  {
    kind: "empty_body",
    outcome: "accepted",
    replayed: true,
    firstAttempt: { status: 202, error: "malformed_response" },
    effects: 1,
  },
  // D6: the first attempt hangs while its record stays "processing"; the resend gets 409 — which is
  // reported as conflict, never dodged with a new key.
  { kind: "stuck_processing", outcome: "conflict", firstAttempt: { error: "timeout" }, effects: 0 },
];

describe("client: every emulator fault kind on domains.renew", () => {
  for (const row of rows) {
    it(`E4: ${row.kind} on renew → ${row.outcome}${row.replayed ? " (replayed)" : ""}, same key and bytes, ${
      row.effects
    } effect(s)`, async () => {
      const h = setup({ client: { timeoutMs: 10_000 } });
      h.emulator.control.addFault({ method: "POST", path: RENEW, kind: row.kind });
      const out = await h.client.domains.renew({ domainUuid: h.domainUuid, body: { period: 2 } });
      expect(out.kind).toBe(row.outcome);
      if (out.kind === "accepted") expect(out.replayed).toBe(row.replayed);
      expect(out.attempts[0]).toEqual(expect.objectContaining(row.firstAttempt));
      if (row.firstAttempt.status === undefined) expect(out.attempts[0].status).toBeUndefined();
      const sent = requestsTo(h.captured, "POST", "/renew");
      expect(sent.length).toBe(2);
      expect(new Set(sent.map((s) => s.headers["idempotency-key"])).size).toBe(1);
      expect(new Set(sent.map((s) => decode(s.body))).size).toBe(1);
      expect(decode(sent[0].body)).toBe('{"period":2}');
      expect(new Set(sent.map((s) => s.headers["x-request-id"])).size).toBe(2); // G2: per attempt
      expect(h.emulator.control.effects()).toHaveLength(row.effects);
      await h.emulator.close();
    });
  }

  it("C12: proxy_429_date — an HTTP-date Retry-After is honoured before the resend", async () => {
    const h = setup();
    h.emulator.control.addFault({ method: "POST", path: RENEW, kind: "proxy_429_date", retry_after_seconds: 7 });
    const out = await h.client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
    expect(out.kind).toBe("accepted");
    const sent = requestsTo(h.captured, "POST", "/renew");
    expect(sent[1].at - sent[0].at).toBeGreaterThanOrEqual(6_000); // HTTP-date has 1 s granularity
  });

  it("E4 report: webhooks.create after timeout_after → unknown at once, one attempt, no resend", async () => {
    const h = setup({ client: { timeoutMs: 10_000 } });
    h.emulator.control.addFault({ method: "POST", path: "/webhooks", kind: "timeout_after" });
    const out = await h.client.webhooks.create({
      body: { url: "https://hooks.example/x", events: ["domain.renewed"] },
    });
    expect(out.kind).toBe("unknown");
    if (out.kind !== "unknown") return;
    expect(out.reason).toBe("timeout");
    expect(out.cause?.name).toBe("TimeoutError");
    expect(out.attempts).toHaveLength(1);
    expect(requestsTo(h.captured, "POST", "/webhooks")).toHaveLength(1);
    expect(h.events.some((e) => e.type === "unknown-outcome")).toBe(true);
  });

  it("E4 report: tickets.create (live) after a 5xx → unknown, not resent", async () => {
    const h = setup({ environment: "live" });
    h.emulator.control.addFault({ method: "POST", path: "/tickets", kind: "error_500_after" });
    const out = await h.client.tickets.create({ body: { subject: "Renewal check", message: "Please check" } });
    expect(out.kind).toBe("unknown");
    if (out.kind !== "unknown") return;
    expect(out.status).toBe(500);
    expect(out.reason).toBe("server_error");
    expect(requestsTo(h.captured, "POST", "/tickets")).toHaveLength(1);
  });

  it("E4: a GET retries after reset_before and truncated_json, bounded", async () => {
    const h = setup();
    h.emulator.control.addFault({ method: "GET", path: "/domains/{domainUuid}", kind: "reset_before" });
    h.emulator.control.addFault({ method: "GET", path: "/domains/{domainUuid}", kind: "truncated_json" });
    const out = await h.client.domains.get({ domainUuid: h.domainUuid });
    expect(out.kind).toBe("succeeded");
    expect(out.attempts.map((a) => a.error ?? a.status)).toEqual(["network", "malformed_response", 200]);
  });

  it("E4: retries are bounded — a renew that keeps failing ends unknown after maxAttempts, one key throughout", async () => {
    const h = setup({ client: { retry: { maxAttempts: 3 } } });
    h.emulator.control.addFault({ method: "POST", path: RENEW, kind: "error_503_before", times: 100 });
    const out = await h.client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
    expect(out.kind).toBe("unknown");
    if (out.kind !== "unknown") return;
    expect(out.reason).toBe("server_error");
    expect(out.error?.code).toBe("internal_error");
    expect(out.attempts).toHaveLength(3);
    const sent = requestsTo(h.captured, "POST", "/renew");
    expect(new Set(sent.map((s) => s.headers["idempotency-key"])).size).toBe(1);
    // I2: exponential backoff with jitter between the attempts (base 1 s → 0.5..1.5 s, then 1..3 s).
    expect(out.attempts[1].delayMs).toBeGreaterThanOrEqual(500);
    expect(out.attempts[1].delayMs).toBeLessThanOrEqual(1500 + 50);
    expect(out.attempts[2].delayMs).toBeGreaterThanOrEqual(1000);
    expect(out.attempts[2].delayMs).toBeLessThanOrEqual(3000 + 50);
  });
});
