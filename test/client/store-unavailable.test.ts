// A user's own window store (the public WindowStore interface: a shared store across processes) that
// fails after a write went out: the call ends as an Outcome, never a throw after the send (E4, G4),
// the journal keeps the command open, and a same-key call once the store is back settles it with one
// effect. The in-process emulator and a real memory journal; the store wraps the package's own.
import { describe, expect, it } from "vitest";
import { createMemoryJournal } from "../../stores/memory-journal";
import { createMemoryWindowStore, type WindowStore } from "../../pacing";
import { requestsTo, setup } from "./harness";

/** The package's memory store behind a switch, as a Redis- or DynamoDB-backed store would fail. */
function switchable(inner: WindowStore): WindowStore & { down: boolean } {
  const store = { down: false } as WindowStore & { down: boolean };
  for (const name of ["reserve", "refund", "confirmWindowStart", "observe", "pauseUntil", "peek", "close"] as const) {
    (store as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      if (store.down && name !== "close") throw new Error("connect ECONNREFUSED 127.0.0.1:6379");
      return (inner[name] as (...a: unknown[]) => Promise<unknown>).apply(inner, args);
    };
  }
  return store;
}

describe("client: the window store fails after a write was sent", () => {
  it("E4/G4: the retry's pacer cannot reach its store → unknown (store_unavailable), no throw; same key later → 1 effect", async () => {
    const h = setup();
    const journal = createMemoryJournal();
    const store = switchable(createMemoryWindowStore());
    const client = h.makeClient({
      journal,
      pacing: { store, initialLimit: 10_000 },
      fetch: (req) => {
        if (req.method === "POST") store.down = true; // the store goes away while the answer is lost
        return h.fetch(req);
      },
    });
    h.emulator.control.addFault({ method: "POST", path: "/domains/{domainUuid}/renew", kind: "timeout_after" });
    const key = crypto.randomUUID();
    const args = { domainUuid: h.domainUuid, body: { period: 1 } };
    const out = await client.domains.renew(args, { idempotencyKey: key });
    expect(out.kind).toBe("unknown");
    if (out.kind !== "unknown") return;
    expect(out.reason).toBe("store_unavailable");
    expect(requestsTo(h.captured, "POST", "/renew")).toHaveLength(1); // nothing went out unpaced
    expect((await journal.get(out.commandId!))?.state).toBe("unknown"); // open: recovery or a retry settles it
    expect(h.emulator.control.effects()).toHaveLength(1);

    store.down = false;
    const again = await client.domains.renew(args, { idempotencyKey: key });
    expect(again.kind).toBe("accepted");
    expect(h.emulator.control.effects()).toHaveLength(1); // the server replayed the first execution (D5)
    expect((await journal.get(out.commandId!))?.state).toBe("accepted");
  });
});
