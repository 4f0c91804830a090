import { describe, expect, it } from "vitest";
import { emitOperations } from "../../generator/emit-operations";
import { readOperations } from "../../generator/model";
import { createSpec, loadSpec, type Json } from "../../generator/spec";
import { operationTable as edge } from "../fixtures/generator/edge/want/operations";
import { operationTable as mini } from "../fixtures/generator/mini/want/operations";
import { fixtureNames, fixtureSpec, wantFile } from "./support";

/** A 202 body that is the Operation (F1), with the Operation schema it references. */
const ACCEPTED = { type: "object", properties: { data: { $ref: "#/components/schemas/Operation" } } };
const COMPONENTS = { schemas: { Operation: { type: "object", properties: { uuid: { type: "string" } } } } };

/** A one-operation spec; `op` is merged into a POST /things/{thingUuid}. */
function oneOp(op: Json, pathItem: Json = {}): Json {
  return {
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
    components: COMPONENTS,
    paths: {
      "/things/{thingUuid}": {
        ...pathItem,
        post: {
          operationId: "things.poke",
          parameters: [{ name: "thingUuid", in: "path", required: true, schema: { type: "string" } }],
          responses: { "202": { description: "ok" } },
          ...op,
        },
      },
    },
  };
}

const meta = (op: Json, pathItem?: Json) => readOperations(createSpec("inline.yaml", oneOp(op, pathItem)))[0];

describe("emitOperations: spec → generated/operations.ts", () => {
  it.each(fixtureNames())("fixture %s matches want/operations.ts", async (fixture) => {
    await expect(emitOperations(loadSpec(fixtureSpec(fixture)))).toMatchFileSnapshot(
      wantFile(fixture, "operations.ts"),
    );
  });

  it("keeps spec order and reads every field of the mini fixture", () => {
    expect(Object.keys(mini)).toEqual([
      "context.get",
      "domains.list",
      "domains.renew",
      "webhooks.delete",
      "tickets.create",
    ]);
    expect(mini["domains.renew"]).toEqual({
      operationId: "domains.renew",
      method: "POST",
      path: "/domains/{domainUuid}/renew",
      pathParams: ["domainUuid"], // declared on the path item, not the operation
      queryParams: [],
      scopes: ["domains.write", "orders.write"],
      idempotencyRequired: true, // $ref'd Idempotency-Key header
      hasBody: true,
      liveOnly: false,
      asyncOperation: true,
      pagination: null,
      sensitiveFields: [],
      requestSensitiveFields: [],
      successStatuses: [202],
      unknownOutcome: "resend",
      malformedUuidStatus: 422,
      lockKey: null, // the mini fixture declares no x-lock-key
      teachesLimit: false,
      producesResource: null,
      head: false, // a POST never has the HEAD mirror
    });
    expect(mini["domains.list"].queryParams).toEqual(["cursor", "per_page"]);
    expect(mini["webhooks.delete"].successStatuses).toEqual([204]);
    expect(mini["tickets.create"]).toMatchObject({
      liveOnly: true,
      unknownOutcome: "report",
      successStatuses: [200, 201],
    });
    expect(mini["context.get"]).toMatchObject({
      scopes: [],
      idempotencyRequired: false,
      hasBody: false,
      malformedUuidStatus: null,
    });
  });
});

it("edge fixture: document-level security, path-item parameters, several 2xx", () => {
  expect(edge["reports.export"]).toMatchObject({
    scopes: ["accounts.read"],
    queryParams: ["from", "format"],
    idempotencyRequired: false,
  });
  expect(edge["accounts.update"]).toMatchObject({
    method: "PATCH",
    pathParams: ["accountId"],
    hasBody: true,
    scopes: ["accounts.read"],
  });
  expect(edge["accounts.close"]).toMatchObject({
    scopes: ["accounts.write", "billing.write"],
    successStatuses: [200, 202],
    unknownOutcome: "reconcile",
    malformedUuidStatus: 500,
    hasBody: false,
  });
});

