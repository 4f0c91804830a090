// The pure recovery planner (recovery/plan.ts): what recover() may do with one journalled
// command — never a new key or new bytes; resends only inside the replay TTL, or past it only for
// async domain operations (D7); `report` writes and undecidable cases → manual check (F4).
import { describe, expect, it } from "vitest";
import { operationTable } from "../../generated/operations";
import type { CommandRecord } from "../../journal";
import {
  pathParamsOf,
  pauseAfterJournalled429,
  planRecovery,
  possiblySent,
  requestIdsOf,
  withinReplayTtl,
} from "../../recovery";

const H = 3_600_000;
const opts = { replayTtlMs: 24 * H, safetyMarginMs: H, asyncResendPastTtl: true };
const NOW = 1_800_000_000_000;

function rec(over: Partial<CommandRecord>): CommandRecord {
  return {
    id: "c1",
    environment: "test",
    apiKeyId: "K".repeat(24),
    operationId: "domains.renew",
    method: "POST",
    path: "/domains/11111111-1111-4111-8111-111111111111/renew",
    query: "",
    body: new TextEncoder().encode('{"period":1}'),
    bodyPruned: false,
    fingerprint: "0".repeat(64),
    idempotencyKey: "k1",
    externalId: null,
    lockKey: null,
    createdAt: NOW - H,
    state: "sending",
    updatedAt: NOW - H,
    owner: null,
    leaseUntil: null,
    attempts: [],
    resources: {},
    response: null,
    reconciliation: null,
    manualCheck: null,
    ...over,
  };
}

describe("recovery plan", () => {
  it("G1: `recorded` may have been sent (sending is written with the first attempt) → treated like sending", () => {
    expect(possiblySent(rec({ state: "recorded" }))).toBe(true);
    expect(planRecovery(rec({ state: "recorded" }), NOW, opts)).toEqual({ action: "resend", pastTtl: false });
    expect(planRecovery(rec({ state: "recorded" }), NOW + 24 * H, opts).action).toBe("resend"); // D7: async renew past the TTL
    expect(possiblySent(rec({ state: "recorded", attempts: [{ at: NOW, delayMs: 0 }] }))).toBe(true);
    expect(planRecovery(rec({ state: "recorded", attempts: [{ at: NOW, delayMs: 0 }] }), NOW, opts).action).toBe(
      "resend",
    );
  });

  it("F1: accepted → poll its operation; accepted without an operation UUID → manual", () => {
    expect(planRecovery(rec({ state: "accepted", resources: { operationUuid: "op-1" } }), NOW, opts)).toEqual({
      action: "poll_operation",
      operationUuid: "op-1",
    });
    expect(planRecovery(rec({ state: "accepted" }), NOW, opts).action).toBe("manual");
  });

  it("D6: resend only while now < createdAt + TTL − margin", () => {
    const edge = NOW - 23 * H; // exactly at createdAt + 24 h − 1 h
    expect(withinReplayTtl(rec({ createdAt: edge + 1 }), NOW, opts)).toBe(true);
    expect(withinReplayTtl(rec({ createdAt: edge }), NOW, opts)).toBe(false);
  });

  it("D7: past the TTL an async domain op may be resent (durable key → task binding) unless disabled", () => {
    const old = rec({ createdAt: NOW - 30 * H });
    expect(planRecovery(old, NOW, opts)).toEqual({ action: "resend", pastTtl: true });
    expect(planRecovery(old, NOW, { ...opts, asyncResendPastTtl: false }).action).toBe("manual");
  });

  it("D6/D7: past the TTL a non-async `resend` write (webhooks.update) → manual", () => {
    const r = rec({ operationId: "webhooks.update", method: "PATCH", path: "/webhooks/w1", createdAt: NOW - 30 * H });
    expect(planRecovery(r, NOW, opts).action).toBe("manual");
  });

  it("I4/F5: orders.create → look up by external_id first; resend allowed only inside the TTL", () => {
    const order = rec({ operationId: "orders.create", path: "/orders", externalId: "ext-1" });
    expect(planRecovery(order, NOW, opts)).toEqual({
      action: "lookup_order",
      externalId: "ext-1",
      resendAllowed: true,
    });
    expect(planRecovery({ ...order, createdAt: NOW - 30 * H }, NOW, opts)).toEqual({
      action: "lookup_order",
      externalId: "ext-1",
      resendAllowed: false,
    });
    expect(planRecovery({ ...order, externalId: null, createdAt: NOW - 30 * H }, NOW, opts).action).toBe("manual");
  });

  it("D5/F4: `report` writes that may have been sent are never resent", () => {
    for (const id of ["webhooks.create", "webhooks.rotateSecret", "tickets.create", "tickets.addMessage"] as const) {
      const r = rec({ operationId: id, path: "/x", state: "unknown" });
      expect(planRecovery(r, NOW, opts).action, id).toBe("manual");
    }
  });

  it("D4: a stored query string cannot be resent through the facade → manual; path params read back exactly", () => {
    expect(planRecovery(rec({ query: "?a=1" }), NOW, opts).action).toBe("manual");
    expect(pathParamsOf(operationTable["domains.renew"], "/domains/abc/renew")).toEqual({ domainUuid: "abc" });
    expect(pathParamsOf(operationTable["domains.renew"], "/domains/abc/sync")).toBeUndefined();
    expect(pathParamsOf(operationTable["orders.create"], "/orders")).toEqual({});
  });

  it("F4: every X-Request-ID once; C12: a journalled 429 bounds the pause after a restart", () => {
    const r = rec({
      attempts: [
        { at: NOW - 5000, delayMs: 0, requestId: "a", status: 503 },
        { at: NOW - 1000, delayMs: 0, requestId: "b", status: 429 },
        { at: NOW - 900, delayMs: 0, requestId: "a" },
      ],
    });
    expect(requestIdsOf(r, ["c", undefined])).toEqual(["a", "b", "c"]);
    expect(pauseAfterJournalled429([r], 60_000)).toBe(NOW - 1000 + 60_000);
    expect(pauseAfterJournalled429([rec({})], 60_000)).toBe(0);
  });
});
