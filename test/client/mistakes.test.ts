// A new user's mistakes fail before anything is sent, with a typed error whose message says the fix.
import { describe, expect, it } from "vitest";
import {
  InvalidArgumentError,
  InvalidOptionsError,
  LiveOnlyError,
  MissingDependencyError,
  isMissingDependencyError,
} from "../../src/index";
import { loadPeer } from "../../stores/optional-peer";
import { createPacer } from "../../pacing";
import { setup } from "./harness";
import { createMemoryJournal } from "../../stores/memory-journal";

describe("mistakes that say the fix", () => {
  it.each([
    ["http://127.0.0.1:8080", "http://127.0.0.1:8080/api/reseller/v1"],
    ["https://reseller.example.kz/", "https://reseller.example.kz/api/reseller/v1"],
    ["https://reseller.example.kz/api", "https://reseller.example.kz/api/reseller/v1"],
    ["https://reseller.example.kz/api/v2", "https://reseller.example.kz/api/reseller/v1"],
    ["https://reseller.example.kz/billing/api/v1/", "https://reseller.example.kz/billing/api/reseller/v1"],
  ])("A1: baseUrl %s without the API base path is refused, naming the URL to use; nothing is sent", (baseUrl, fix) => {
    const h = setup();
    let error: unknown;
    try {
      h.makeClient({ baseUrl });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).option).toBe("baseUrl");
    expect((error as Error).message).toContain("must end with the API base path /api/reseller/v1");
    expect((error as Error).message).toContain(`use ${fix}.`);
    expect(h.captured).toHaveLength(0);
  });

  it("C1: pacing.initialLimit above 10000, and createPacer's, is refused with the server's range", () => {
    const h = setup();
    const thrown = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e as InvalidOptionsError;
      }
      throw new Error("nothing thrown");
    };
    const client = thrown(() => h.makeClient({ pacing: { initialLimit: 20_000 } }));
    expect(client).toBeInstanceOf(InvalidOptionsError);
    expect(client.option).toBe("pacing.initialLimit");
    expect(client.message).toMatch(/at most 10000/);
    const pacer = thrown(() => createPacer({ initialLimit: 20_000 }));
    expect(pacer).toBeInstanceOf(InvalidOptionsError);
    expect(pacer.message).toMatch(/from 1 to 10000/);
    expect(h.captured).toHaveLength(0);
  });

  it("C2: pacing and pacer together are refused (the pacer's own options win silently otherwise), naming where they go", () => {
    const h = setup();
    let error: unknown;
    try {
      h.makeClient({ pacing: { windowMs: 2000, maxConcurrency: 1 }, pacer: createPacer() });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).option).toBe("pacing");
    expect((error as Error).message).toMatch(/pass those to createPacer/);
  });

  it("D2: a misspelt call option (idempotencykey, built in a variable) is refused, naming the option — never a fresh random key", async () => {
    const h = setup();
    const client = h.makeClient(); // no journal: a fresh key on the retry would be a second order
    const callOptions = { idempotencykey: "order-crm-7", deadlineMs: 20_000 };
    const body = { external_id: "crm-7", action: "register", domain: "typo-key.kz", period: 1 };
    for (let i = 0; i < 2; i++) {
      const error = await client.orders.create({ body } as never, callOptions as never).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect((error as InvalidArgumentError).argument).toBe("idempotencykey");
      expect((error as Error).message).toMatch(/idempotencykey is not an option: did you mean idempotencyKey\?/);
    }
    expect(h.captured).toHaveLength(0);
    const wait = await client.operations
      .wait("00000000-0000-4000-8000-000000000000", { timeoutMs: 10 } as never)
      .catch((e: unknown) => e);
    expect(wait).toBeInstanceOf(InvalidArgumentError);
    expect((wait as Error).message).toMatch(/timeoutMs is not an option .*known: signal, deadline/);
    expect(h.captured).toHaveLength(0);
  });

  it("A1: a baseUrl with the base path and a trailing slash works", async () => {
    const h = setup();
    const client = h.makeClient({ baseUrl: "http://127.0.0.1/api/reseller/v1/" });
    expect((await client.context.get()).kind).toBe("succeeded");
    expect(new URL(h.captured[0].url).pathname).toBe("/api/reseller/v1/context");
  });

  it("G4: recover() without a journal throws at once, naming the journal option; no unhandled rejection, nothing sent", async () => {
    const h = setup();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      let error: unknown;
      try {
        void h.client.recover(); // not awaited, as a forgetful caller would write it
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InvalidOptionsError);
      expect((error as InvalidOptionsError).option).toBe("journal");
      expect((error as Error).message).toMatch(/^recover\(\) needs the journal option: create the client with journal/);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
      expect(h.captured).toHaveLength(0);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("B4: a live-only call with a test key names allowLiveOnlyWithTestKey and why; nothing is sent", async () => {
    const h = setup();
    const error = await h.client.balance.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LiveOnlyError);
    expect((error as Error).message).toBe(
      "balance.get is live-only: support and finance resources answer 403 to a test key, so nothing was sent. " +
        "Use a rsl_live_ key, or set the client option allowLiveOnlyWithTestKey: true to send it anyway " +
        "(the server's 403 then comes back as a rejected outcome, useful to test that path).",
    );
    expect(h.captured).toHaveLength(0);
  });

  it("a missing optional driver is a MissingDependencyError naming the package to install", () => {
    let error: unknown;
    try {
      loadPeer("reseller-api-driver-that-is-not-installed", "reseller-api/stores/example");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MissingDependencyError);
    expect(isMissingDependencyError(error)).toBe(true);
    expect((error as MissingDependencyError).packageName).toBe("reseller-api-driver-that-is-not-installed");
    expect((error as Error).message).toBe(
      'reseller-api/stores/example needs the package "reseller-api-driver-that-is-not-installed", which is not ' +
        "installed (it is an optional peer dependency of reseller-api). Install it: npm install reseller-api-driver-that-is-not-installed",
    );
  });

  it("a driver that is installed loads, and an error inside it keeps its own message", () => {
    expect(typeof loadPeer("better-sqlite3", "reseller-api/stores/sqlite")).toBe("function");
  });

  it("D2: an Idempotency-Key with a line break or a non-ASCII character is an InvalidArgumentError naming the position — not a raw TypeError from Headers; nothing journalled or sent", async () => {
    const h = setup();
    const journal = createMemoryJournal();
    const client = h.makeClient({ journal });
    for (const [key, what] of [
      ["nl\nkey", /a control character \(U\+000A\) at position 3/],
      ["ключ-1", /a non-ASCII character at position 1/],
    ] as const) {
      const error = await client.domains
        .renew({ domainUuid: h.domainUuid, body: { period: 1 } }, { idempotencyKey: key })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect((error as InvalidArgumentError).argument).toBe("idempotencyKey");
      expect((error as Error).message).toMatch(what);
      expect((error as Error).message).not.toContain(key);
    }
    expect(h.captured).toHaveLength(0);
    expect(await journal.listCommands({ limit: 10 })).toHaveLength(0);
  });

  it("D3: a body that cannot be JSON (a BigInt, a circular reference) is an InvalidArgumentError naming body — not a raw TypeError; nothing journalled or sent", async () => {
    const h = setup();
    const journal = createMemoryJournal();
    const client = h.makeClient({ journal });
    const circular: Record<string, unknown> = { names: ["a.kz"] };
    circular.self = circular;
    for (const [body, why] of [
      [{ names: ["a.kz"], n: 1n }, /BigInt/],
      [circular, /circular/],
    ] as const) {
      const error = await client.domains.check({ body } as never).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect((error as InvalidArgumentError).argument).toBe("body");
      expect((error as Error).message).toMatch(why);
      expect((error as Error).message).toMatch(/Nothing was recorded or sent/);
    }
    expect(h.captured).toHaveLength(0);
    expect(await journal.listCommands({ limit: 10 })).toHaveLength(0);
  });

  it("D2: call options put in the first argument (context.get({ signal }), built in a variable) are refused, saying where they go — never a call without its signal or timeout", async () => {
    const h = setup();
    const args = { domainUuid: h.domainUuid, timeoutMs: 1 };
    const asOption = await h.client.domains.get(args as never).catch((e: unknown) => e);
    expect(asOption).toBeInstanceOf(InvalidArgumentError);
    expect((asOption as InvalidArgumentError).argument).toBe("timeoutMs");
    expect((asOption as Error).message).toMatch(
      /timeoutMs is a call option, not an argument of domains.get: pass it in the second argument/,
    );
    const typo = await h.client.domains.get({ domainUid: h.domainUuid } as never).catch((e: unknown) => e);
    expect((typo as Error).message).toMatch(/domainUid is not an argument of domains.get: did you mean domainUuid\?/);
    const notObject = await h.client.context.get("x" as never).catch((e: unknown) => e);
    expect(notObject).toBeInstanceOf(InvalidArgumentError);
    expect(h.captured).toHaveLength(0);
    expect((await h.client.domains.get({ domainUuid: h.domainUuid })).kind).toBe("succeeded");
  });

  it("F3: operations.wait with a duration as deadline (60_000, 1970) is refused, pointing to deadlineMs — not a timeout that polled nothing; deadlineMs waits that long", async () => {
    const h = setup({ emulator: { operationPolicy: { pendingMs: 60_000, processingMs: 60_000 } } });
    const wait = await h.client.operations
      .wait("00000000-0000-4000-8000-000000000000", { deadline: 60_000 })
      .catch((e: unknown) => e);
    expect(wait).toBeInstanceOf(InvalidArgumentError);
    expect((wait as Error).message).toMatch(/for a duration pass deadlineMs: 60000/);
    const both = await h.client.operations
      .wait("00000000-0000-4000-8000-000000000000", { deadline: h.clock.now() + 1000, deadlineMs: 1000 })
      .catch((e: unknown) => e);
    expect(both).toBeInstanceOf(InvalidArgumentError);
    expect(h.captured).toHaveLength(0);
    const renewed = await h.client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
    if (renewed.kind !== "accepted") throw new Error(`renew: ${renewed.kind}`);
    const uuid = renewed.operationUuid;
    const started = h.clock.now();
    const result = await h.client.operations.wait(uuid, { deadlineMs: 5_000, minIntervalMs: 1_000 });
    expect(result.kind).toBe("timeout");
    expect(h.clock.now() - started).toBeGreaterThanOrEqual(5_000 - 1_000);
    expect(h.captured.filter((c) => c.url.includes("/operations/")).length).toBeGreaterThan(0);
  });

  it("E6: a client language that is not ru, en or kk is an InvalidOptionsError naming the option", () => {
    const h = setup();
    let error: unknown;
    try {
      h.makeClient({ language: 5 as never });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).option).toBe("language");
  });
});
