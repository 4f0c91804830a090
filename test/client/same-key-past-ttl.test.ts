// A same-key call that resumes an order the journal left open (unknown, conflict, mid-send) after the
// server's replay TTL: the server no longer remembers the key, so a resend would create a second
// order. The resend is allowed only after the order lookup by external_id says nothing was created.
// In-process emulator with a short replay TTL; one VirtualClock for client, emulator and journal.
import { describe, expect, it } from "vitest";
import { createMemoryJournal } from "../../stores/memory-journal";
import { requestsTo, setup, type Harness } from "./harness";

const TTL = 2_000;
const effects = (h: Harness) => h.emulator.control.effects().filter((e) => e.kind === "order.create");
const body = (name: string) => ({
  external_id: `ext-${name}`,
  action: "register" as const,
  domain: `${name}.kz`,
  period: 1,
});

/** An order whose answer was lost after the server committed it, and whose lookup failed: journalled `unknown`. */
async function unknownOrder(name: string) {
  const h = setup({ emulator: { replayTtlMs: TTL } });
  const journal = createMemoryJournal({ clock: h.clock });
  const client = h.makeClient({ journal });
  h.emulator.control.addFault({ method: "POST", path: "/orders", kind: "timeout_after", times: 1 });
  h.emulator.control.addFault({ method: "GET", path: "/orders", kind: "error_503_before", times: 1 });
  const first = await client.orders.create({ body: body(name) }, { idempotencyKey: `key-${name}` });
  expect(first.kind).toBe("unknown");
  const record = await journal.findByIdempotencyKey(h.publicKeyId, `key-${name}`);
  expect(record?.state).toBe("unknown");
  expect(effects(h)).toHaveLength(1); // the server did create it
  return { h, journal, client, first };
}

describe("same key, a command left open, past the replay TTL: look up by external_id before any resend", () => {
  it("D7/F5: an unknown order re-called after the TTL → found by external_id, 0 resends, 1 order.create", async () => {
    const { h, journal, client, first } = await unknownOrder("past-ttl");
    const postsBefore = requestsTo(h.captured, "POST", "/orders").length;
    h.clock.advance(TTL + 500); // the server forgot the key: a resend now creates a SECOND order
    const again = await client.orders.create({ body: body("past-ttl") }, { idempotencyKey: "key-past-ttl" });
    expect(again).toMatchObject({ kind: "succeeded", reconciled: true, commandId: first.commandId });
    expect(requestsTo(h.captured, "POST", "/orders")).toHaveLength(postsBefore);
    expect(requestsTo(h.captured, "GET", "/orders").length).toBeGreaterThanOrEqual(2);
    expect(effects(h)).toHaveLength(1);
    expect((await journal.get(first.commandId!))?.state).toBe("succeeded");
  });

  it("D7/F5: a command left mid-send (a crash before its answer) re-called by a new process after the TTL → one order", async () => {
    const h = setup({ emulator: { replayTtlMs: TTL } });
    const journal = createMemoryJournal({ clock: h.clock });
    // The first process sent the order and died before the answer: its journal row is `sending`.
    let release: () => void = () => undefined;
    const stalled = new Promise<void>((r) => (release = r));
    const dying = h.makeClient({
      journal,
      timeoutMs: 24 * 3_600_000, // a dead process: none of its timers fire again
      deadlineMs: Infinity,
      fetch: async (request: Request) => {
        const response = await h.fetch(request);
        if (request.method === "POST") await stalled; // never answers while the process is alive
        return response;
      },
    });
    void dying.orders.create({ body: body("mid-send") }, { idempotencyKey: "key-mid-send" });
    for (let i = 0; i < 50 && effects(h).length === 0; i++) await new Promise((r) => setTimeout(r, 0));
    expect(effects(h)).toHaveLength(1);
    expect((await journal.findByIdempotencyKey(h.publicKeyId, "key-mid-send"))?.state).toBe("recorded");
    h.clock.advance(TTL + 500);
    // The next process calls again with the same key (its application retries the checkout step).
    const next = h.makeClient({ journal });
    const again = await next.orders.create({ body: body("mid-send") }, { idempotencyKey: "key-mid-send" });
    expect(again).toMatchObject({ kind: "succeeded", reconciled: true });
    expect(requestsTo(h.captured, "POST", "/orders")).toHaveLength(1);
    expect(effects(h)).toHaveLength(1);
    release();
  });

  it("D6/F5: inside the TTL, an unknown order whose lookup finds nothing is resent with the same key and bytes", async () => {
    const h = setup({ emulator: { replayTtlMs: TTL } });
    const journal = createMemoryJournal({ clock: h.clock });
    const client = h.makeClient({ journal });
    // Nothing reached the API (refused before it), and the lookup failed: unknown, nothing created.
    h.emulator.control.addFault({ method: "POST", path: "/orders", kind: "error_503_before", times: 6 });
    h.emulator.control.addFault({ method: "GET", path: "/orders", kind: "error_503_before", times: 1 });
    const first = await client.orders.create({ body: body("inside") }, { idempotencyKey: "key-inside" });
    expect(first.kind).toBe("unknown");
    expect(effects(h)).toHaveLength(0);
    h.emulator.control.clearFaults();
    const again = await client.orders.create({ body: body("inside") }, { idempotencyKey: "key-inside" });
    expect(again.kind).toBe("succeeded");
    const posts = requestsTo(h.captured, "POST", "/orders");
    expect(posts.at(-1)?.headers["idempotency-key"]).toBe("key-inside");
    expect(posts.at(-1)?.body).toEqual(posts[0].body);
    expect(effects(h)).toHaveLength(1);
  });
});
