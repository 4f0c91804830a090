/**
 * J1/J3: what the contributor docs say about the generator is what it does. The extension table in
 * docs/guides/regenerating.md (and its Russian twin) is the one list, complete against
 * generator/extensions.ts; the README and spec/README link to it; the steps after a spec change are all
 * there; and spec/README names files that exist.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OPERATION_EXTENSIONS, SCHEMA_EXTENSIONS } from "../../generator/extensions";
import { ROOT } from "./support";

const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const GUIDES = ["docs/guides/regenerating.md", "docs/ru/guides/regenerating.md"];
const ALL = [...OPERATION_EXTENSIONS, ...SCHEMA_EXTENSIONS];

/** Extensions named in a markdown table's first column. */
const tabled = (text: string) =>
  [...text.matchAll(/^\| `(x-[a-z-]+)[:`]/gm)].map((m) => m[1]).filter((x, i, all) => all.indexOf(x) === i);

describe("J1: docs/guides/regenerating.md", () => {
  it.each(GUIDES)("J1: %s tables every extension the generator reads, and no other", (guide) => {
    expect(tabled(read(guide)).sort()).toEqual([...ALL].sort());
  });

  it("J1: the README and spec/README link to the one table instead of keeping their own", () => {
    for (const file of ["README.md", "spec/README.md"]) {
      const text = read(file);
      expect(text, file).toContain("regenerating.md#vendor-extensions");
      expect(tabled(text), file).toEqual([]);
    }
  });

  it.each(GUIDES)(
    "E4: %s explains a new error code with x-error-statuses and its <Code>Envelope, no mapping",
    (guide) => {
      const text = read(guide);
      expect(text).toContain("x-error-statuses: [<status>, …]");
      expect(text).toContain("<Code>Envelope");
      expect(text).not.toMatch(/with its `discriminator\.mapping` entry|с записью в `discriminator\.mapping`/);
    },
  );

  it.each(GUIDES)("J3: %s lists every step after a spec change, not only npm run generate", (guide) => {
    const text = read(guide);
    for (const step of [
      "npm run generate",
      "npm run typecheck",
      "emulator/resources/index.ts",
      "test/generator/generated.test.ts",
      "test/conformance/prism.test.ts",
      "npm run api:check",
      "npx changeset",
    ])
      expect(text, step).toContain(step);
    // It must not claim that generate typechecks everything that uses generated/.
    expect(text).not.toContain("typechecks everything that uses it");
  });

  it("J3: tsconfig.generated.json covers what the guide says npm run generate typechecks", () => {
    const config = JSON.parse(read("tsconfig.generated.json")) as { include: string[] };
    expect(config.include.sort()).toEqual(["generated", "generator", "runtime"]);
    expect(read(GUIDES[0])).toContain("`generated/`, `generator/` and `runtime/` only");
  });
});

describe("spec/README.md", () => {
  it("J1: every repository path it names in backticks exists (the HTTP reference is docs/public/reference/http.html)", () => {
    const text = read("spec/README.md");
    expect(text).not.toContain("docs/reference/index.html");
    const paths = [...text.matchAll(/`((?:docs|generator|test|spec)\/[\w./-]+\.(?:html|md|ts|yaml|js))`/g)].map(
      (m) => m[1],
    );
    expect(paths).toContain("docs/public/reference/http.html");
    for (const path of paths.filter((p) => !p.includes("<"))) expect(existsSync(join(ROOT, path)), path).toBe(true);
  });
});
