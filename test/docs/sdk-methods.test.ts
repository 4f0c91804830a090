// J1: the SDK reference documents every call a user makes — one section per method of the client's
// facade, with an anchor of its own and an example that type-checks against the package's types.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { methodDocs, resourceIndex, resourcePage, WAIT_ANCHOR, WAIT_EXAMPLE } from "../../docs/.vitepress/sdk-methods";
import { repoRoot } from "../../docs/.vitepress/package-entries";
import { createResellerClient } from "../../src/index";
import { pointAtSources, typecheck } from "./guide-blocks";
import { tsdocExamples, writeTsdocExamples } from "./tsdoc-examples";

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

  it("the TSDoc @example blocks are found, createResellerClient()'s among them", () => {
    const examples = tsdocExamples();
    expect(examples.find((e) => e.file === "src/client.ts")?.code).toContain("createResellerClient({");
  });

  it("no example prints a secret response field (x-sensitive-fields: D9, H2), and each write has a key of its own (D5, D7)", () => {
    const keys = new Map<string, string>();
    for (const r of resources)
      for (const m of r.methods) {
        for (const field of m.meta.sensitiveFields) {
          // The secret is taken out of what is printed and handed on, with a comment that says why.
          expect(m.example, m.call).toContain(`const { ${field}`);
          expect(m.example, m.call).toContain(`await keepSecret(${field})`);
          expect(m.example, m.call).toMatch(/never log (it|them)/);
          expect(m.example, m.call).not.toContain("console.log(outcome.data)");
        }
        if (!m.meta.idempotencyRequired) {
          expect(m.example, m.call).not.toContain("idempotencyKey");
          continue;
        }
        const key = /idempotencyKey: ("[^"]+"|`[^`]+`)/.exec(m.example)?.[1];
        expect(key, m.call).toBeDefined();
        expect(key).not.toContain("your-command-id");
        expect(keys.get(key!), `${m.call} shares its key with ${keys.get(key!)}`).toBeUndefined();
        keys.set(key!, m.call);
        expect(m.example, m.call).toContain("business command");
      }
  });

  it("reads list ReadCallOptions (no idempotencyKey), and every method says what it throws", () => {
    for (const lang of ["en", "ru"] as const)
      for (const r of resources) {
        const page = resourcePage(r, lang);
        for (const m of r.methods) {
          const options = page.slice(page.indexOf(`{#${m.anchor}-options}`), page.indexOf(`{#${m.anchor}-returns}`));
          if (m.meta.idempotencyRequired) expect(options, m.call).toContain("CallOptions.md");
          else {
            expect(options, m.call).toContain("ReadCallOptions");
            expect(options, m.call).not.toMatch(/: `idempotencyKey`/);
          }
          const returns = page.slice(page.indexOf(`{#${m.anchor}-returns}`), page.indexOf(`{#${m.anchor}-example}`));
          for (const error of ["InvalidArgumentError", "RequestAbortedError", "ClientClosedError"])
            expect(returns, m.call).toContain(`| \`${error}\` |`);
          expect(returns.includes("| `LiveOnlyError` |"), m.call).toBe(m.meta.liveOnly);
          expect(returns.includes("| `DomainLockedError` |"), m.call).toBe(m.meta.lockKey !== null);
          expect(returns.includes("| `PaginationError` |"), m.call).toBe(m.meta.pagination !== null);
          if (m.meta.unknownOutcome === "reconcile") expect(returns, m.call).toContain("`outcome.reconciled: true`");
          // per_page: the client throws before sending; the SDK page must not promise the server's 422 outcome.
          const args = page.slice(page.indexOf(`{#${m.anchor}-arguments}`), page.indexOf(`{#${m.anchor}-options}`));
          if (m.meta.queryParams.includes("per_page")) {
            expect(args, m.call).toContain("InvalidArgumentError");
            expect(args, m.call).not.toMatch(/per_page[^\n]*gives 422/);
          }
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
    // The TSDoc @example blocks (createResellerClient()'s hover and TypeDoc page) in the same program.
    const tsdoc = writeTsdocExamples(dir);
    expect(tsdoc.map((e) => e.guide.file)).toContain("src/client.ts");
    written.push(...tsdoc);
    expect(typecheck(written)).toEqual([]);
  }, 600_000); // a whole-program type-check: minutes on a loaded two-core machine, not a speed target
});