describe("model: vendor extensions and parameters (given → want)", () => {
  it.each([
    [
      "absent extensions",
      {},
      {
        liveOnly: false,
        asyncOperation: false,
        pagination: null,
        sensitiveFields: [],
        unknownOutcome: null,
        malformedUuidStatus: null,
      },
    ],
    ["x-live-only", { "x-live-only": true }, { liveOnly: true }],
    [
      "x-async-operation",
      {
        "x-async-operation": true,
        responses: { "202": { description: "accepted", content: { "application/json": { schema: ACCEPTED } } } },
      },
      { asyncOperation: true },
    ],
    ["x-pagination meta-only", { "x-pagination": "meta-only" }, { pagination: "meta-only" }],
    ["x-sensitive-fields", { "x-sensitive-fields": ["signing_secret"] }, { sensitiveFields: ["signing_secret"] }],
    ["x-unknown-outcome reconcile", { "x-unknown-outcome": "reconcile" }, { unknownOutcome: "reconcile" }],
    ["x-malformed-uuid-status 500", { "x-malformed-uuid-status": 500 }, { malformedUuidStatus: 500 }],
    ["security AND scopes", { security: [{ bearerAuth: ["a.read", "b.write"] }] }, { scopes: ["a.read", "b.write"] }],
    [
      "Idempotency-Key header (any case)",
      {
        parameters: [
          { name: "thingUuid", in: "path", required: true },
          { name: "idempotency-key", in: "header" },
        ],
      },
      { idempotencyRequired: true },
    ],
    [
      "2xx only, ascending",
      { responses: { "404": { description: "x" }, "201": { description: "x" }, "200": { description: "x" } } },
      {
        successes: [
          { status: "200", json: false },
          { status: "201", json: false },
        ],
      },
    ],
  ] as const)("%s", (_name, op, want) => {
    expect(meta(op as Json)).toMatchObject(want);
  });

  it.each([
    [
      "x-unknown-outcome out of vocabulary",
      { "x-unknown-outcome": "retry" },
      "#/paths/~1things~1{thingUuid}/post/x-unknown-outcome: expected one of resend, reconcile, report",
    ],
    [
      "x-malformed-uuid-status not 422/500",
      { "x-malformed-uuid-status": 400 },
      "x-malformed-uuid-status: expected 422 or 500, got 400",
    ],
    ["x-live-only not boolean", { "x-live-only": "yes" }, "x-live-only: expected true or false"],
    ["x-pagination unknown kind", { "x-pagination": "offset" }, "x-pagination: expected one of links, meta-only"],
    ["operationId not resource.action", { operationId: "pokeThing" }, `operationId must look like "resource.action"`],
    ["undeclared path parameter", { parameters: [] }, "{thingUuid} in /things/{thingUuid} has no path parameter"],
    ["no 2xx response", { responses: { "400": { description: "x" } } }, "no 2xx response"],
    ["external $ref", { parameters: [{ $ref: "other.yaml#/p" }] }, "only local $refs are supported"],
    [
      "path parameter missing from the template",
      {
        parameters: [
          { name: "thingUuid", in: "path" },
          { name: "otherUuid", in: "path" },
        ],
      },
      "path parameter otherUuid is not in /things/{thingUuid}",
    ],
    [
      "non-JSON request body (A2)",
      { requestBody: { content: { "text/plain": {} } } },
      "post/requestBody: only application/json request bodies are supported",
    ],
  ] as const)("rejects %s with the spec pointer", (_name, op, message) => {
    expect(() => meta(op as Json)).toThrow(message);
  });

  it("rejects a snake_case path parameter (the facade and the table must use one name)", () => {
    const doc = oneOp({ parameters: [{ name: "thing_uuid", in: "path", required: true }] });
    const paths = doc.paths as Json;
    paths["/things/{thing_uuid}"] = paths["/things/{thingUuid}"];
    delete paths["/things/{thingUuid}"];
    expect(() => readOperations(createSpec("inline.yaml", doc))).toThrow("path parameter thing_uuid must be camelCase");
  });

  it("rejects a duplicate operationId", () => {
    const doc = oneOp({});
    (doc.paths as Json)["/other"] = { get: { operationId: "things.poke", responses: { "200": { description: "x" } } } };
    expect(() => readOperations(createSpec("inline.yaml", doc))).toThrow("duplicate operationId things.poke");
  });
});
