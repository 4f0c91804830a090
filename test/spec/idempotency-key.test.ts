// D2: the Idempotency-Key is trimmed and 1..160 characters, so a whitespace-only key is invalid; the
// schema says so (JSON Schema `pattern` is an unanchored ECMA-262 regex), not only the prose.
import { describe, expect, it } from "vitest";
import { spec } from "./spec-doc";

describe("D2: Idempotency-Key format in the spec", () => {
  const schema = spec.components.parameters.IdempotencyKey.schema as {
    minLength: number;
    maxLength: number;
    pattern?: string;
  };
  const valid = (value: string) =>
    value.length >= schema.minLength &&
    value.length <= schema.maxLength &&
    (schema.pattern === undefined || new RegExp(schema.pattern, "u").test(value));

  it("D2: the Idempotency-Key schema refuses a whitespace-only key and accepts 1..160 characters", () => {
    expect(valid("   ")).toBe(false);
    expect(valid("\t")).toBe(false);
    expect(valid("")).toBe(false);
    expect(valid("k".repeat(161))).toBe(false);
    expect(valid("k")).toBe(true);
    expect(valid(" order-10042 ")).toBe(true); // trimmed by the API, still one key
    expect(valid("k".repeat(160))).toBe(true);
  });
});
