// J1: the SDK reference documents every call a user makes — one section per method of the client's
// facade, with an anchor of its own and an example that type-checks against the package's types.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { methodDocs, resourceIndex, resourcePage, WAIT_ANCHOR, WAIT_EXAMPLE } from "../../docs/.vitepress/sdk-methods";
import { repoRoot } from "../../docs/.vitepress/package-entries";
import { createResellerClient } from "../../src/index";
import { pointAtSources, typecheck } from "./guide-blocks";

const resources = methodDocs();
const TOKEN = `rsl_test_${"A".repeat(24)}.${"s".repeat(64)}`;

/** The facade as a user sees it: every function-valued property of every resource of a real client. */
function facadeMethods(): string[] {
  const client = createResellerClient({ baseUrl: "http://127.0.0.1:9/api/reseller/v1", token: TOKEN });
  const names: string[] = [];
  for (const r of resources) {
    const resource = (client as unknown as Record<string, Record<string, unknown>>)[r.resource];
    for (const [name, value] of Object.entries(resource))
      if (typeof value === "function") names.push(`${r.resource}.${name}`);
  }
  return names.sort();
}

describe("J1: SDK method pages", () => {
  it("every client.<resource>.<method> of the facade has its own section and anchor, in both languages", () => {
    // operations.wait is the client's own method (not an API operation), written beside the others.
    const documented = [
      ...resources.flatMap((r) => r.methods.map((m) => `${m.resource}.${m.method}`)),
      "operations.wait",
    ];
    expect(documented.sort()).toEqual(facadeMethods());
    const operations = resources.find((r) => r.resource === "operations")!;
    for (const lang of ["en", "ru"] as const) expect(resourcePage(operations, lang)).toContain(`{#${WAIT_ANCHOR}}`);
    for (const lang of ["en", "ru"] as const) {
      for (const r of resources) {
        const page = resourcePage(r, lang);
        for (const m of r.methods) expect(page).toContain(`## \`${m.call}()\` {#${m.anchor}}`);
        expect(resourceIndex(resources, lang)).toContain(`(./${r.resource}.md#${r.methods[0].anchor})`);
      }
    }
    const anchors = resources.flatMap((r) => r.methods.map((m) => m.anchor));
    expect(new Set(anchors).size).toBe(anchors.length);
  });

  it("every method names its HTTP operation, each Outcome kind it can return, and its Idempotency-Key rule", () => {
    for (const r of resources) {
      const page = resourcePage(r, "en");
      for (const m of r.methods) {
        const section = page.slice(page.indexOf(`{#${m.anchor}}`), page.indexOf(`{#${m.anchor}-example}`));
        expect(section).toContain(`#operation/${m.meta.operationId}`);
        expect(section).toContain("| `succeeded` |");
        expect(section).toContain("| `unknown` |");
        expect(section.includes("| `accepted` |")).toBe(m.meta.asyncOperation);
        expect(section.includes("| `conflict` |")).toBe(m.meta.idempotencyRequired);
        if (m.meta.idempotencyRequired) expect(section).toContain("options.idempotencyKey");
      }
    }
  });

  it("every example type-checks against the package's public types", () => {
    const dir = join(repoRoot, ".tmp/sdk-method-examples");
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const written = resources.flatMap((r) =>
      r.methods.map((m) => {
        const path = join(dir, `${m.anchor}.ts`);
        writeFileSync(path, pointAtSources(m.example, dir));
        return {
          path,
          line: 0,
          guide: { file: `docs/sdk/client/${r.resource}.md#${m.anchor}`, slug: m.anchor, title: m.call },
        };
      }),
    );
    const waitPath = join(dir, `${WAIT_ANCHOR}.ts`);
    writeFileSync(waitPath, pointAtSources(WAIT_EXAMPLE, dir));
    written.push({
      path: waitPath,
      line: 0,
      guide: { file: "docs/sdk/client/operations.md", slug: WAIT_ANCHOR, title: "wait" },
    });
    expect(written.length).toBeGreaterThan(20);
    expect(typecheck(written)).toEqual([]);
  }, 600_000); // a whole-program type-check: minutes on a loaded two-core machine, not a speed target
});
