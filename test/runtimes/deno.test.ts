// Deno (npm deno): the smoke with node:sqlite (better-sqlite3, a Node addon, does not load in Deno),
// and a journal in a folder Deno was not given access to.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeBinary } from "./binaries";
import { bundle, defineSmokeSuite, lastJson, runWith } from "./smoke";

defineSmokeSuite("Deno", "deno", (_bin, script) => ["run", "--allow-all", "--no-prompt", script], "node:sqlite");

describe("Deno: a journal it may not write", () => {
  let dir: string;
  beforeAll(async () => {
    runtimeBinary("deno"); // a missing runtime fails here, saying how to get it
    dir = mkdtempSync(join(tmpdir(), "reseller-deno-perm-"));
    mkdirSync(join(dir, "locked"));
    await bundle("test/runtimes/app/smoke.ts", join(dir, "smoke.mjs"), "node");
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("G1: without --allow-write for its folder, the journal is an InvalidOptionsError naming the flags to grant", async () => {
    const { code, out } = await runWith(
      "deno",
      (_bin, script) => ["run", `--allow-read=${dir}`, "--allow-env", "--no-prompt", script],
      dir,
      "no-access",
    );
    const e = lastJson(out, "Deno");
    expect(e, out).toMatchObject({ name: "InvalidOptionsError", code: "invalid_options", option: "filename" });
    const locked = join(dir, "locked");
    expect(e.message).toContain(`--allow-read=${locked} --allow-write=${locked}`);
    expect(code).toBe(0);
  });
});
