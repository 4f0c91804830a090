/**
 * A7/D1: a `head` in the spec is its path's GET without the body. The generator marks the GET's row
 * `head: true` and refuses a HEAD that differs from the GET in anything but the body.
 */
import { describe, expect, it } from "vitest";
import { readOperations } from "../../generator/model";
import { createSpec, type Json } from "../../generator/spec";

const param = { name: "thingUuid", in: "path", required: true, schema: { type: "string" } };
const get = {
  operationId: "things.get",
  security: [{ bearerAuth: ["things.read"] }],
  parameters: [param],
  responses: {
    "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } },
    "404": { description: "not found", content: { "application/json": { schema: { type: "object" } } } },
  },
};
const head = {
  operationId: "things.getHead",
  security: [{ bearerAuth: ["things.read"] }],
  parameters: [param],
  responses: { "200": { description: "ok, no body" }, "404": { description: "not found, no body" } },
};

function read(item: Json) {
  const doc = { openapi: "3.1.0", info: { title: "t", version: "1" }, paths: { "/things/{thingUuid}": item } };
  return readOperations(createSpec("inline.yaml", doc));
}

describe("generator: HEAD mirrors its GET", () => {
  it("A7: a declared HEAD marks the GET (head: true) and adds no operation of its own", () => {
    const ops = read({ get, head });
    expect(ops.map((o) => [o.operationId, o.head])).toEqual([["things.get", true]]);
    expect(read({ get }).map((o) => o.head)).toEqual([false]);
  });

  it.each([
    [{ head }, "#/paths/~1things~1{thingUuid}/head: a HEAD needs a GET on the same path"],
    [{ get, head: { ...head, operationId: "things.peek" } }, "expected things.getHead"],
    [{ get, head: { ...head, security: [{ bearerAuth: [] }] } }, "scopes must equal the GET's (things.read)"],
    [
      { get, head: { ...head, parameters: [param, { name: "per_page", in: "query", schema: { type: "integer" } }] } },
      "parameters must equal the GET's",
    ],
    [
      { get, head: { ...head, requestBody: { content: { "application/json": { schema: {} } } } } },
      "a HEAD takes no body",
    ],
    [{ get, head: { ...head, responses: get.responses } }, "/head/responses/200/content: a HEAD response has no body"],
    [{ get, head: { ...head, deprecated: true } }, "/head/deprecated: deprecated must equal the GET's (false)"],
  ])("D1: a HEAD that is not its GET without the body is refused (%#)", (item, message) => {
    expect(() => read(item as Json)).toThrow(message);
  });

  it("A7: a HEAD whose statuses differ from its GET's is refused with its pointer (the router's 405 aside)", () => {
    const only200 = { ...head, responses: { "200": head.responses["200"] } };
    expect(() => read({ get, head: only200 })).toThrow(
      "#/paths/~1things~1{thingUuid}/head/responses: the statuses must equal the GET's less 405 (200, 404); missing 404",
    );
    const extra409 = { ...head, responses: { ...head.responses, "409": { description: "conflict, no body" } } };
    expect(() => read({ get, head: extra409 })).toThrow("not the GET's 409");
    // The GET may document the router's 405; its HEAD does not (a path with a GET answers HEAD).
    const get405 = { ...get, responses: { ...get.responses, "405": { description: "router" } } };
    expect(read({ get: get405, head }).map((o) => o.head)).toEqual([true]);
  });
});
