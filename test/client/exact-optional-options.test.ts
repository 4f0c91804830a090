// An app compiled with `exactOptionalPropertyTypes: true` passes options as `cond ? value : undefined`:
// every optional field of a public option type accepts an explicit `undefined` (tsc over
// test/client/samples/exact-optional-options.ts with that flag), and at run time an explicit
// `undefined` is exactly an absent field: no misspelt-key refusal, every default applied.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { startEmulatorServer } from "../../emulator/server";
import { createRetryBudget } from "../../runner";
import { createResellerClient, type ResellerClientOptions } from "../../src/index";
import { checkOptions } from "../../src/options";
import { resolveOptions } from "../../src/resolved-options";
import { createMemoryJournal } from "../../stores/memory-journal";

const root = new URL("../..", import.meta.url).pathname;

/** tsc with the strictest flags an application may set; only the sample's own diagnostics count. */
function typecheck(file: string): string[] {
  const program = ts.createProgram([file], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    esModuleInterop: true,
    skipLibCheck: true,
    resolveJsonModule: true,
    noEmit: true,
    types: ["node"],
    typeRoots: [join(root, "node_modules/@types")],
  });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName === file)
    .map((d) => {
      const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
      return `${line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
    });
}

/** Every option of createResellerClient() but the two required ones, each explicitly undefined. */
const ALL_UNDEFINED = {
  fetch: undefined,
  clock: undefined,
  random: undefined,
  language: undefined,
  timeoutMs: undefined,
  deadlineMs: undefined,
  maxResponseBytes: undefined,
  retry: undefined,
  pacing: undefined,
  pacer: undefined,
  journal: undefined,
  onEvent: undefined,
  logger: undefined,
  telemetry: undefined,
  allowLiveOnlyWithTestKey: undefined,
  allowInsecureHttp: undefined,
  recoverOnStart: undefined,
  fleet: undefined,
} satisfies Record<Exclude<keyof ResellerClientOptions, "baseUrl" | "token">, undefined>;

describe("public option types under exactOptionalPropertyTypes", () => {
  it("every optional field of every public input option type takes an explicit undefined (tsc, exactOptionalPropertyTypes)", () => {
    expect(typecheck(join(root, "test/client/samples/exact-optional-options.ts"))).toEqual([]);
  }, 120_000);

  it("the sample's check is not vacuous: a field declared `k?: V` is refused under the flag", () => {
    const dir = mkdtempSync(join(tmpdir(), "exact-optional-"));
    try {
      const file = join(dir, "control.ts");
      writeFileSync(
        file,
        [
          'import type { RefusesUndefined } from "' + join(root, "test/client/samples/exact-optional-options") + '";',
          "export const refused: RefusesUndefined<{ a?: number; b?: number | undefined; c: string }> = 'a';",
          "// @ts-expect-error b accepts undefined",
          "export const accepted: RefusesUndefined<{ a?: number; b?: number | undefined }> = 'b';",
          "",
        ].join("\n"),
      );
      expect(typecheck(file)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("an explicit undefined is an absent option: no unknown-name refusal, and the same resolved defaults", () => {
    const base = { baseUrl: "http://127.0.0.1:1/api/reseller/v1", token: "rsl_test_x" };
    const withUndefined: ResellerClientOptions = {
      ...base,
      ...ALL_UNDEFINED,
      retry: {
        maxAttempts: undefined,
        baseMs: undefined,
        capMs: undefined,
        maxRateLimitRetries: undefined,
        budget: { capacity: undefined, retryCost: undefined, timeoutCost: undefined, successRefill: undefined },
      },
      pacing: { windowMs: undefined, store: undefined, maxConcurrency: undefined, initialLimit: undefined },
    };
    expect(() => checkOptions(withUndefined)).not.toThrow();
    expect(resolveOptions(withUndefined)).toEqual(resolveOptions(base));
    const journal = createMemoryJournal({ clock: undefined });
    const fleet: ResellerClientOptions = {
      ...base,
      journal,
      fleet: {
        workerId: "w-1",
        leaseMs: undefined,
        heartbeatMs: undefined,
        continuousRecovery: { intervalMs: undefined, batch: undefined, concurrency: undefined, onRound: undefined },
      },
    };
    expect(() => checkOptions(fleet)).not.toThrow();
    expect(resolveOptions(fleet).fleet).toEqual(
      resolveOptions({ ...base, journal, fleet: { workerId: "w-1", continuousRecovery: true } }).fleet,
    );
    const budget = createRetryBudget({ capacity: undefined, retryCost: undefined });
    expect(budget.available()).toBe(createRetryBudget().available());
    expect(budget.tryAcquire("error")).toBe(createRetryBudget().tryAcquire("error"));
  });

  it("createResellerClient({ baseUrl, token, pacing: undefined, onEvent: undefined, journal: undefined }) works against the emulator like the defaults", async () => {
    const server = await startEmulatorServer({
      withDefaultKeys: true,
      host: undefined,
      port: undefined,
      seed: undefined,
    });
    try {
      const { token } = server.emulator.control.keys().find((k) => k.environment === "test")!;
      const defaults = createResellerClient({ baseUrl: server.baseUrl, token });
      const explicit = createResellerClient({
        baseUrl: server.baseUrl,
        token,
        pacing: undefined,
        onEvent: undefined,
        journal: undefined,
      });
      const everyUndefined = createResellerClient({ baseUrl: server.baseUrl, token, ...ALL_UNDEFINED });
      const contexts = [];
      for (const client of [defaults, explicit, everyUndefined]) {
        const context = await client.context.get();
        expect(context.kind).toBe("succeeded");
        contexts.push(context.kind === "succeeded" ? context.data.data : undefined);
        const domain = server.emulator.control.createDomain({ token, name: `x${contexts.length}.kz` });
        const renewed = await client.domains.renew({ domainUuid: domain.uuid, body: { period: 1 } });
        expect(["succeeded", "accepted"]).toContain(renewed.kind);
      }
      expect(contexts[1]).toEqual(contexts[0]);
      expect(contexts[2]).toEqual(contexts[0]);
      expect(server.emulator.control.effects().filter((e) => e.kind === "domain.renew")).toHaveLength(3);
      await Promise.all([defaults.close(), explicit.close(), everyUndefined.close()]);
    } finally {
      await server.close();
    }
  });
});
