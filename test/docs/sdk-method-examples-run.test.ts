// J1: the SDK method pages' examples are not only well-typed, they do what they say. Every example runs,
// one after another, through ONE client with a journal against the in-process emulator, as a reader
// would paste them into one program: none throws (each write has its own Idempotency-Key, D5/D7), each
// ends in a useful kind, and none prints a secret response field (x-sensitive-fields, D9/H2).
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { methodDocs, WAIT_ANCHOR, WAIT_EXAMPLE } from "../../docs/.vitepress/sdk-methods";
import { FREE_DOMAIN } from "../../docs/.vitepress/http-samples";
import { repoRoot } from "../../docs/.vitepress/package-entries";
import { createEmulator } from "../../emulator/index";
import { operationTable } from "../../generated/operations";
import { createResellerClient, type ResellerClient } from "../../src/index";
import { createMemoryJournal } from "../../stores/memory-journal";
import { pointAtSources } from "./guide-blocks";

const BASE = "http://127.0.0.1/api/reseller/v1";
const dir = join(repoRoot, ".tmp/sdk-method-examples-run");

type Example = (client: ResellerClient, ...args: unknown[]) => Promise<unknown>;

async function load(name: string, code: string): Promise<Example> {
  const path = join(dir, `${name}.ts`);
  writeFileSync(path, pointAtSources(code, dir));
  return ((await import(path)) as { example: Example }).example;
}

/** Everything the examples printed, as text. */
function printed(calls: unknown[][]): string {
  return calls.map((args) => args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" ")).join("\n");
}

afterEach(() => vi.restoreAllMocks());

describe("J1: SDK method examples run", () => {
  it("every example, in page order, through one journalled client: no throw, no secret printed, the registration succeeds", async () => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const emulator = createEmulator({
      withDefaultKeys: true,
      defaultRateLimit: 10_000,
      operationPolicy: { pendingMs: 5, processingMs: 5 },
    });
    // A live key: the live-only examples (balance, ledger, tickets) run too.
    const token = emulator.control.keys().find((k) => k.environment === "live")!.token;
    const client = createResellerClient({
      baseUrl: BASE,
      token,
      fetch: emulator.fetch,
      journal: createMemoryJournal(),
    });
    const [domain, renewed, waited] = emulator.control.domains(token);

    // The resources the path parameters name, made beforehand (not by the examples under test).
    const made = async <T>(p: Promise<{ kind: string }>, pick: (o: never) => T): Promise<T> => {
      const o = await p;
      expect(o.kind).toMatch(/succeeded|accepted/);
      return pick(o as never);
    };
    const hook = () =>
      made(
        client.webhooks.create(
          { body: { url: "https://shop.example/hooks", events: ["operation.completed"] } },
          { idempotencyKey: `setup-webhook-${Math.random()}` },
        ),
        (o: { data: { data: { uuid: string } } }) => o.data.data.uuid,
      );
    const uuids: Record<string, string> = {
      domainUuid: domain.uuid,
      orderUuid: await made(
        client.orders.create(
          { body: { external_id: "setup-order", action: "register", domain: "setup-only.kz", period: 1 } },
          { idempotencyKey: "setup-order" },
        ),
        (o: { data: { data: { uuid: string } } }) => o.data.data.uuid,
      ),
      operationUuid: await made(
        client.domains.renew({ domainUuid: renewed.uuid, body: { period: 1 } }, { idempotencyKey: "setup-renew" }),
        (o: { operationUuid: string }) => o.operationUuid,
      ),
      webhookUuid: await hook(),
      ticketUuid: await made(
        client.tickets.create(
          { body: { subject: "Setup", message: "A ticket for the examples." } },
          { idempotencyKey: "setup-ticket" },
        ),
        (o: { data: { data: { uuid: string } } }) => o.data.data.uuid,
      ),
    };
    const deletedHook = await hook(); // webhooks.delete gets its own: the later examples use the first

    const secrets: string[] = [];
    const keepSecret = async (value: string) => void secrets.push(value);
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const ran: string[] = [];
    for (const r of methodDocs())
      for (const m of r.methods) {
        const example = await load(m.anchor, m.example);
        const args: unknown[] = m.meta.pathParams.map((p) =>
          m.meta.operationId === "webhooks.delete" ? deletedHook : uuids[p],
        );
        if (m.meta.sensitiveFields.length) args.push(keepSecret);
        const before = log.mock.calls.length;
        await expect(example(client, ...args), m.call).resolves.not.toThrow();
        const out = log.mock.calls.slice(before).map((c) => String(c[0]));
        // What it printed is its outcome: data, or a kind that is not a failure of the example itself.
        expect(out.length, `${m.call} printed nothing`).toBeGreaterThan(0);
        expect(
          out.filter((line) => /^(rejected|conflict|unknown|failed|timeout|undefined)$/.test(line)),
          m.call,
        ).toEqual([]);
        ran.push(m.meta.operationId);
      }
    const wait = await load(WAIT_ANCHOR, WAIT_EXAMPLE);
    expect(await wait(client, waited.uuid)).toBe("completed: completed");

    const text = printed(log.mock.calls);
    if (process.env.SHOW_EXAMPLE_OUTPUT) process.stderr.write(`${text}\n`);
    expect(ran).toHaveLength(Object.keys(operationTable).length);
    // Every operation with x-sensitive-fields handed its secret over (not printed, not lost).
    const sensitive = Object.values(operationTable).filter((op) => op.sensitiveFields.length).length;
    expect(secrets.length).toBe(sensitive);
    for (const secret of secrets) expect(text).not.toContain(secret);
    for (const field of new Set(Object.values(operationTable).flatMap((op) => op.sensitiveFields)))
      expect(text).not.toContain(`"${field}"`);
    // orders.create registered a free name (example.kz is taken on the emulator).
    expect(text).toContain(`"domain":"${FREE_DOMAIN}","period":1,"status":"pending"`);
    await client.close();
  }, 120_000);
});
