// Contract facts of spec/openapi.yaml, checked against the agreed per-operation table and rule IDs.
import { describe, expect, it } from "vitest";
import {
  WRITE_METHODS,
  deref,
  mediaExamples,
  opById,
  ops,
  params,
  responses,
  spec,
  type Node,
  type Op,
} from "./spec-doc";

type Row = [id: string, method: string, path: string, scopes: string[], success: number[]];
const TABLE: Row[] = [
  ["context.get", "get", "/context", [], [200]],
  ["domains.list", "get", "/domains", ["domains.read"], [200]],
  ["domains.get", "get", "/domains/{domainUuid}", ["domains.read"], [200]],
  ["domains.check", "post", "/domains/check", ["domains.read"], [200]],
  ["domains.renew", "post", "/domains/{domainUuid}/renew", ["domains.write", "orders.write"], [202]],
  ["domains.sync", "post", "/domains/{domainUuid}/sync", ["domains.write"], [202]],
  ["domains.setNameservers", "put", "/domains/{domainUuid}/nameservers", ["domains.write"], [202]],
  ["domains.getAuthCode", "get", "/domains/{domainUuid}/auth-code", ["domains.write"], [200]],
  ["quotes.create", "post", "/quotes", ["orders.read"], [200]],
  ["orders.create", "post", "/orders", ["orders.write"], [201]],
  ["orders.list", "get", "/orders", ["orders.read"], [200]],
  ["orders.get", "get", "/orders/{orderUuid}", ["orders.read"], [200]],
  ["operations.list", "get", "/operations", ["domains.read"], [200]],
  ["operations.get", "get", "/operations/{operationUuid}", ["domains.read"], [200]],
  ["balance.get", "get", "/balance", ["finance.read"], [200]],
  ["ledger.list", "get", "/ledger", ["finance.read"], [200]],
  ["webhooks.list", "get", "/webhooks", ["webhooks.read"], [200]],
  ["webhooks.create", "post", "/webhooks", ["webhooks.write"], [201]],
  ["webhooks.get", "get", "/webhooks/{webhookUuid}", ["webhooks.read"], [200]],
  ["webhooks.update", "patch", "/webhooks/{webhookUuid}", ["webhooks.write"], [200]],
  ["webhooks.delete", "delete", "/webhooks/{webhookUuid}", ["webhooks.write"], [204]],
  ["webhooks.test", "post", "/webhooks/{webhookUuid}/test", ["webhooks.write"], [202]],
  ["webhooks.rotateSecret", "post", "/webhooks/{webhookUuid}/rotate-secret", ["webhooks.write"], [200]],
  ["tickets.list", "get", "/tickets", ["tickets.read"], [200]],
  ["tickets.get", "get", "/tickets/{ticketUuid}", ["tickets.read"], [200]],
  ["tickets.create", "post", "/tickets", ["tickets.write"], [201]],
  ["tickets.addMessage", "post", "/tickets/{ticketUuid}/messages", ["tickets.write"], [201]],
];

const LIVE_ONLY = ["balance.get", "ledger.list", "tickets.list", "tickets.get", "tickets.create", "tickets.addMessage"];
const ASYNC = ["domains.renew", "domains.sync", "domains.setNameservers"];
const PAGINATION: Record<string, string> = {
  "domains.list": "links",
  "orders.list": "links",
  "operations.list": "links",
  "ledger.list": "links",
  "tickets.list": "links",
  "webhooks.list": "meta-only",
};
const SENSITIVE: Record<string, string[]> = {
  "webhooks.create": ["signing_secret"],
  "webhooks.rotateSecret": ["signing_secret"],
  "domains.getAuthCode": ["auth_code"],
};
const OUTCOME: Record<string, string> = {
  "domains.check": "resend",
  "domains.renew": "resend",
  "domains.sync": "resend",
  "domains.setNameservers": "resend",
  "quotes.create": "resend",
  "webhooks.update": "resend",
  "webhooks.delete": "resend",
  "webhooks.test": "resend",
  "orders.create": "reconcile",
  "webhooks.create": "report",
  "webhooks.rotateSecret": "report",
  "tickets.create": "report",
  "tickets.addMessage": "report",
};
const NO_BODY_WRITES = ["domains.sync", "webhooks.test", "webhooks.rotateSecret", "webhooks.delete"];

