import { describe, expect, it } from "vitest";
import { emitErrors } from "../../generator/emit-errors";
import { createSpec, loadSpec, type Json } from "../../generator/spec";
import * as edge from "../fixtures/generator/edge/want/errors";
import * as mini from "../fixtures/generator/mini/want/errors";
import { fixtureNames, fixtureSpec, wantFile } from "./support";

const envelope = (error: unknown) => ({ error });
const base = { message: "Something.", request_id: "9f1c3a52-0000-4000-8000-000000000000" };

describe("emitErrors: spec → generated/errors.ts", () => {
  it.each(fixtureNames())("fixture %s matches want/errors.ts", async (fixture) => {
    await expect(emitErrors(loadSpec(fixtureSpec(fixture)))).toMatchFileSnapshot(wantFile(fixture, "errors.ts"));
  });

  it("reads codes from the oneOf/discriminator, including one pinned only by the mapping", () => {
    expect(mini.apiErrorCodes).toEqual(["validation_failed", "rate_limit_exceeded", "payment_required", "forbidden"]);
  });
});

describe("parseApiError on the mini fixture's generated code (E1, E2, E5)", () => {
  it.each([
    ["E1: field errors", { code: "validation_failed", ...base, details: { name: ["The name field is required."] } }],
    ["E2: empty details is []", { code: "validation_failed", ...base, details: [] }],
    [
      "E2: request_id may be null",
      { code: "forbidden", message: "Support is available only to live credentials.", details: [], request_id: null },
    ],
    [
      "C11: limiter 429 details",
      {
        code: "rate_limit_exceeded",
        message: "API rate limit exceeded.",
        details: { retry_after: 42 },
        request_id: "r",
      },
    ],
    ["extra future field is kept", { code: "forbidden", ...base, details: [], hint: "x" }],
  ])("%s → the same error object", (_name, error) => {
    const body = envelope(error);
    expect(mini.parseApiError(body)).toBe(body.error);
    expect(mini.isApiError(body)).toBe(true);
  });

  it.each([
    ["null", null],
    ["a string (HTML page)", "<html><body>502 Bad Gateway</body></html>"],
    ["an array", [{ error: {} }]],
    [
      "E5: router 405 message-only body",
      { message: "The POST method is not supported for route api/reseller/v1/context." },
    ],
    ["error is not an object", { error: "rate_limit_exceeded" }],
    ["code missing", envelope({ ...base, details: [] })],
    ["code not a string", envelope({ code: 429, ...base, details: [] })],
    ["message missing", envelope({ code: "forbidden", details: [], request_id: null })],
    ["request_id missing", envelope({ code: "forbidden", message: "m", details: [] })],
    ["request_id a number", envelope({ code: "forbidden", ...base, request_id: 1, details: [] })],
    ["E2: details null does not occur", envelope({ code: "forbidden", ...base, details: null })],
    ["forbidden with non-empty details", envelope({ code: "forbidden", ...base, details: ["x"] })],
    [
      "validation_failed with non-array field errors",
      envelope({ code: "validation_failed", ...base, details: { name: "required" } }),
    ],
    [
      "validation_failed with non-string messages",
      envelope({ code: "validation_failed", ...base, details: { name: [1] } }),
    ],
    ["rate_limit_exceeded with [] details (a proxy)", envelope({ code: "rate_limit_exceeded", ...base, details: [] })],
    [
      "rate_limit_exceeded with fractional retry_after",
      envelope({ code: "rate_limit_exceeded", ...base, details: { retry_after: 1.5 } }),
    ],
    [
      "rate_limit_exceeded with string retry_after",
      envelope({ code: "rate_limit_exceeded", ...base, details: { retry_after: "42" } }),
    ],
    ["unknown code without message", envelope({ code: "payment_overdue", details: [], request_id: null })],
  ])("%s → undefined, never throws", (_name, body) => {
    expect(mini.parseApiError(body)).toBeUndefined();
    expect(mini.isApiError(body)).toBe(false);
  });

  it("an unknown (newer) code becomes the UnknownCodeErrorBody fallback, keeping code and details", () => {
    const body = envelope({ code: "registry_offline", ...base, details: { registry: "kz" } });
    const error = mini.parseApiError(body);
    expect(error).toEqual({ code: "registry_offline", ...base, details: { registry: "kz" }, unknownCode: true });
    expect(body.error).not.toHaveProperty("unknownCode"); // the input is not mutated
    expect(mini.isApiError(body)).toBe(false);
    if (!error) throw new Error("unreachable");
    expect([mini.isForbidden(error), mini.isValidationFailed(error), mini.isRateLimitExceeded(error)]).toEqual([
      false,
      false,
      false,
    ]);
  });

  it("guards narrow by code and reject the fallback even if it carries a known code", () => {
    const error = mini.parseApiError(envelope({ code: "rate_limit_exceeded", ...base, details: { retry_after: 7 } }));
    if (!error || !mini.isRateLimitExceeded(error)) throw new Error("expected rate_limit_exceeded");
    expect(error.details.retry_after).toBe(7); // typed: { retry_after: number }
    const forged: mini.ApiError = { code: "forbidden", ...base, details: [], unknownCode: true };
    expect(mini.isForbidden(forged)).toBe(false);
  });

  it("after excluding the fallback, switch (code) narrows the details type", () => {
    const error = mini.parseApiError(
      envelope({ code: "validation_failed", ...base, details: { per_page: ["Too big."] } }),
    );
    if (!error || error.unknownCode) throw new Error("expected a known code");
    switch (error.code) {
      case "validation_failed":
        expect(Array.isArray(error.details) ? [] : Object.keys(error.details)).toEqual(["per_page"]);
        break;
      default:
        throw new Error(`unexpected ${error.code}`);
    }
  });
});

