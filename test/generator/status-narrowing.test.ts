// E4: the per-status error types generated from the spec narrow `outcome.error` by `status` — tsc over
// a user's sample (test/generator/samples/rejected-by-status.ts) with @ts-expect-error on what must
// not compile (a 401 carrying `conflict`, a rejected 409).
import { describe, expect, it } from "vitest";
import { apiErrorCodesByStatus } from "../../generated/errors";
import { tscSample } from "../support/tsc-sample";

describe("per-status error types (generated/errors.ts ApiErrorByStatus, core/outcome.ts RejectedOutcome)", () => {
  it("E4: the runtime table ties each declared status to the codes its per-status envelope names", () => {
    expect(apiErrorCodesByStatus).toMatchObject({
      400: ["request_failed"],
      401: ["unauthenticated"],
      403: ["forbidden"],
      404: ["resource_not_found"],
      409: ["conflict"],
      422: ["validation_failed"],
      429: ["rate_limit_exceeded"],
      500: ["internal_error"],
    });
  });

  it("E4: switch (outcome.status) narrows outcome.error to that status's codes; unknown codes kept (tsc)", async () => {
    const result = await tscSample("test/generator/samples/rejected-by-status.ts");
    expect(result.out).toBe("");
    expect(result.code).toBe(0);
  }, 120_000);
});
