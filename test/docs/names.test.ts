// J1: one set of names. Every environment variable the README, the guides (both languages), the
// contract and the package's READMEs mention is one the CLI reads — the names users copy into their
// deployment are the names the code knows.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { docsRoot, listGuides, LOCALES } from "../../docs/.vitepress/guides";
import { repoRoot } from "../../docs/.vitepress/package-entries";

/** The variables the CLI reads (`env.RESELLER_…` in cli/): the one list users see in `reseller --help`. */
function namesTheCodeReads(): Set<string> {
  const names = new Set<string>();
  for (const file of readdirSync(join(repoRoot, "cli"))) {
    if (!file.endsWith(".ts")) continue;
    for (const m of readFileSync(join(repoRoot, "cli", file), "utf8").matchAll(/env\.(RESELLER_[A-Z_]+)/g))
      names.add(m[1]);
  }
  return names;
}

function documents(): string[] {
  const guides = LOCALES.flatMap((l) => listGuides(l).map((g) => g.file));
  const indexes = LOCALES.map((l) => join(docsRoot, l.prefix, "guides/README.md"));
  return [
    join(repoRoot, "README.md"),
    join(docsRoot, "contract.md"),
    join(docsRoot, "ru/contract.md"),
    join(repoRoot, "emulator/README.md"),
    join(repoRoot, "cli/README.md"),
    ...indexes,
    ...guides,
  ];
}

describe("J1: one set of names across README, guides, CLI and samples", () => {
  it("every RESELLER_* variable in the docs is one the CLI reads", () => {
    const known = namesTheCodeReads();
    expect([...known].sort()).toEqual(expect.arrayContaining(["RESELLER_API_BASE_URL", "RESELLER_API_TOKEN"]));
    const unknown: string[] = [];
    for (const file of documents()) {
      for (const m of readFileSync(file, "utf8").matchAll(/\bRESELLER_[A-Z_]+\b/g)) {
        if (!known.has(m[0])) unknown.push(`${relative(repoRoot, file)}: ${m[0]}`);
      }
    }
    expect(unknown, `use one of ${[...known].join(", ")}`).toEqual([]);
  });

  it("no guide sends readers to a source file they do not have", () => {
    const internal = /`((?:runner|pacing|middleware|journal|recovery|core|stores|src)\/[\w/.-]+\.ts)`/g;
    const found: string[] = [];
    for (const file of LOCALES.flatMap((l) => listGuides(l).map((g) => g.file))) {
      for (const m of readFileSync(file, "utf8").matchAll(internal)) found.push(`${relative(repoRoot, file)}: ${m[1]}`);
    }
    expect(found).toEqual([]);
  });
});
