/**
 * The committed generated/ files, run as code: the error union from the real spec (E1, E2, E4, C11)
 * and the operations table against the agreed per-operation metadata (docs: /work/notes/shapes.md).
 */
import { describe, expect, it } from "vitest";
import { createFacade } from "../../generated/client";
import * as errors from "../../generated/errors";
import { operationList, operationTable, type OperationId } from "../../generated/operations";

const rid = "0b6f7a4e-3c1d-4e5f-8a9b-1c2d3e4f5a6b";

describe("generated/errors.ts from spec/openapi.yaml", () => {
  it("E4: the eight codes, one guard each", () => {
    expect(errors.apiErrorCodes).toEqual([
      "request_failed",
      "unauthenticated",
      "forbidden",
      "resource_not_found",
      "conflict",
      "validation_failed",
      "rate_limit_exceeded",
      "internal_error",
    ]);
    const guards = [
      errors.isRequestFailed,
      errors.isUnauthenticated,
      errors.isForbidden,
      errors.isResourceNotFound,
      errors.isConflict,
      errors.isValidationFailed,
      errors.isRateLimitExceeded,
      errors.isInternalError,
    ];
    errors.apiErrorCodes.forEach((code, i) => {
      const error = errors.parseApiError({
        error: {
          code,
          message: "m",
          details: code === "rate_limit_exceeded" ? { retry_after: 1 } : [],
          request_id: rid,
        },
      });
      expect(error?.code).toBe(code);
      expect(guards.map((guard) => guard(error!))).toEqual(guards.map((_, j) => j === i));
    });
  });

  it.each([
    [
      "B1: live-only 403",
      { code: "forbidden", message: "Support is available only to live credentials.", details: [], request_id: rid },
    ],
    [
      "C11: limiter 429",
      {
        code: "rate_limit_exceeded",
        message: "API rate limit exceeded.",
        details: { retry_after: 42 },
        request_id: rid,
      },
    ],
    [
      "E1: field errors",
      {
        code: "validation_failed",
        message: "The name field is required.",
        details: { name: ["The name field is required."] },
        request_id: rid,
      },
    ],
    [
      "D5: missing Idempotency-Key → details []",
      { code: "validation_failed", message: "Idempotency-Key is required.", details: [], request_id: null },
    ],
    [
      "E5: router 404 envelope",
      { code: "resource_not_found", message: "Route not found.", details: [], request_id: null },
    ],
  ])("%s parses", (_name, error) => {
    expect(errors.parseApiError({ error })).toBe(error);
    expect(errors.isApiError({ error })).toBe(true);
  });

  it.each([
    [
      "E5: router 405 message-only JSON",
      { message: "The POST method is not supported for route api/reseller/v1/context. Supported methods: GET, HEAD." },
    ],
    ["E2: details null does not occur", { error: { code: "conflict", message: "m", details: null, request_id: rid } }],
    [
      "C11: negative retry_after",
      { error: { code: "rate_limit_exceeded", message: "m", details: { retry_after: -1 }, request_id: rid } },
    ],
    ["E2: {} is not empty details", { error: { code: "internal_error", message: "m", details: {}, request_id: rid } }],
    ["empty body", ""],
  ])("%s → undefined", (_name, body) => {
    expect(errors.parseApiError(body)).toBeUndefined();
  });

  it("an unknown future code is kept as UnknownCodeErrorBody", () => {
    const error = errors.parseApiError({
      error: { code: "payment_required", message: "m", details: { due: "10.00" }, request_id: null },
    });
    expect(error).toMatchObject({ code: "payment_required", details: { due: "10.00" }, unknownCode: true });
  });
});