const isWrite = (o: Op) => WRITE_METHODS.has(o.method);
const successCodes = (o: Op) => Object.keys(o.op.responses).filter((s) => /^2\d\d$/.test(s));
const refName = (node: Node) => (typeof node?.$ref === "string" ? node.$ref.split("/").pop() : undefined);
const idemRef = (o: Op) =>
  (o.op.parameters ?? []).filter((p: Node) => p.$ref === "#/components/parameters/IdempotencyKey");
const header = (name: string) => (p: Node) => p.in === "header" && p.name.toLowerCase() === name.toLowerCase();
const envelopeJson = (resp: Node) => resp.content?.["application/json"]?.schema?.$ref;

describe("operations table (A5, A6)", () => {
  it("A6: exactly the 27 agreed operations with their methods, paths and AND-scopes", () => {
    const actual = ops.map((o) => [o.id, o.method, o.path, o.op.security]);
    const expected = TABLE.map(([id, method, path, scopes]) => [id, method, path, [{ bearerAuth: scopes }]]);
    expect(actual.sort()).toEqual(expected.sort());
    expect(new Set(ops.map((o) => o.id)).size).toBe(27);
  });

  it("A5: context.get needs no scope; every other operation needs at least one", () => {
    for (const o of ops) {
      const scopes: string[] = o.op.security[0].bearerAuth;
      expect(scopes.length === 0, o.id).toBe(o.id === "context.get");
    }
  });

  it("success statuses: 200/201/202/204 exactly as agreed", () => {
    for (const [id, , , , success] of TABLE) expect(successCodes(opById(id)).map(Number), id).toEqual(success);
  });
});

describe("transport and credentials (A1–A4)", () => {
  it("A1: the only server is the api.example placeholder with base path /api/reseller/v1", () => {
    expect(spec.servers).toHaveLength(1);
    expect(spec.servers[0].url).toBe("https://api.example/api/reseller/v1");
    expect(spec.servers[0].description).toMatch(/placeholder/i);
    expect(spec.servers[0].description).toMatch(/never a working host/);
  });

  it("A3/A4: bearerAuth is HTTP bearer and describes the token format and where it may live", () => {
    const scheme = spec.components.securitySchemes.bearerAuth;
    expect(scheme).toMatchObject({ type: "http", scheme: "bearer" });
    expect(scheme.description).toContain("rsl_test_{publicKeyId}.{secret}");
    expect(scheme.description).toContain("rsl_live_{publicKeyId}.{secret}");
    expect(scheme.description).toMatch(/24 ASCII letters\/digits/);
    expect(scheme.description).toMatch(/64 base64url/);
    expect(scheme.description).toMatch(/never in a browser, query string, ticket/);
    expect(Object.keys(spec.components.securitySchemes)).toEqual(["bearerAuth"]);
  });

  it("A9: x-malformed-uuid-status is 422 on domains.*/tickets.* and 500 on orders.get, operations.get, webhooks.*, with the matching response", () => {
    for (const o of ops) {
      const hasUuid = /\{\w+Uuid\}/.test(o.path);
      const status = o.op["x-malformed-uuid-status"];
      if (!hasUuid) {
        expect(status, o.id).toBeUndefined();
        continue;
      }
      const expected = /^(domains|tickets)\./.test(o.id) ? 422 : 500;
      expect(status, o.id).toBe(expected);
      expect(o.op.description, o.id).toMatch(/A9/);
      const documented = refName(o.op.responses[String(expected)]);
      expect(documented, o.id).toBe(expected === 422 ? "ValidationFailed" : "InternalErrorOrMalformedUuid");
      for (const p of params(o).filter((p) => p.in === "path")) {
        expect(p.schema.format, `${o.id} ${p.name}`).toBe("uuid");
        expect(p.required).toBe(true);
      }
    }
    const malformed = deref(spec.components.responses.InternalErrorOrMalformedUuid);
    expect(malformed.description).toMatch(/500 instead of 422/);
  });
});

