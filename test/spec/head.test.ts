// A7/D1: GET and HEAD are the safe methods. The spec declares HEAD on every path with a GET — that GET
// without the body — so tools (Prism, openapi-fetch's types) can check it; the generator marks the GET's
// row `head: true` and the emulator answers HEAD only there.
import { describe, expect, it } from "vitest";
import { operationList } from "../../generated/operations";
import { deref, headOps, ops, params, spec } from "./spec-doc";

const getOf = (path: string) => ops.find((o) => o.path === path && o.method === "get");
const refName = (node: { $ref?: string }) => node.$ref?.split("/").pop();

describe("HEAD (A7, D1)", () => {
  it("A7: every path with a GET declares HEAD, and no other path does", () => {
    expect(headOps.map((o) => o.path).sort()).toEqual(
      ops
        .filter((o) => o.method === "get")
        .map((o) => o.path)
        .sort(),
    );
    expect(headOps).toHaveLength(14);
  });

  it("D1/A6: a HEAD is its GET without the body — operationId <get>Head, same scopes and parameters, no Idempotency-Key", () => {
    for (const head of headOps) {
      const get = getOf(head.path)!;
      expect(head.id).toBe(`${get.id}Head`);
      expect(head.op.security, head.id).toEqual(get.op.security);
      expect(head.op.tags, head.id).toEqual(get.op.tags);
      expect(params(head).map((p) => `${p.in}:${p.name}`)).toEqual(params(get).map((p) => `${p.in}:${p.name}`));
      expect(
        params(head).some((p) => p.name.toLowerCase() === "idempotency-key"),
        head.id,
      ).toBe(false);
      expect(head.op.requestBody, head.id).toBeUndefined();
    }
  });

  it("RFC 9110 §9.3.2: the GET's statuses (less the router's 405) with headers and no content", () => {
    for (const head of headOps) {
      const get = getOf(head.path)!;
      const statuses = Object.keys(get.op.responses).filter((s) => s !== "405");
      expect(Object.keys(head.op.responses), head.id).toEqual(statuses);
      for (const [status, raw] of Object.entries(head.op.responses as Record<string, { $ref: string }>)) {
        const response = deref(raw);
        expect(response.content, `${head.id} ${status}`).toBeUndefined();
        const want = status.startsWith("2") ? "HeadSuccess" : status === "429" ? "HeadRateLimited" : "HeadError";
        expect(refName(raw), `${head.id} ${status}`).toBe(want);
      }
    }
  });

  it("C11/C12: a HEAD 429 documents Retry-After, seconds or an HTTP-date (the proxy's shape)", () => {
    const header = deref(spec.components.responses.HeadRateLimited.headers["Retry-After"]);
    const pattern = new RegExp(header.schema.pattern as string);
    expect(header.schema.type).toBe("string");
    expect(pattern.test("42")).toBe(true);
    expect(pattern.test("Mon, 05 Oct 2026 09:00:42 GMT")).toBe(true);
  });

  it("the generated table marks exactly the GETs whose path declares HEAD", () => {
    const marked = operationList.filter((o) => o.head).map((o) => o.operationId);
    expect(marked.sort()).toEqual(headOps.map((o) => o.id.replace(/Head$/, "")).sort());
    expect(operationList.filter((o) => o.head && o.method !== "GET")).toEqual([]);
  });
});
