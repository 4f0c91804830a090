// J1: every TypeScript block of every guide, in every language, is type-checked and run against the
// emulator over loopback. A block that exports something is called by the driver of that export's
// name below; a block that declares vitest tests registers them here, so they run as real tests.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulatorServer, type EmulatorServer } from "../../emulator/public";
import { createResellerClient, type Outcome, type RecoverSummary, type ResellerClient } from "../../src/index";
import { createMemoryJournal } from "../../stores/memory-journal";
import { startPostgres, type PostgresServer } from "../support/postgres";
import { startRedis, type RedisServer } from "../support/redis";
import { describeBlock, typecheck, writeTsBlocks, type WrittenBlock } from "./guide-blocks";

const blocks = writeTsBlocks();
const declaresTests = (b: WrittenBlock) => /from\s+["']vitest["']/.test(b.code);

let server: EmulatorServer;
let redis: RedisServer;
let postgres: PostgresServer;
let dir: string;
let token: string;
let liveToken: string;

beforeAll(async () => {
  server = await startEmulatorServer({ withDefaultKeys: true, operationPolicy: { pendingMs: 50, processingMs: 50 } });
  const keys = server.emulator.control.keys();
  token = keys.find((k) => k.environment === "test")!.token;
  liveToken = keys.find((k) => k.environment === "live")!.token;
  redis = await startRedis();
  postgres = await startPostgres();
  dir = mkdtempSync(join(tmpdir(), "guide-examples-"));
});

afterAll(async () => {
  await server?.close();
  await redis?.stop();
  await postgres?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function client(options: { live?: boolean; journal?: boolean } = {}): ResellerClient {
  return createResellerClient({
    baseUrl: server.baseUrl,
    token: options.live ? liveToken : token,
    ...(options.journal ? { journal: createMemoryJournal() } : {}),
  });
}

function domainOf(t: string): { uuid: string; name: string } {
  return server.emulator.control.domains(t)[0];
}

let serial = 0;

/** One driver per exported name a guide uses: it calls the export the way the guide means it. */
const drivers: Record<string, (value: unknown) => Promise<void>> = {
  client: async (value) => {
    const c = value as ResellerClient;
    if (c.recovery) await c.recovery;
    expect((await c.context.get()).kind).toBe("succeeded");
  },
  checkContext: async (fn) => {
    const scopes = await (fn as (c: ResellerClient, e: "test" | "live") => Promise<string[]>)(client(), "test");
    expect(scopes).toContain("domains.write");
    await expect((fn as (c: ResellerClient, e: string) => Promise<string[]>)(client(), "live")).rejects.toThrow(
      /expected a live key/,
    );
  },
  describeOutcome: async (fn) => {
    const describe = fn as (o: Outcome) => string;
    expect(describe(await client().context.get())).toBe("ok 200");
    const rejected = await client().domains.renew(
      { domainUuid: domainOf(token).uuid, body: { period: 77 } },
      { idempotencyKey: `d-${++serial}` },
    );
    expect(describe(rejected)).toBe("rejected 422 validation_failed");
  },
  fieldErrors: async (fn) => {
    const fieldErrors = fn as (o: Outcome) => Record<string, string[]>;
    const rejected = await client().domains.renew(
      { domainUuid: domainOf(token).uuid, body: { period: 77 } },
      { idempotencyKey: `f-${++serial}` },
    );
    expect(Object.keys(fieldErrors(rejected))).toEqual(["period"]);
    expect(fieldErrors(await client().context.get())).toEqual({});
  },
  register: async (fn) => {
    const register = fn as (c: ResellerClient, checkoutId: string, domain: string) => Promise<unknown>;
    const c = client({ journal: true });
    const checkout = `checkout-${++serial}-${Date.now()}`;
    const domain = `guide-${serial}-${Date.now()}.kz`;
    const first = (await register(c, checkout, domain)) as { uuid?: string };
    expect(first.uuid).toBeTruthy();
    expect(((await register(c, checkout, domain)) as { uuid?: string }).uuid).toBe(first.uuid); // the same command: no second order
    const orders = server.emulator.control
      .effects()
      .filter((e) => e.kind === "order.create" && e.idempotency_key === `order-${checkout}`);
    expect(orders).toHaveLength(1);
  },
  afterStart: async (fn) => {
    await (fn as (c: ResellerClient) => Promise<void>)(client({ journal: true }));
  },
  recoverShared: async (fn) => {
    // A command left open a moment ago: passed over for staleAfterMs, then recovered by the follow-up.
    const journal = createMemoryJournal();
    const c = createResellerClient({ baseUrl: server.baseUrl, token, journal, retry: { maxAttempts: 1 } });
    server.emulator.control.addFault({ method: "POST", path: "/domains/{domainUuid}/renew", kind: "reset_after" });
    const out = await c.domains.renew({ domainUuid: domainOf(token).uuid, body: { period: 1 } });
    expect(out.kind).toBe("unknown");
    const recoverShared = fn as (c: ResellerClient, staleAfterMs: number) => Promise<RecoverSummary>;
    const summary = await recoverShared(c, 300);
    expect(summary.examined).toBe(0);
    expect(summary.tooRecent.map((item) => item.commandId)).toEqual([out.commandId]);
    await expect.poll(async () => (await journal.get(out.commandId!))?.state, { timeout: 5_000 }).not.toBe("unknown");
    await c.close();
  },
  ticketFor: async (fn) => {
    // A real manual item: a `report` write whose answer was lost, which recover() hands to a person.
    const c = createResellerClient({
      baseUrl: server.baseUrl,
      token,
      journal: createMemoryJournal(),
      retry: { maxAttempts: 1 },
    });
    server.emulator.control.addFault({ method: "POST", path: "/webhooks", kind: "error_500_after" });
    const lost = await c.webhooks.create(
      { body: { url: "https://shop.example/hooks", events: ["domain.renewed"] } },
      { idempotencyKey: `wh-${++serial}` },
    );
    expect(lost.kind).toBe("unknown");
    const [item] = (await c.recover()).manual;
    const ticketFor = fn as (live: ResellerClient, i: typeof item) => Promise<Outcome>;
    const ticket = await ticketFor(client({ live: true }), item);
    expect(ticket.kind).toBe("succeeded");
    expect(
      server.emulator.control
        .effects()
        .filter((e) => e.kind.startsWith("ticket.") && e.idempotency_key === `ticket-${item.commandId}`),
    ).toHaveLength(1);
  },
  openCommandsOf: async (fn) => {
    const journal = createMemoryJournal();
    const c = createResellerClient({ baseUrl: server.baseUrl, token, journal, fleet: { workerId: "pod-7" } });
    server.emulator.control.addFault({ method: "POST", path: "/domains/{domainUuid}/renew", kind: "reset_after" });
    const out = await c.domains.renew({ domainUuid: domainOf(token).uuid, body: { period: 1 } });
    await c.close();
    const list = await (fn as (j: typeof journal, w: string) => Promise<{ id: string }[]>)(journal, "pod-7");
    expect(list.map((r) => r.id)).toContain(out.commandId);
  },
  createFleetClient: async (fn) => {
    // The fleet guide's set-up as written: a real PostgreSQL journal and the Redis window store.
    process.env.JOURNAL_DATABASE_URL = postgres.connectionString;
    const made = await (
      fn as (name: string) => Promise<{ client: ResellerClient; journal: { close(): Promise<void> }; store: unknown }>
    )("pod-guide");
    try {
      expect(made.client.workerId).toBe("pod-guide");
      expect((await made.client.context.get()).kind).toBe("succeeded");
    } finally {
      await made.client.close();
      await made.journal.close();
      await (made.store as { close?: () => Promise<void> }).close?.();
    }
  },
  firstRenewal: async (fn) => {
    const renew = fn as (c: ResellerClient) => Promise<string>;
    const c = client({ journal: true });
    const first = await renew(c);
    expect(first).toMatch(/^[\w.-]+: renewed$/);
    const renewals = () => server.emulator.control.effects().filter((e) => e.kind === "domain.renew").length;
    const before = renewals();
    expect(await renew(c)).toBe(first); // the same command id: no second renewal (D2)
    expect(renewals()).toBe(before);
  },
  setup: async (fn) => {
    const made = (fn as () => { client: ResellerClient })();
    expect((await made.client.context.get()).kind).toBe("succeeded");
  },
};

describe("J1: guide examples type-check", () => {
  it(`all ${blocks.length} TypeScript blocks of the guides (English and Russian) compile`, () => {
    expect(blocks.length).toBeGreaterThan(10);
    expect(typecheck(blocks)).toEqual([]);
  }, 600_000); // a whole-program type-check: minutes on a loaded two-core machine, not a speed target
});

for (const block of blocks.filter(declaresTests)) {
  // The block's own `it(...)` calls register while it is imported, inside this suite.
  describe(`J1: ${describeBlock(block)} (the guide's own tests)`, async () => {
    await import(block.path);
  });
}

describe("J1: guide examples run against the emulator", () => {
  for (const block of blocks.filter((b) => !declaresTests(b))) {
    it(`${describeBlock(block)} runs`, async () => {
      process.env.RESELLER_API_BASE_URL = server.baseUrl;
      process.env.RESELLER_API_TOKEN = token;
      process.env.RESELLER_JOURNAL = join(dir, `journal-${++serial}.db`);
      process.env.REDIS_URL = redis.url;
      const mod = (await import(block.path)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(mod)) {
        const driver = drivers[name];
        if (!driver)
          throw new Error(
            `${describeBlock(block)} exports ${name}, which no driver runs: add one to ${import.meta.filename}.`,
          );
        await driver(value);
      }
      const store = (mod.client as { close?: () => Promise<void> } | undefined)?.close;
      if (store) await store();
    });
  }
});