describe("live-only resources (B1–B3)", () => {
  it("B1/B3: x-live-only is set exactly on balance, ledger and the four ticket operations", () => {
    expect(
      ops
        .filter((o) => o.op["x-live-only"] === true)
        .map((o) => o.id)
        .sort(),
    ).toEqual([...LIVE_ONLY].sort());
    for (const o of ops) expect([undefined, true], o.id).toContain(o.op["x-live-only"]);
  });

  it("B1: every ticket operation documents the live-only 403 body from the guide", () => {
    const body = {
      error: {
        code: "forbidden",
        message: "Support is available only to live credentials.",
        details: [],
        request_id: "11111111-1111-4111-8111-111111111111",
      },
    };
    for (const o of ops.filter((o) => o.id.startsWith("tickets."))) {
      const r403 = responses(o)["403"];
      expect(mediaExamples(r403.content["application/json"]), o.id).toContainEqual(body);
    }
  });

  it("B2: the ticket writes state that the live-only check runs before a replay", () => {
    for (const id of ["tickets.create", "tickets.addMessage"]) expect(opById(id).op.description).toMatch(/B2/);
  });

  it("B3: balance and ledger document the live-only 403", () => {
    for (const id of ["balance.get", "ledger.list"])
      expect(refName(opById(id).op.responses["403"])).toBe("FinanceLiveOnly");
  });
});

describe("rate limit headers (C10–C12)", () => {
  it("C10: every success response carries X-RateLimit-Limit, X-RateLimit-Remaining and X-Request-ID, never Retry-After", () => {
    for (const o of ops)
      for (const code of successCodes(o)) {
        const h = Object.keys(responses(o)[code].headers ?? {});
        expect(h, `${o.id} ${code}`).toEqual(
          expect.arrayContaining(["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-Request-ID"]),
        );
        expect(h, `${o.id} ${code}`).not.toContain("Retry-After");
      }
    expect(spec.components.headers.XRateLimitRemaining.description).toMatch(/snapshot/);
    expect(spec.components.headers.XRateLimitRemaining.description).toMatch(/not a reservation/);
  });

  it("C11/C12: every operation's 429 has Retry-After (seconds or a proxy's HTTP-date) and X-Request-ID but no X-RateLimit-*; a proxy's HTML is allowed", () => {
    for (const o of ops) {
      const r429 = responses(o)["429"];
      expect(r429, o.id).toBeDefined();
      expect(Object.keys(r429.headers).sort(), o.id).toEqual(["Retry-After", "X-Request-ID"]);
      expect(envelopeJson(r429)).toBe("#/components/schemas/RateLimitExceededEnvelope");
      expect(Object.keys(deref(r429).content), o.id).toContain("text/html");
    }
    const retryAfter = spec.components.headers.RetryAfter;
    expect(retryAfter.schema.type).toBe("string");
    const pattern = new RegExp(retryAfter.schema.pattern as string);
    for (const value of ["0", "42", "Mon, 05 Oct 2026 09:00:42 GMT"]) expect(value).toMatch(pattern);
    for (const value of ["-1", "4.5", "soon", "2026-10-05T09:00:42Z"]) expect(value).not.toMatch(pattern);
    expect(retryAfter.description).toMatch(/HTTP-date/);
    const example = mediaExamples(deref(spec.components.responses.RateLimited).content["application/json"]);
    expect(example).toContainEqual({
      error: {
        code: "rate_limit_exceeded",
        message: "API rate limit exceeded.",
        details: { retry_after: 42 },
        request_id: "11111111-1111-4111-8111-111111111111",
      },
    });
  });

  it("C11: the API's other error responses that pass the limiter carry the limiter headers", () => {
    for (const name of ["Forbidden", "NotFound", "Conflict", "ValidationFailed", "InternalError"])
      expect(Object.keys(spec.components.responses[name].headers), name).toEqual([
        "X-RateLimit-Limit",
        "X-RateLimit-Remaining",
        "X-Request-ID",
      ]);
  });

  it("C3/C5: info describes the fixed window from the first counted request and what counts", () => {
    const d: string = spec.info.description;
    expect(d).toMatch(/fixed 60 s starting at the first counted request/);
    expect(d).toMatch(/validation errors, scope errors and HTTP replays all spend quota/);
    expect(d).toMatch(/not a token bucket/);
  });
});

