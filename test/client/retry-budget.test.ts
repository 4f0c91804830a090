// I2 + retry budget: during a total outage the shared budget drains and retries stop amplifying it;
// a success refills it. (bench/outage.ts reports the same numbers at scale.)
import { describe, expect, it } from "vitest";
import type { ClientTelemetry, TelemetrySource } from "../../core";
import { createRetryBudget } from "../../runner";
import { setup } from "./harness";

const noop = (): void => undefined;

describe("client: retry budget", () => {
  it("I2: a total outage drains the budget; afterwards every command makes exactly one attempt", async () => {
    const h = setup({ client: { retry: { maxAttempts: 4, budget: { capacity: 30, retryCost: 5 } } } });
    h.emulator.control.addFault({ method: "*", path: "*", kind: "error_503_before", times: 1_000 });
    const attempts: number[] = [];
    for (let i = 0; i < 6; i++) {
      const out = await h.client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
      expect(out.kind).toBe("unknown");
      attempts.push(out.attempts.length);
    }
    // 30 tokens pay for 6 retries: 4 attempts (3 retries) + 4 attempts (3 retries), then nothing.
    expect(attempts).toEqual([4, 4, 1, 1, 1, 1]);
    expect(h.events.filter((e) => e.type === "budget-exhausted")).toHaveLength(4);
    h.emulator.control.clearFaults();
    const ok = await h.client.context.get();
    expect(ok.kind).toBe("succeeded");
    expect(h.client.retryBudget.available()).toBe(1);
  });

  it("I2: the budget refunds what a command's retries cost once it gets a response", () => {
    const b = createRetryBudget({ capacity: 20, retryCost: 5, timeoutCost: 10, successRefill: 1 });
    expect(b.tryAcquire("timeout")).toBe(10);
    expect(b.tryAcquire("error")).toBe(5);
    expect(b.tryAcquire("timeout")).toBe(false);
    expect(b.available()).toBe(5);
    b.onSuccess(15);
    expect(b.available()).toBe(20);
    b.onSuccess(0);
    expect(b.available()).toBe(20); // capped at capacity
    expect(() => createRetryBudget({ capacity: -1 })).toThrow(RangeError);
  });

  it("I2: a telemetry integration reads the budget as resolved: the configured capacity, else the default 500", () => {
    const sources: TelemetrySource[] = [];
    const telemetry = (): ClientTelemetry => ({
      bind: (source) => void sources.push(source),
      startCommand: () => ({ slot: noop, backoff: noop, startAttempt: () => ({ end: noop }), end: noop }),
    });
    setup({ client: { retry: { budget: { capacity: 40 } }, telemetry: telemetry() } });
    setup({ client: { retry: { budget: { capacity: undefined } }, telemetry: telemetry() } });
    expect(sources.map((s) => s.retryBudget())).toEqual([
      { available: 40, capacity: 40 },
      { available: 500, capacity: 500 },
    ]);
  });
});
