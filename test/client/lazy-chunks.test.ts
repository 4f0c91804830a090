// recover(), operations.wait, the logger's line formatting and the in-call order lookup (I4) load on
// first use (chunks of their own): the entry an application bundles must not hold them, and loading
// them late must change nothing a caller sees — no log line lost or reordered, recover() and wait()
// answer as before.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { InvalidOptionsError } from "../../src/index";
import { createMemoryJournal } from "../../stores/memory-journal";
import { setup } from "./harness";

const root = fileURLToPath(new URL("../../", import.meta.url));
const LAZY_MODULES = [
  "recovery/recover.ts",
  "recovery/plan.ts",
  "src/operations-wait.ts",
  "src/logging.ts",
  "runner/reconcile-step.ts",
];

/** Source modules in the files that load with the entry, and in the chunks only import() reaches. */
async function splitInputs(): Promise<{ entry: Set<string>; lazy: Set<string> }> {
  const out = await build({
    stdin: { contents: `export { createResellerClient } from "./src/index.ts";`, resolveDir: root, loader: "ts" },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    outdir: join(root, "node_modules/.lazy-chunks-test"),
    write: false,
    metafile: true,
    logLevel: "error",
  });
  const outputs = out.metafile.outputs;
  const start = Object.keys(outputs).find((k) => outputs[k].entryPoint !== undefined)!;
  const statics = new Set<string>();
  const visit = (file: string) => {
    if (statics.has(file)) return;
    statics.add(file);
    for (const i of outputs[file].imports) if (i.kind === "import-statement" && outputs[i.path]) visit(i.path);
  };
  visit(start);
  const entry = new Set<string>();
  const lazy = new Set<string>();
  for (const [file, meta] of Object.entries(outputs)) {
    for (const input of Object.keys(meta.inputs)) (statics.has(file) ? entry : lazy).add(input);
  }
  return { entry, lazy };
}

describe("lazy chunks", () => {
  it("the createResellerClient entry holds no recover(), operations.wait, logger or reconciliation code; import() chunks do", async () => {
    const { entry, lazy } = await splitInputs();
    expect(entry.has("src/client.ts")).toBe(true);
    for (const module of LAZY_MODULES) {
      expect(entry.has(module), `${module} loads with the entry`).toBe(false);
      expect(lazy.has(module), `${module} is in no lazy chunk`).toBe(true);
    }
  });

  it("I7: a logger set at creation gets every line of the first call, in the order the events happened", async () => {
    const h = setup();
    const lines: { level: string; event: unknown }[] = [];
    const at =
      (level: string) =>
      (...args: unknown[]): void =>
        void lines.push({ level, event: (args[1] as { event?: unknown }).event });
    const client = h.makeClient({
      logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") },
    });
    h.emulator.control.addFault({ method: "GET", path: "/domains", kind: "rate_limit_no_header" });
    // Called at once, before the logger's chunk has loaded: every line is written when the call resolves.
    expect((await client.domains.list({ query: { per_page: 5 } })).kind).toBe("succeeded");
    expect(lines).toEqual([
      { level: "debug", event: "reseller.pacer.pause" },
      { level: "debug", event: "reseller.attempt" },
      { level: "warn", event: "reseller.rate_limited" },
      { level: "debug", event: "reseller.pacer.window_wait" },
      { level: "debug", event: "reseller.attempt" },
      { level: "info", event: "reseller.outcome" },
    ]);
  });

  it("recover() without a journal still throws at the call (not a later rejection); with one it loads and answers", async () => {
    const h = setup();
    expect(() => h.makeClient().recover()).toThrow(InvalidOptionsError);
    const summary = await h.makeClient({ journal: createMemoryJournal({ clock: h.clock }) }).recover();
    expect(summary.examined).toBe(0);
  });
});