describe("idempotency (D1–D9)", () => {
  it("D1: every POST/PUT/PATCH/DELETE takes the shared Idempotency-Key parameter exactly once", () => {
    for (const o of ops.filter(isWrite)) expect(idemRef(o), o.id).toHaveLength(1);
  });

  it("D1: no GET takes Idempotency-Key, by $ref or inline", () => {
    for (const o of ops.filter((o) => !isWrite(o))) {
      expect(idemRef(o), o.id).toHaveLength(0);
      expect(params(o).filter(header("Idempotency-Key")), o.id).toHaveLength(0);
    }
  });

  it("D2: Idempotency-Key is a required header of 1..160 characters", () => {
    const p = spec.components.parameters.IdempotencyKey;
    expect(p).toMatchObject({ name: "Idempotency-Key", in: "header", required: true });
    expect(p.schema).toMatchObject({ type: "string", minLength: 1, maxLength: 160 });
    expect(p.description).toMatch(/D6/);
    expect(p.description).toMatch(/D7/);
  });

  it("D4: domains.sync, webhooks.test, webhooks.rotateSecret (and delete) have no requestBody; every other write has a required JSON body", () => {
    for (const o of ops.filter(isWrite)) {
      if (NO_BODY_WRITES.includes(o.id)) expect(o.op.requestBody, o.id).toBeUndefined();
      else {
        expect(o.op.requestBody.required, o.id).toBe(true);
        expect(Object.keys(o.op.requestBody.content), o.id).toEqual(["application/json"]);
      }
    }
    for (const o of ops.filter((o) => !isWrite(o))) expect(o.op.requestBody, o.id).toBeUndefined();
  });

  it("D5/D9: write success responses document Idempotency-Replayed (enum ['true']); reads do not", () => {
    expect(spec.components.headers.IdempotencyReplayed.schema.enum).toEqual(["true"]);
    expect(spec.components.headers.IdempotencyReplayed.description).toMatch(/never `false`/);
    for (const o of ops)
      for (const code of successCodes(o)) {
        const has = "Idempotency-Replayed" in (responses(o)[code].headers ?? {});
        expect(has, `${o.id} ${code}`).toBe(isWrite(o));
      }
  });

  it("D5: writes document 409 conflict; reads do not", () => {
    for (const o of ops) expect(refName(o.op.responses["409"]), o.id).toBe(isWrite(o) ? "Conflict" : undefined);
  });

  it("x-unknown-outcome: every write has the agreed policy and explains it; no GET has one", () => {
    for (const o of ops) {
      expect(o.op["x-unknown-outcome"], o.id).toBe(OUTCOME[o.id]);
      if (isWrite(o)) expect(o.op.description, o.id).toContain(`x-unknown-outcome: ${OUTCOME[o.id]}`);
    }
  });
});

