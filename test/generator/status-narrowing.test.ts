// E4: the per-status error types generated from the spec narrow `outcome.error` by `status` — tsc over
// a user's sample (test/generator/samples/rejected-by-status.ts) with @ts-expect-error on what must
// not compile (a 401 carrying `conflict`, a rejected 409).
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { apiErrorCodesByStatus } from "../../generated/errors";

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "../..");
const temp = mkdtempSync(join(tmpdir(), "narrowing-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

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
    const config = join(temp, "tsconfig.json");
    writeFileSync(
      config,
      JSON.stringify({
        extends: join(root, "tsconfig.json"),
        compilerOptions: { noEmit: true, types: ["node"], typeRoots: [join(root, "node_modules/@types")] },
        include: [],
        files: [join(root, "test/generator/samples/rejected-by-status.ts")],
      }),
    );
    const tsc = join(root, "node_modules/typescript/bin/tsc");
    const result = await run(process.execPath, [tsc, "-p", config], { cwd: root }).then(
      () => ({ code: 0, out: "" }),
      (error: unknown) => {
        const e = error as { code?: number; stdout?: string };
        return { code: e.code ?? 1, out: e.stdout ?? "" };
      },
    );
    expect(result.out).toBe("");
    expect(result.code).toBe(0);
  }, 120_000);
});
