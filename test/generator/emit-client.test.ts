import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emitClient } from "../../generator/emit-client";
import { generate } from "../../generator/main";
import { loadSpec } from "../../generator/spec";
import { createFacade, type Invoke, type OperationArgs } from "../fixtures/generator/mini/want/client";
import type { OperationId } from "../fixtures/generator/mini/want/operations";
import { createFacade as createEdgeFacade } from "../fixtures/generator/edge/want/client";
import type { OperationId as EdgeOperationId } from "../fixtures/generator/edge/want/operations";
import { fixtureNames, fixtureSpec, tempDir, typecheck, wantFile, type TempDir } from "./support";

describe("emitClient: spec → generated/client.ts", () => {
  it.each(fixtureNames())("fixture %s matches want/client.ts", async (fixture) => {
    await expect(emitClient(loadSpec(fixtureSpec(fixture)))).toMatchFileSnapshot(wantFile(fixture, "client.ts"));
  });
});

describe("createFacade (runtime)", () => {
  const calls: unknown[][] = [];
  const invoke: Invoke = (...call) => {
    calls.push(call);
    return `result of ${call[0]}`;
  };
  const facade = createFacade<Record<OperationId, string>, { signal?: AbortSignal }>(invoke);

  it("groups by the part before the dot and forwards (operationId, args, options) unchanged", () => {
    calls.length = 0;
    const args: OperationArgs["domains.renew"] = {
      domainUuid: "0f8e2b1c-5a7d-4e3f-9b2a-1c4d5e6f7a8b",
      body: { period: 2 },
    };
    const options = { signal: new AbortController().signal };
    expect(facade.domains.renew(args, options)).toBe("result of domains.renew");
    expect(facade.webhooks.delete({ webhookUuid: "u" })).toBe("result of webhooks.delete");
    expect(calls).toEqual([
      ["domains.renew", args, options],
      ["webhooks.delete", { webhookUuid: "u" }, undefined],
    ]);
    expect(calls[0][1]).toBe(args); // no copy: the middleware sees the caller's exact object
  });

  it("omitted args reach invoke as {}", () => {
    calls.length = 0;
    facade.context.get();
    facade.domains.list();
    facade.tickets.create(); // optional requestBody → args optional
    expect(calls).toEqual([
      ["context.get", {}, undefined],
      ["domains.list", {}, undefined],
      ["tickets.create", {}, undefined],
    ]);
  });

  it("exposes exactly the spec's resources and methods", () => {
    expect(Object.fromEntries(Object.entries(facade).map(([k, v]) => [k, Object.keys(v)]))).toEqual({
      context: ["get"],
      domains: ["list", "renew"],
      webhooks: ["delete"],
      tickets: ["create"],
    });
  });
});

describe("createFacade on the edge fixture", () => {
  it("a required query makes args required; an optional body stays optional", () => {
    const calls: unknown[][] = [];
    const facade = createEdgeFacade<Record<EdgeOperationId, number>>((...call) => calls.push(call));
    facade.reports.export({ query: { from: "2026-01-01" } });
    facade.accounts.update({ accountId: "a" });
    facade.accounts.close({ accountId: "a" }, { note: 1 });
    expect(calls).toEqual([
      ["reports.export", { query: { from: "2026-01-01" } }, undefined],
      ["accounts.update", { accountId: "a" }, undefined],
      ["accounts.close", { accountId: "a" }, { note: 1 }],
    ]);
  });
});

describe("generated client typechecks and types its arguments (tsc on the output)", () => {
  let temp: TempDir;
  afterAll(() => temp.cleanup());

  const usage = (body: string) => `
import { createFacade, type OperationData } from "./client";
import type { OperationId } from "./operations";
type R = { [K in OperationId]: Promise<OperationData[K]> };
const api = createFacade<R, { timeoutMs?: number }>(() => Promise.resolve(undefined));
export async function use(): Promise<void> {
${body}
}
`;
  const ok = `
  const ctx = await api.context.get();
  const env: "test" | "live" = ctx.data.environment;
  await api.domains.list({ query: { per_page: 100, cursor: "abc" } }, { timeoutMs: 5 });
  const op = await api.domains.renew({ domainUuid: "d", body: { period: 1 } });
  const uuid: string = op.data.uuid;
  const gone: undefined = await api.webhooks.delete({ webhookUuid: "w" });
  await api.tickets.create();
  void env; void uuid; void gone;`;
  const bad = [
    ["missing path parameter", `await api.domains.renew({ body: { period: 1 } });`, "domainUuid"],
    ["args omitted where a path parameter is required", `await api.webhooks.delete();`, "Expected 1-2 arguments"],
    [
      "wrong body field type",
      `await api.domains.renew({ domainUuid: "d", body: { period: "1" } });`,
      "Type 'string' is not assignable to type 'number'",
    ],
    ["unknown query parameter", `await api.domains.list({ query: { page: 2 } });`, "'page' does not exist"],
    [
      "args on an operation without input",
      `await api.context.get({ domainUuid: "d" });`,
      "not assignable to type 'never'",
    ],
    [
      "wrong options type",
      `await api.context.get({}, { timeoutMs: "5" });`,
      "Type 'string' is not assignable to type 'number'",
    ],
    [
      "204 body is undefined",
      `const x: string = await api.webhooks.delete({ webhookUuid: "w" }); void x;`,
      "'undefined' is not assignable to type 'string'",
    ],
  ] as const;
  const fileOf = (name: string) => `${name.replace(/\W+/g, "-")}.ts`;
  let diagnostics: string[] = [];

  beforeAll(async () => {
    temp = tempDir("client-types"); // here, not at collection: a filtered-out suite runs no hooks
    const dir = temp.dir;
    await generate({ spec: fixtureSpec("mini"), out: dir });
    writeFileSync(join(dir, "ok.ts"), usage(ok));
    for (const [name, body] of bad) writeFileSync(join(dir, fileOf(name)), usage(`  ${body}`));
    // One program for every file: lib parsing dominates, so this is ~10x faster than one per case.
    diagnostics = typecheck(
      readdirSync(dir)
        .filter((f) => f.endsWith(".ts"))
        .map((f) => join(dir, f)),
    );
  });

  const of = (file: string) => diagnostics.filter((d) => d.includes(`/${file}:`));

  it("emitted files and correct calls have no diagnostics; success bodies are inferred", () => {
    const others = diagnostics.filter((d) => !bad.some(([name]) => d.includes(`/${fileOf(name)}:`)));
    expect(others).toEqual([]);
  });

  it.each(bad)("rejects %s", (name, _body, message) => {
    expect(of(fileOf(name)).join("\n")).toContain(message);
  });
});