describe("errors (E1–E6)", () => {
  it("E1/E4: every operation documents 401, 403, 404, 422, 429, 500 with the per-status envelope naming its code", () => {
    const envelopeOf: Record<string, string> = {
      "400": "RequestFailedEnvelope",
      "401": "UnauthenticatedEnvelope",
      "403": "ForbiddenEnvelope",
      "404": "ResourceNotFoundEnvelope",
      "409": "ConflictEnvelope",
      "422": "ValidationFailedEnvelope",
      "429": "RateLimitExceededEnvelope",
      "500": "InternalErrorEnvelope",
      "502": "InternalErrorEnvelope",
      "503": "InternalErrorEnvelope",
    };
    for (const o of ops) {
      const rs = responses(o);
      for (const code of ["401", "403", "404", "422", "429", "500", "502", "503"])
        expect(rs[code], `${o.id} ${code}`).toBeDefined();
      for (const code of Object.keys(rs).filter((c) => c in envelopeOf))
        expect(envelopeJson(rs[code]), `${o.id} ${code}`).toBe(`#/components/schemas/${envelopeOf[code]}`);
    }
    for (const name of new Set(Object.values(envelopeOf))) {
      const envelope = spec.components.schemas[name];
      expect(envelope.allOf[0].$ref, name).toBe("#/components/schemas/ErrorEnvelope");
      const member = deref(envelope.allOf[1].properties.error);
      const statuses = Object.entries(envelopeOf)
        .filter(([, n]) => n === name)
        .map(([s]) => Number(s));
      for (const status of statuses) expect(member["x-error-statuses"], name).toContain(status);
    }
  });

  it("E1/J3: the envelope is application/json, never problem+json", () => {
    const text = JSON.stringify(spec.paths) + JSON.stringify(spec.components.responses);
    expect(text).not.toContain("application/problem+json");
    expect(spec.components.schemas.ErrorEnvelope.description).toMatch(/NOT `application\/problem\+json`/);
    expect(spec.components.schemas.ErrorEnvelope.required).toEqual(["error"]);
  });

  it("E1/E2: ApiError is a oneOf over the eight codes, each pinned by `code: const`, with typed details", () => {
    const api = spec.components.schemas.ApiError;
    // No discriminator mapping: every member's `const` already tells them apart, and Ajv-based tools
    // (openapi-examples-validator) report false errors on a mapping.
    expect(api.discriminator).toBeUndefined();
    const mapping: Record<string, string> = Object.fromEntries(
      api.oneOf.map((s: Node) => [deref(s).properties.code.const as string, s.$ref as string]),
    );
    expect(Object.keys(mapping).sort()).toEqual([
      "conflict",
      "forbidden",
      "internal_error",
      "rate_limit_exceeded",
      "request_failed",
      "resource_not_found",
      "unauthenticated",
      "validation_failed",
    ]);
    expect(api.oneOf.map((s: Node) => s.$ref).sort()).toEqual(Object.values(mapping).sort());
    for (const [code, target] of Object.entries(mapping)) {
      const variant = deref({ $ref: target });
      expect(variant.properties.code.const, code).toBe(code);
      expect(variant.required).toEqual(["code", "message", "details", "request_id"]);
      expect(variant.properties.request_id.type).toEqual(["string", "null"]);
      const details = variant.properties.details;
      if (code === "validation_failed")
        expect(details.oneOf.map((s: Node) => s.$ref)).toEqual([
          "#/components/schemas/FieldErrors",
          "#/components/schemas/EmptyDetails",
        ]);
      else if (code === "rate_limit_exceeded") expect(details.$ref).toBe("#/components/schemas/RateLimitDetails");
      else expect(details.$ref, code).toBe("#/components/schemas/EmptyDetails");
    }
    expect(spec.components.schemas.EmptyDetails).toMatchObject({ type: "array", maxItems: 0 });
    expect(spec.components.schemas.FieldErrors.additionalProperties).toMatchObject({
      type: "array",
      items: { type: "string" },
    });
    expect(spec.components.schemas.RateLimitDetails.properties.retry_after.type).toBe("integer");
  });

  it("E4/E5: the router's 405 is message-only JSON; proxies' 502/503 may be HTML", () => {
    expect(refName(opById("context.get").op.responses["405"])).toBe("MethodNotAllowed");
    expect(
      spec.components.responses.MethodNotAllowed.content["application/json"].schema.oneOf.map((s: Node) => s.$ref),
    ).toEqual(["#/components/schemas/RouterMessage", "#/components/schemas/RequestFailedEnvelope"]);
    expect(spec.components.schemas.RouterMessage.required).toEqual(["message"]);
    for (const name of ["BadGateway", "ServiceUnavailable"])
      expect(Object.keys(spec.components.responses[name].content)).toContain("text/html");
  });

  it("E6: every operation takes X-Request-ID, X-Language, X-Locale and Accept-Language", () => {
    for (const o of ops) {
      const names = params(o)
        .filter((p) => p.in === "header")
        .map((p) => p.name);
      expect(names, o.id).toEqual(
        expect.arrayContaining(["X-Request-ID", "X-Language", "X-Locale", "Accept-Language"]),
      );
    }
  });
});

