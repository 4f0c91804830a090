// C2/I1 inside one process: the server counts one window per API key, so two clients built for the
// same key must draw from one window — without the caller wiring a shared store by hand.
import { describe, expect, it } from "vitest";
import { setup } from "./harness";

const L = 30;

describe("client: one window per key in a process", () => {
  it("C2: two clients on one key share the window — 3×L calls split between them get zero 429s", async () => {
    // A batch spanning three windows: no call deadline (the 60 s default would end the queued ones early).
    const h = setup({
      rateLimit: L,
      emulator: { windowMs: 60_000 },
      client: { pacing: { initialLimit: L }, deadlineMs: Number.POSITIVE_INFINITY },
    });
    const second = h.makeClient();
    const calls = Array.from({ length: 3 * L }, (_, i) => (i % 2 === 0 ? h.client : second).context.get());
    const outcomes = await Promise.all(calls);
    expect(outcomes.every((o) => o.kind === "succeeded")).toBe(true);
    const statuses = h.emulator.control.requests().map((r) => r.status);
    expect(statuses.filter((s) => s === 429)).toHaveLength(0);
    expect(statuses.filter((s) => s === 200)).toHaveLength(3 * L);
  });

  it("C2: a client with its own VirtualClock does not share (tests stay isolated)", async () => {
    const a = setup({ rateLimit: L, client: { pacing: { initialLimit: L } } });
    const b = setup({ rateLimit: L, client: { pacing: { initialLimit: L } } });
    expect(a.client.pacer).not.toBe(b.client.pacer);
    const [x, y] = await Promise.all([a.client.context.get(), b.client.context.get()]);
    expect([x.kind, y.kind]).toEqual(["succeeded", "succeeded"]);
  });
});
