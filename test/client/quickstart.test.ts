// The quickstart in the root README.md, run verbatim against the emulator: the README block must be
// exactly test/client/quickstart.example.ts (import paths aside), so the documented code cannot rot.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createMemoryJournal } from "../../stores/memory-journal";
import { startEmulatorServer } from "../../emulator/server";
import { main, renewOnce } from "./quickstart.example";
import { setup } from "./harness";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const example = readFileSync(new URL("./quickstart.example.ts", import.meta.url), "utf8");

function quickstartBlock(): string {
  const m = /<!-- quickstart:begin -->\s*```ts\n([\s\S]*?)```\s*<!-- quickstart:end -->/.exec(readme);
  if (!m) throw new Error("README.md has no quickstart block");
  return m[1];
}

describe("client: quickstart", () => {
  it("J1: the README quickstart is exactly the code this test runs", () => {
    expect(quickstartBlock()).toBe(
      example
        .replace('from "../../src/index"', 'from "reseller-api"')
        .replace('from "../../stores/sqlite-journal"', 'from "reseller-api/stores/sqlite"'),
    );
  });

  it("A5, G1, F1: the quickstart's main() runs against `reseller-emulator` over loopback and renews once", async () => {
    const server = await startEmulatorServer({
      withDefaultKeys: true,
      operationPolicy: { pendingMs: 50, processingMs: 50 },
    });
    const dir = mkdtempSync(join(tmpdir(), "quickstart-"));
    try {
      const keys = server.emulator.control.keys();
      writeFileSync(
        join(dir, "emulator.json"),
        JSON.stringify({ baseUrl: server.baseUrl, controlUrl: server.controlUrl, keys }),
      );
      const said = await main(join(dir, "emulator.json"), join(dir, "commands.sqlite"));
      expect(said).toMatch(/^[a-z0-9.-]+: renewed$/);
      expect(server.emulator.control.effects().filter((e) => e.kind === "domain.renew")).toHaveLength(1);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("G1–G6: the quickstart renews once, and a resend of the same command never renews twice", async () => {
    const h = setup({ client: { timeoutMs: 10_000 } });
    const journal = createMemoryJournal();
    const client = h.makeClient({ journal });
    h.emulator.control.addFault({ method: "POST", path: "/domains/{domainUuid}/renew", kind: "timeout_after" });
    expect(await renewOnce(client, h.domainUuid, "crm-renewal-77")).toBe("renewed");
    expect(h.emulator.control.effects().filter((e) => e.kind.includes("renew"))).toHaveLength(1);
    // I5: the journal followed it to the end, which also released the domain lock (I6).
    expect((await journal.findByIdempotencyKey(h.publicKeyId, "crm-renewal-77"))?.state).toBe("completed");
    expect(await renewOnce(client, h.domainUuid, "crm-renewal-77")).toBe("renewed"); // a resend: replayed, still one
    expect(h.emulator.control.effects().filter((e) => e.kind.includes("renew"))).toHaveLength(1);
  });

  it("E4: the quickstart reports rejected and unknown outcomes without throwing", async () => {
    const h = setup({ scopes: ["domains.read"] });
    expect(await renewOnce(h.client, h.domainUuid, "crm-renewal-78")).toBe("rejected 403 forbidden");
    const h2 = setup({ client: { retry: { maxAttempts: 1 } } });
    h2.emulator.control.addFault({ method: "POST", path: "/domains/{domainUuid}/renew", kind: "reset_after" });
    expect(await renewOnce(h2.client, h2.domainUuid, "crm-renewal-79")).toMatch(/^unknown \(network\): reconcile/);
  });
});
