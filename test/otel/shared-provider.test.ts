// I7: what the guide advises — several clients, and several otelTelemetry() instances (one per key,
// or one per client on the sdk-node global provider), on ONE meter provider. Every command is counted
// once, the counts do not move between two collections with no command in between, and each client
// name keeps its own gauges.
import { afterEach, describe, expect, it } from "vitest";
import { METRIC_HTTP_CLIENT_REQUEST_DURATION } from "@opentelemetry/semantic-conventions";
import { otelTelemetry, METRIC, ATTR } from "../../otel/index";
import { createMemoryJournal } from "../../stores/memory-journal";
import { setup } from "../client/harness";
import { metric, otelKit, total, type OtelKit } from "./support";

const kits: OtelKit[] = [];
afterEach(async () => {
  for (const k of kits.splice(0)) await k.shutdown();
});

describe("otel: one meter provider, several clients and otelTelemetry instances", () => {
  it("I7: outcomes are summed once per command and stay put between idle collections", async () => {
    const kit = otelKit();
    kits.push(kit);
    const h = setup({ environment: "live" });
    const providers = { tracerProvider: kit.tracerProvider, meterProvider: kit.meterProvider };
    const billing = otelTelemetry({ ...providers, clientName: "billing" });
    const clients = [
      h.makeClient({ telemetry: billing }),
      h.makeClient({ telemetry: billing }),
      h.makeClient({ telemetry: otelTelemetry({ ...providers, clientName: "support" }) }),
      h.makeClient({ telemetry: otelTelemetry(providers) }),
      h.makeClient({ telemetry: otelTelemetry(providers) }),
    ];
    let commands = 0;
    for (const [i, client] of clients.entries()) {
      expect((await client.domains.get({ domainUuid: h.domainUuid })).kind).toBe("succeeded");
      commands += 1;
      if (i % 2 === 0) {
        expect((await client.context.get()).kind).toBe("succeeded");
        commands += 1;
      }
    }
    expect(commands).toBe(8);
    const first = await kit.metrics();
    const second = await kit.metrics();
    for (const all of [first, second]) {
      const outcomes = metric(all, METRIC.outcomes);
      expect(total(outcomes)).toBe(8);
      expect(total(outcomes, { [ATTR.operationId]: "domains.get", [ATTR.outcomeKind]: "succeeded" })).toBe(5);
      expect(total(outcomes, { [ATTR.operationId]: "context.get" })).toBe(3);
      expect(total(metric(all, METRIC_HTTP_CLIENT_REQUEST_DURATION))).toBe(8);
    }
    // One point per (environment, client name) for the gauges: three names, none doubled.
    const limits = metric(first, METRIC.windowLimit).dataPoints.map((p) => p.attributes[ATTR.clientName]);
    expect([...limits].sort()).toEqual(["billing", "default", "support"]);
  });

  it("G1/F4: journal counts on a shared provider — each journal counted once, journals of one name summed", async () => {
    const kit = otelKit();
    kits.push(kit);
    const h = setup({ environment: "live", client: { timeoutMs: 10_000 } });
    const providers = { tracerProvider: kit.tracerProvider, meterProvider: kit.meterProvider };
    const shared = createMemoryJournal();
    const own = createMemoryJournal();
    // Two workers of the key on one journal, a third with its own; each its own otelTelemetry() (the sdk-node way).
    const a = h.makeClient({ journal: shared, telemetry: otelTelemetry(providers) });
    h.makeClient({ journal: shared, telemetry: otelTelemetry(providers) });
    const c = h.makeClient({ journal: own, telemetry: otelTelemetry(providers) });
    for (const client of [a, c]) {
      h.emulator.control.addFault({ method: "POST", path: "/webhooks", kind: "reset_after" });
      const hook = await client.webhooks.create({
        body: { url: "https://hooks.example/j", events: ["operation.completed"] },
      });
      expect(hook.kind).toBe("unknown");
      expect((await client.recover()).manual).toHaveLength(1);
    }
    for (let i = 0; i < 2; i++) {
      const points = metric(await kit.metrics(), METRIC.journalCommandCount).dataPoints.filter(
        (p) => p.attributes[ATTR.commandState] === "needs_manual_check",
      );
      expect(points.map((p) => p.value)).toEqual([2]);
    }
  });

  it("G1: the journal gauge is the store's own count (countByState over unsettled states), never rows loaded", async () => {
    const kit = otelKit();
    kits.push(kit);
    const h = setup({ environment: "live" });
    const calls: string[] = [];
    const memory = createMemoryJournal();
    const journal = new Proxy(memory, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          calls.push(String(prop));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const client = h.makeClient({
      journal,
      telemetry: otelTelemetry({ tracerProvider: kit.tracerProvider, meterProvider: kit.meterProvider }),
    });
    h.emulator.control.addFault({ method: "POST", path: "/webhooks", kind: "reset_after" });
    await client.webhooks.create({ body: { url: "https://hooks.example/c", events: ["operation.completed"] } });
    calls.length = 0;
    const points = metric(await kit.metrics(), METRIC.journalCommandCount).dataPoints;
    expect(points.find((p) => p.attributes[ATTR.commandState] === "unknown")?.value).toBe(1);
    expect(calls).toEqual(["countByState"]);
  });
});
