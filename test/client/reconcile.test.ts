// I4/F5/D7: orders.create (x-unknown-outcome: reconcile) looks the order up by external_id before any
// resend — a timeout after the order was created never buys twice.
import { describe, expect, it } from "vitest";
import { createMemoryJournal } from "../../stores/memory-journal";
import { requestsTo, setup } from "./harness";

const order = (external_id: string, domain = "fresh-name.kz") =>
  ({ body: { external_id, action: "register", domain, period: 1 } }) as never;

describe("client: reconcile path (orders.create)", () => {
  it("I4/F5: timeout_after on orders.create → found by external_id → succeeded, reconciled, no second order", async () => {
    const h = setup({ environment: "live", client: { timeoutMs: 10_000 } });
    h.emulator.control.addFault({ method: "POST", path: "/orders", kind: "timeout_after" });
    const out = await h.client.orders.create(order("crm-order-1001"));
    expect(out.kind).toBe("succeeded");
    if (out.kind !== "succeeded") return;
    expect(out.reconciled).toBe(true);
    expect((out.data as { data: { external_id: string } }).data.external_id).toBe("crm-order-1001");
    expect(requestsTo(h.captured, "POST", "/orders")).toHaveLength(1);
    const lookups = requestsTo(h.captured, "GET", "/orders");
    expect(lookups).toHaveLength(1);
    expect(new URL(lookups[0].url).searchParams.get("external_id")).toBe("crm-order-1001");
    expect(lookups[0].headers["idempotency-key"]).toBeUndefined();
    expect(h.emulator.control.effects().filter((e) => e.kind.startsWith("order"))).toHaveLength(1);
    expect(h.events.some((e) => e.type === "reconcile" && e.result === "found")).toBe(true);
  });

  it("H2/I5: with a journal, the reconciliation result is stored with the command", async () => {
    const h = setup({ environment: "live", client: { timeoutMs: 10_000 } });
    const journal = createMemoryJournal();
    const client = h.makeClient({ journal });
    h.emulator.control.addFault({ method: "POST", path: "/orders", kind: "timeout_after" });
    const out = await client.orders.create(order("crm-order-1005", "fifth-name.kz"));
    expect(out.kind).toBe("succeeded");
    const rec = await journal.get(out.commandId!);
    expect(rec?.state).toBe("succeeded");
    expect(rec?.reconciliation).toMatch(/found by external_id crm-order-1005/);
    expect(rec?.externalId).toBe("crm-order-1005");
    expect(rec?.resources.orderUuid).toBe((out as { data: { data: { uuid: string } } }).data.data.uuid);
  });

  it("I4: timeout_before on orders.create → not found → resend with the SAME key and bytes → one order", async () => {
    const h = setup({ environment: "live", client: { timeoutMs: 10_000 } });
    h.emulator.control.addFault({ method: "POST", path: "/orders", kind: "timeout_before" });
    const out = await h.client.orders.create(order("crm-order-1002", "other-name.kz"));
    expect(out.kind).toBe("succeeded");
    if (out.kind !== "succeeded") return;
    expect(out.reconciled).toBeUndefined();
    expect(out.status).toBe(201);
    const posts = requestsTo(h.captured, "POST", "/orders");
    expect(posts).toHaveLength(2);
    expect(posts[1].headers["idempotency-key"]).toBe(posts[0].headers["idempotency-key"]);
    expect(Buffer.from(posts[1].body!).equals(Buffer.from(posts[0].body!))).toBe(true);
    expect(requestsTo(h.captured, "GET", "/orders")).toHaveLength(1);
    expect(h.emulator.control.effects().filter((e) => e.kind.startsWith("order"))).toHaveLength(1);
  });

  it("I4: when the lookup itself fails the outcome stays unknown — never a blind resend", async () => {
    const h = setup({ environment: "live", client: { timeoutMs: 10_000 } });
    h.emulator.control.addFault({ method: "POST", path: "/orders", kind: "reset_before" });
    h.emulator.control.addFault({ method: "GET", path: "/orders", kind: "error_503_before" });
    const out = await h.client.orders.create(order("crm-order-1003", "third-name.kz"));
    expect(out.kind).toBe("unknown");
    if (out.kind !== "unknown") return;
    expect(out.reason).toBe("network");
    expect(out.reconciliation).toMatch(/lookup/);
    expect(requestsTo(h.captured, "POST", "/orders")).toHaveLength(1);
  });

  it("C12/I4: a 429 on the lookup waits out the key's pause and looks again — still no second order", async () => {
    const h = setup({ environment: "live", client: { timeoutMs: 10_000 } });
    h.emulator.control.addFault({ method: "POST", path: "/orders", kind: "reset_after" });
    h.emulator.control.addFault({ method: "GET", path: "/orders", kind: "rate_limit_no_header" });
    const out = await h.client.orders.create(order("crm-order-1004", "fourth-name.kz"));
    expect(out.kind).toBe("succeeded");
    if (out.kind !== "succeeded") return;
    expect(out.reconciled).toBe(true);
    expect(requestsTo(h.captured, "GET", "/orders")).toHaveLength(2);
    expect(requestsTo(h.captured, "POST", "/orders")).toHaveLength(1);
  });
});
