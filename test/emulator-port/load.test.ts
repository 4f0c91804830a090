// A smaller run of bench/emulator-load.ts as a test: concurrent clients over loopback, renewals whose
// Idempotency-Keys collide on purpose. Asserts exactly-once execution and exact per-key counters;
// speed is the bench's business, never asserted here.
import { describe, expect, it } from "vitest";
import { runEmulatorLoad } from "../../bench/emulator-load";

describe("emulator under concurrent load (loopback)", () => {
  it("D5/C2/C5: 200 requests from 10 clients — no idempotency key executes twice, counters are exact", async () => {
    const result = await runEmulatorLoad({
      requests: 200,
      concurrency: 10,
      keys: 4,
      repeatsPerIdempotencyKey: 4,
      baseline: false,
    });
    expect(result.requests).toBe(200);
    // Renewal keys really were shared by several requests in flight together.
    expect(result.renew.sent).toBeGreaterThan(result.renew.idempotencyKeys);
    expect(result.doubleExecutions).toEqual([]);
    expect(result.missingExecutions).toEqual([]);
    // Every idempotency key was executed exactly once: first answers + replays + processing-409s add up.
    expect(result.executions).toBe(result.renew.idempotencyKeys);
    expect(result.renew.firstExecutions).toBe(result.renew.idempotencyKeys);
    expect(result.renew.firstExecutions + result.renew.replays + result.renew.conflicts).toBe(result.renew.sent);
    expect(result.counterMismatches).toEqual([]);
    expect(result.exactlyOnce && result.countersExact).toBe(true);
    // Nothing but the expected answers came back.
    for (const label of Object.keys(result.statuses)) {
      expect(label).toMatch(
        /^(GET \/context 200|GET \/domains 200|POST \/domains\/\{uuid\}\/renew (202|202 replayed|409))$/,
      );
    }
  });
});
