// The `logger` option: structured lines on a real pino logger (JSON into a stream) and on a
// console-shaped object, at the levels the guide promises, with the ids a support ticket needs.
import { describe, expect, it } from "vitest";
import { InvalidOptionsError } from "../../src/index";
import { createMemoryJournal } from "../../stores/memory-journal";
import { setup } from "../client/harness";
import { pinoCapture } from "./support";

const LEVEL = { debug: 20, info: 30, warn: 40, error: 50 } as const;

describe("logger option", () => {
  it("I7: pino — debug per attempt, info per outcome, warn on a 429 pause and an unknown outcome, error on a manual check", async () => {
    const { logger, lines } = pinoCapture();
    const h = setup({ environment: "live", client: { timeoutMs: 10_000 } });
    const journal = createMemoryJournal();
    const client = h.makeClient({ logger, journal });
    h.emulator.control.addFault({ method: "GET", path: "/domains", kind: "rate_limit_no_header" });
    expect((await client.domains.list({ query: { per_page: 5 } })).kind).toBe("succeeded");
    h.emulator.control.addFault({ method: "POST", path: "/webhooks", kind: "reset_after" });
    const hook = await client.webhooks.create({
      body: { url: "https://hooks.example/b", events: ["operation.completed"] },
    });
    expect(hook.kind).toBe("unknown");
    await client.recover();

    const of = (event: string) => lines.filter((l) => l.event === event);
    const attempts = of("reseller.attempt");
    expect(attempts.length).toBe(3);
    expect(attempts.every((l) => l.level === LEVEL.debug && typeof l.requestId === "string")).toBe(true);
    const [pause] = of("reseller.rate_limited");
    expect(pause).toMatchObject({ level: LEVEL.warn, operationId: "domains.list", source: "api" });
    expect(typeof pause.requestId).toBe("string");
    const outcomes = of("reseller.outcome");
    expect(outcomes.map((l) => [l.level, l.operationId, l.kind])).toEqual([
      [LEVEL.info, "domains.list", "succeeded"],
      [LEVEL.info, "webhooks.create", "unknown"],
    ]);
    const [unknown] = of("reseller.unknown_outcome");
    expect(unknown).toMatchObject({
      level: LEVEL.warn,
      idempotencyKey: hook.idempotencyKey,
      commandId: hook.commandId,
    });
    expect(unknown.requestIds).toEqual(hook.attempts.map((a) => a.requestId));
    const [manual] = of("reseller.manual_check");
    expect(manual).toMatchObject({ level: LEVEL.error, commandId: hook.commandId, to: "needs_manual_check" });
    expect(manual.requestIds).toEqual(expect.arrayContaining([hook.attempts[0].requestId]));
    expect(manual.msg).toMatch(/manual check/);
  });

  it("I2: warn when the retry budget is exhausted", async () => {
    const { logger, lines } = pinoCapture();
    const h = setup({ client: { retry: { budget: { capacity: 4 } } } });
    const client = h.makeClient({ logger });
    h.emulator.control.addFault({ method: "GET", path: "/domains/{domainUuid}", kind: "reset_before" });
    const out = await client.domains.get({ domainUuid: h.domainUuid });
    expect(out.kind).toBe("unknown");
    const [exhausted] = lines.filter((l) => l.event === "reseller.retry_budget_exhausted");
    expect(exhausted).toMatchObject({ level: LEVEL.warn, operationId: "domains.get", available: 4 });
  });

  it("console-shaped loggers get (message, fields) at the same levels", async () => {
    const calls: { level: string; args: unknown[] }[] = [];
    const logger = {
      debug: (...args: unknown[]) => calls.push({ level: "debug", args }),
      info: (...args: unknown[]) => calls.push({ level: "info", args }),
      warn: (...args: unknown[]) => calls.push({ level: "warn", args }),
      error: (...args: unknown[]) => calls.push({ level: "error", args }),
    };
    const h = setup();
    const client = h.makeClient({ logger });
    const out = await client.domains.get({ domainUuid: h.domainUuid });
    expect(out.kind).toBe("succeeded");
    const outcome = calls.find((c) => (c.args[1] as { event?: string })?.event === "reseller.outcome")!;
    expect(outcome.level).toBe("info");
    expect(typeof outcome.args[0]).toBe("string");
    expect(outcome.args[0]).toMatch(/domains\.get: succeeded 200/);
    expect(outcome.args[1]).toMatchObject({
      operationId: "domains.get",
      kind: "succeeded",
      requestIds: [out.requestId],
    });
    expect(
      calls.some((c) => c.level === "debug" && (c.args[1] as { event?: string }).event === "reseller.attempt"),
    ).toBe(true);
  });

  it("a logger that throws never changes the outcome; onEvent still sees every event", async () => {
    const seen: string[] = [];
    const broken = {
      info: () => {
        throw new Error("disk full");
      },
      warn: () => {
        throw new Error("disk full");
      },
      error: () => {
        throw new Error("disk full");
      },
    };
    const h = setup();
    const client = h.makeClient({ logger: broken, onEvent: (e) => seen.push(e.type) });
    const out = await client.domains.get({ domainUuid: h.domainUuid });
    expect(out.kind).toBe("succeeded");
    expect(seen).toEqual(["attempt", "outcome"]);
  });

  it("I7: a logger, onEvent or recover() onEvent that returns a rejected promise changes no outcome and ends nothing unhandled", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      // A logger that ships its lines and returns the shipper's promise, down for the day.
      const down = async () => {
        throw new Error("log shipper down");
      };
      const h = setup();
      const journal = createMemoryJournal();
      const client = h.makeClient({
        logger: { info: down, warn: down, error: down, debug: down },
        onEvent: down,
        journal,
      });
      h.emulator.control.addFault({ method: "POST", path: "/domains/{domainUuid}/renew", kind: "error_503_before" });
      const renewed = await client.domains.renew(
        { domainUuid: h.domainUuid, body: { period: 1 } },
        { idempotencyKey: "async-logger-1" },
      );
      expect(renewed.kind).toBe("accepted");
      expect(renewed.attempts.map((a) => a.status)).toEqual([503, 202]);
      h.emulator.control.addFault({ method: "POST", path: "/webhooks", kind: "reset_after" });
      const hook = await client.webhooks.create({
        body: { url: "https://hooks.example/c", events: ["operation.completed"] },
      });
      expect(hook.kind).toBe("unknown");
      const summary = await client.recover({ onEvent: down });
      expect(summary.examined).toBeGreaterThan(0);
      await new Promise((resolve) => setImmediate(resolve)); // rejections are reported after a macrotask
      expect(unhandled).toEqual([]);
      expect(h.emulator.control.effects().filter((e) => e.kind === "domain.renew")).toHaveLength(1);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("I7/G4: a call answered from the journal writes its reseller.outcome line like a sent one", async () => {
    const { logger, lines } = pinoCapture();
    const h = setup();
    const client = h.makeClient({ logger, journal: createMemoryJournal() });
    const args = { domainUuid: h.domainUuid, body: { period: 1 } };
    await client.domains.renew(args, { idempotencyKey: "log-replay-1" });
    const again = await client.domains.renew(args, { idempotencyKey: "log-replay-1" });
    expect(again.localReplay?.source).toBe("journal");
    const outcomes = lines.filter((l) => l.event === "reseller.outcome");
    expect(outcomes.map((l) => [l.operationId, l.kind, l.idempotencyKey])).toEqual([
      ["domains.renew", "accepted", "log-replay-1"],
      ["domains.renew", "accepted", "log-replay-1"],
    ]);
    expect(lines.filter((l) => l.event === "reseller.local_replay")).toHaveLength(1);
  });

  it("a logger without info/warn/error is refused at start-up with the fix", () => {
    const h = setup();
    expect(() => h.makeClient({ logger: { info: () => undefined } as never })).toThrow(InvalidOptionsError);
    expect(() => h.makeClient({ logger: { info: () => undefined } as never })).toThrow(/warn, error/);
    expect(() => h.makeClient({ telemetry: {} as never })).toThrow(/otelTelemetry/);
  });
});