/** shapes.md "Per-operation metadata": the facts other parts rely on, read back from the table. */
describe("generated/operations.ts carries the agreed vendor extensions", () => {
  const ids = (pick: (id: OperationId) => boolean) =>
    operationList
      .map((o) => o.operationId)
      .filter(pick)
      .sort();
  const all = operationList.map((o) => o.operationId);

  it("has all 27 operations, keyed by operationId", () => {
    expect(all).toHaveLength(27);
    for (const op of operationList) expect(operationTable[op.operationId]).toBe(op);
  });

  it("B1, B3: x-live-only on balance.get, ledger.list and tickets.*", () => {
    expect(ids((id) => operationTable[id].liveOnly)).toEqual([
      "balance.get",
      "ledger.list",
      "tickets.addMessage",
      "tickets.create",
      "tickets.get",
      "tickets.list",
    ]);
  });

  it("F1: x-async-operation on renew, sync, setNameservers", () => {
    expect(ids((id) => operationTable[id].asyncOperation)).toEqual([
      "domains.renew",
      "domains.setNameservers",
      "domains.sync",
    ]);
  });

  it("D1: Idempotency-Key on exactly the writes", () => {
    for (const op of operationList) expect(op.idempotencyRequired, op.operationId).toBe(op.method !== "GET");
  });

  it("x-unknown-outcome: resend / reconcile / report per write, null on reads", () => {
    expect(ids((id) => operationTable[id].unknownOutcome === "resend")).toEqual([
      "domains.check",
      "domains.renew",
      "domains.setNameservers",
      "domains.sync",
      "quotes.create",
      "webhooks.delete",
      "webhooks.test",
      "webhooks.update",
    ]);
    expect(ids((id) => operationTable[id].unknownOutcome === "reconcile")).toEqual(["orders.create"]);
    expect(ids((id) => operationTable[id].unknownOutcome === "report")).toEqual([
      "tickets.addMessage",
      "tickets.create",
      "webhooks.create",
      "webhooks.rotateSecret",
    ]);
    for (const op of operationList) if (op.method === "GET") expect(op.unknownOutcome, op.operationId).toBeNull();
  });

  it("D9, H2: sensitive fields", () => {
    expect(
      operationList.filter((o) => o.sensitiveFields.length > 0).map((o) => [o.operationId, o.sensitiveFields]),
    ).toEqual(
      expect.arrayContaining([
        ["domains.getAuthCode", ["auth_code"]],
        ["webhooks.create", ["signing_secret"]],
        ["webhooks.rotateSecret", ["signing_secret"]],
      ]),
    );
  });

  it("A9: malformed UUID → 422 on domains.* and tickets.*, 500 on orders.get, operations.get, webhooks.*", () => {
    for (const op of operationList) {
      const want = op.pathParams.length === 0 ? null : /^(domains|tickets)\./.test(op.operationId) ? 422 : 500;
      expect(op.malformedUuidStatus, op.operationId).toBe(want);
    }
  });

  it("H1: pagination kinds", () => {
    expect(ids((id) => operationTable[id].pagination === "links")).toEqual([
      "domains.list",
      "ledger.list",
      "operations.list",
      "orders.list",
      "tickets.list",
    ]);
    expect(ids((id) => operationTable[id].pagination === "meta-only")).toEqual(["webhooks.list"]);
  });

  it("D4: sync, webhooks.test, rotateSecret and delete have no request body", () => {
    expect(ids((id) => !operationTable[id].hasBody && operationTable[id].method !== "GET")).toEqual([
      "domains.sync",
      "webhooks.delete",
      "webhooks.rotateSecret",
      "webhooks.test",
    ]);
  });
});

describe("generated/client.ts facade", () => {
  it("groups the 27 operations into the agreed resources and method names", () => {
    const seen: string[] = [];
    const facade = createFacade<Record<OperationId, OperationId>>((id) => {
      seen.push(id);
      return id;
    });
    expect(
      Object.fromEntries(Object.entries(facade).map(([resource, methods]) => [resource, Object.keys(methods)])),
    ).toEqual({
      context: ["get"],
      domains: ["list", "get", "check", "renew", "sync", "setNameservers", "getAuthCode"],
      quotes: ["create"],
      orders: ["create", "list", "get"],
      operations: ["list", "get"],
      balance: ["get"],
      ledger: ["list"],
      webhooks: ["list", "create", "get", "update", "delete", "test", "rotateSecret"],
      tickets: ["list", "create", "get", "addMessage"],
    });
    // Every method forwards its own operationId (resource.method), nothing else.
    for (const [resource, methods] of Object.entries(facade)) {
      for (const [method, call] of Object.entries(methods as Record<string, (args?: unknown) => OperationId>)) {
        expect(call({})).toBe(`${resource}.${method}`);
      }
    }
    expect(seen.sort()).toEqual(operationList.map((o) => o.operationId).sort());
  });
});