describe("emitErrors rejects specs it cannot read (given → want message)", () => {
  const doc = (schemas: Json): Json => ({
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
    paths: {},
    components: { schemas },
  });
  const member = (code: unknown) => ({ type: "object", required: ["code"], properties: { code } });
  it.each([
    ["no error schema", {}, "neither ErrorEnvelope nor ApiError is defined"],
    [
      "envelope without error",
      { ErrorEnvelope: { type: "object", properties: {} } },
      "ErrorEnvelope has no `error` property",
    ],
    ["not a oneOf", { ApiError: { type: "object" } }, "must be a oneOf of one member per code"],
    ["member without a code", { ApiError: { oneOf: [member({ type: "string" })] } }, "cannot tell this member's code"],
    [
      "duplicate code",
      { ApiError: { oneOf: [member({ const: "x" }), member({ const: "x" })] } },
      "code x appears twice",
    ],
    [
      "discriminator on another property",
      { ApiError: { oneOf: [member({ const: "x" })], discriminator: { propertyName: "kind" } } },
      "the discriminator must be `code`",
    ],
  ] as const)("%s", (_name, schemas, message) => {
    expect(() => emitErrors(createSpec("inline.yaml", doc(schemas as Json)))).toThrow(message);
  });
});

describe("parseApiError on the edge fixture (closed objects, nested arrays, bounds, no ErrorEnvelope schema)", () => {
  const invalid = (extra: Json = {}, details: unknown = { fields: [{ name: "label", reason: "too_long" }] }) =>
    envelope({ code: "invalid_input", message: "m", details, ...extra });

  it.each([
    ["nested field errors", invalid()],
    ["optional hint", invalid({ hint: "shorten it" })],
    ["bounded number", envelope({ code: "throttled", message: "m", details: { wait: 3600 } })],
  ])("%s → accepted", (_name, body) => {
    expect(edge.parseApiError(body)).toBe(body.error);
  });

  it.each([
    ["extra key on a closed member", invalid({ extra: 1 })],
    ["extra key in closed details", invalid({}, { fields: [{ name: "a", reason: "missing" }], more: true })],
    ["minItems 1", invalid({}, { fields: [] })],
    ["enum value outside the schema", invalid({}, { fields: [{ name: "a", reason: "other" }] })],
    ["nested item missing a required key", invalid({}, { fields: [{ reason: "missing" }] })],
    ["hint of the wrong type", invalid({ hint: 1 })],
    ["exclusiveMinimum 0", envelope({ code: "throttled", message: "m", details: { wait: 0 } })],
    ["maximum 3600", envelope({ code: "throttled", message: "m", details: { wait: 3600.5 } })],
    ["NaN-like wait", envelope({ code: "throttled", message: "m", details: { wait: "5" } })],
  ])("%s → undefined", (_name, body) => {
    expect(edge.parseApiError(body)).toBeUndefined();
  });

  it("the fallback needs only what every member shares (here: message)", () => {
    expect(edge.parseApiError(envelope({ code: "gone", message: "m" }))).toEqual({
      code: "gone",
      message: "m",
      unknownCode: true,
    });
  });
});