describe("asynchronous operations (F1–F5)", () => {
  it("F1: x-async-operation is set exactly on renew, sync and setNameservers, which answer 202 with an Operation", () => {
    expect(
      ops
        .filter((o) => o.op["x-async-operation"] === true)
        .map((o) => o.id)
        .sort(),
    ).toEqual([...ASYNC].sort());
    for (const id of ASYNC)
      expect(opById(id).op.responses["202"].content["application/json"].schema.$ref).toBe(
        "#/components/schemas/OperationResponse",
      );
  });

  it("F3: Operation.status is an open string with the known values documented, not a closed enum", () => {
    const status = spec.components.schemas.Operation.properties.status;
    expect(status.type).toBe("string");
    expect(status.enum).toBeUndefined();
    for (const s of ["pending", "processing", "uncertain", "completed", "failed"]) expect(status.examples).toContain(s);
    expect(status.description).toMatch(/never treat it as `failed`/);
  });

  it("E3/F2: Operation.error is a nullable {code,message}; next_check_at and completed_at are nullable", () => {
    const props = spec.components.schemas.Operation.properties;
    expect(props.error.anyOf).toEqual(
      expect.arrayContaining([
        { $ref: "#/components/schemas/OperationError" },
        expect.objectContaining({ type: "null" }),
      ]),
    );
    expect(Object.keys(spec.components.schemas.OperationError.properties)).toEqual(["code", "message"]);
    expect(props.next_check_at.type).toEqual(["string", "null"]);
    expect(props.completed_at.type).toEqual(["string", "null"]);
  });

  it("F2: operations.get shows the guide's uncertain operation", () => {
    const media = opById("operations.get").op.responses["200"].content["application/json"];
    expect(mediaExamples(media)).toContainEqual({
      data: {
        uuid: "66666666-6666-4666-8666-666666666666",
        domain_uuid: "55555555-5555-4555-8555-555555555555",
        action: "renew",
        status: "uncertain",
        result: [],
        error: {
          code: "registry_result_unknown",
          message: "Registry result is not confirmed. Do not repeat this operation; reconciliation is scheduled.",
        },
        created_at: "2026-10-05T09:00:00+00:00",
        completed_at: null,
        next_check_at: "2026-10-05T09:05:00+00:00",
      },
    });
  });

  it("F5: orders.list filters by external_id; operations.list by domain_uuid and status", () => {
    const query = (id: string) =>
      params(opById(id))
        .filter((p) => p.in === "query")
        .map((p) => p.name)
        .sort();
    expect(query("orders.list")).toEqual(["cursor", "external_id", "per_page"]);
    expect(query("operations.list")).toEqual(["cursor", "domain_uuid", "per_page", "status"]);
  });
});

describe("pagination (H1) and secrets (H2)", () => {
  it("H1: list operations carry x-pagination and take cursor and per_page (1..100, default 25)", () => {
    expect(
      Object.fromEntries(ops.filter((o) => o.op["x-pagination"]).map((o) => [o.id, o.op["x-pagination"]])),
    ).toEqual(PAGINATION);
    for (const id of Object.keys(PAGINATION)) {
      const ps = params(opById(id));
      const perPage = ps.find((p) => p.name === "per_page");
      expect(perPage.schema, id).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 25 });
      expect(ps.find((p) => p.name === "cursor")?.schema.type, id).toBe("string");
    }
    for (const o of ops.filter((o) => !o.op["x-pagination"]))
      expect(
        params(o).some((p) => p.name === "per_page"),
        o.id,
      ).toBe(false);
  });

  it("H1: links lists have links+meta; the webhook list has only data and meta", () => {
    for (const [id, kind] of Object.entries(PAGINATION)) {
      const body = deref(opById(id).op.responses["200"].content["application/json"].schema);
      expect(Object.keys(body.properties).sort(), id).toEqual(
        kind === "links" ? ["data", "links", "meta"] : ["data", "meta"],
      );
    }
    const meta = spec.components.schemas.PaginationMeta;
    expect(Object.keys(meta.properties).sort()).toEqual(["next_cursor", "per_page"]);
    expect(meta.properties.next_cursor.type).toEqual(["string", "null"]);
    expect(meta.properties.next_cursor.description).toMatch(/not the same as sending no cursor/);
  });

  it("H2/D9: x-sensitive-fields names signing_secret and auth_code where they are returned", () => {
    expect(
      Object.fromEntries(ops.filter((o) => o.op["x-sensitive-fields"]).map((o) => [o.id, o.op["x-sensitive-fields"]])),
    ).toEqual(SENSITIVE);
  });
});

