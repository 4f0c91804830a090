/**
 * J3: `npm run generate` runs two validators no one here wrote (generator/validate.ts):
 * @seriousme/openapi-schema-validator and openapi-examples-validator. The real spec passes both; a
 * copy with one broken example, or one invalid node, fails the step with the place named.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { schemaErrorsOf, validateSpec, type SpecValidation } from "../../generator/validate";
import { ROOT, tempDir, type TempDir } from "./support";

const SPEC = join(ROOT, "spec/openapi.yaml");
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the copies are edited node by node
const readSpec = (): any => parse(readFileSync(SPEC, "utf8"), { maxAliasCount: -1 });

describe("J3: independent validators inside npm run generate", () => {
  let dir: TempDir;
  let real: SpecValidation;
  beforeAll(async () => {
    dir = tempDir("validate");
    real = await validateSpec(SPEC);
  }, 300_000);
  afterAll(() => dir.cleanup());

  it("J3: the unmodified spec is valid OpenAPI 3.1 and openapi-examples-validator reports 0 errors", () => {
    expect(real.schemaErrors).toEqual([]);
    expect(real.exampleErrors).toEqual([]);
    expect(real.examplesWithoutSchema).toBe(0);
    // Every operation has examples (J2): hundreds, not a vacuous pass over none.
    expect(real.examplesTotal).toBeGreaterThan(500);
  });

  it("J2: one broken example fails the step (exit 1) and names the example", () => {
    const doc = readSpec();
    doc.paths["/context"].get.responses["200"].content[
      "application/json"
    ].examples.test_key.value.data.credential.rate_limit_per_minute = "many";
    const file = join(dir.dir, "broken-example.json");
    writeFileSync(file, JSON.stringify(doc));
    const run = spawnSync(join(ROOT, "node_modules/.bin/tsx"), ["generator/validate.ts", "--spec", file], {
      cwd: ROOT,
      encoding: "utf8",
    });
    expect(run.status, run.stdout + run.stderr).toBe(1);
    expect(run.stderr).toContain("openapi-examples-validator: /paths/~1context/get/responses/200");
    expect(run.stderr).toContain("examples/test_key");
  }, 300_000);

  it("J3: a node the OpenAPI 3.1 meta-schema forbids fails the schema validator", async () => {
    const doc = readSpec();
    // A response object without its required description.
    delete doc.paths["/context"].get.responses["200"].description;
    const errors = await schemaErrorsOf(doc);
    expect(errors.length, "the meta-schema must reject it").toBeGreaterThan(0);
  }, 300_000);

  it("J3: npm run generate is generator/run.ts, which waits for the validators and fails when they fail", () => {
    const scripts = (
      JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts.generate).toBe("tsx generator/run.ts");
    // Behaviour (nothing written from a failing spec, every status reported): test/generator/run.test.ts.
  });
});