describe("documentation (J2)", () => {
  it("J2: every operation has a summary, a description and a tag that is declared with a description", () => {
    const tags = new Map((spec.tags as Node[]).map((t) => [t.name, t.description]));
    expect([...tags.keys()].sort()).toEqual([
      "balance",
      "context",
      "domains",
      "ledger",
      "operations",
      "orders",
      "quotes",
      "tickets",
      "webhooks",
    ]);
    for (const o of ops) {
      expect(o.op.summary, o.id).toBeTruthy();
      expect(o.op.description?.length, o.id).toBeGreaterThan(20);
      expect(tags.get(o.op.tags[0]), o.id).toBeTruthy();
    }
  });

  it("J2: every parameter, header, response, schema and schema property has a description", () => {
    const missing: string[] = [];
    const walkSchema = (s: Node, at: string) => {
      if (!s || typeof s !== "object") return;
      if (!s.$ref && !s.description) missing.push(at);
      for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, Node>)) {
        if (!v.description) missing.push(`${at}.properties.${k}`);
        walkSchema(v, `${at}.properties.${k}`);
      }
      if (s.items) walkSchema(s.items, `${at}.items`);
      for (const key of ["oneOf", "anyOf", "allOf"])
        (s[key] ?? []).forEach((x: Node, i: number) => walkSchema(x, `${at}.${key}[${i}]`));
    };
    for (const [name, s] of Object.entries(spec.components.schemas as Record<string, Node>)) walkSchema(s, name);
    for (const kind of ["parameters", "headers", "responses"])
      for (const [name, v] of Object.entries(spec.components[kind] as Record<string, Node>))
        if (!v.description) missing.push(`${kind}.${name}`);
    expect(missing).toEqual([]);
  });

  it("J2: every operation has realistic examples (request body, success body, or path parameter for 204)", () => {
    for (const o of ops) {
      if (o.op.requestBody)
        expect(mediaExamples(o.op.requestBody.content["application/json"]).length, `${o.id} request`).toBeGreaterThan(
          0,
        );
      for (const code of successCodes(o)) {
        const media = responses(o)[code].content?.["application/json"];
        if (media) expect(mediaExamples(media).length, `${o.id} ${code}`).toBeGreaterThan(0);
        else expect(code, o.id).toBe("204");
      }
      if (o.id === "webhooks.delete")
        expect(params(o).find((p) => p.in === "path").example).toBe("44444444-4444-4444-8444-444444444444");
    }
  });

  it("A7/A8/C1–C12/D1–D9/E4/E6/F1–F5/H1: info.description covers the rough edges by rule ID", () => {
    const d: string = spec.info.description;
    for (const id of [
      "A1",
      "A3",
      "A4",
      "A5",
      "A6",
      "A7",
      "A8",
      "A9",
      "B1",
      "B2",
      "B3",
      "B4",
      "C1",
      "C2",
      "C3",
      "C4",
      "C5",
      "C6",
      "C7",
      "C8",
      "C9",
      "C10",
      "C11",
      "C12",
      "D1",
      "D2",
      "D3",
      "D4",
      "D5",
      "D6",
      "D7",
      "D8",
      "D9",
      "E1",
      "E2",
      "E3",
      "E4",
      "E5",
      "E6",
      "F1",
      "F3",
      "F4",
      "F5",
      "H1",
      "H2",
      "H3",
      "J1",
      "J3",
    ])
      expect(d, id).toMatch(new RegExp(`\\b${id}\\b`));
    expect(d).toMatch(/even `POST \/domains\/check`/);
    expect(d).toMatch(/reveals nothing about its owner/);
  });
});
