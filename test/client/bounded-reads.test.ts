// Bounded reads (E5): no response body is read into memory past `maxResponseBytes`. An oversized
// success becomes `unknown` (reason "response_too_large": the side effect may have happened) and is
// not retried; an oversized error keeps its status and a ≤ 2 KiB snippet; a raw client.http caller
// gets a typed ResponseTooLargeError instead of a cut body. The bodies below never end, so a client
// that tried to read them whole would never settle.
import { describe, expect, it } from "vitest";
import { DEFAULT_CALL, ResponseTooLargeError } from "../../src/index";
import { createMemoryJournal } from "../../stores/memory-journal";
import { setup } from "./harness";

/** An endless body: `head`, then 64 KiB chunks for as long as anyone reads. Counts what was pulled. */
function endless(head: string, pulled: { bytes: number }): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  let first = true;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = first ? new TextEncoder().encode(head) : chunk;
      first = false;
      pulled.bytes += next.byteLength;
      controller.enqueue(next);
    },
  });
}

const json = { "content-type": "application/json" };

describe("client: bounded reads", () => {
  it("E5: a 2xx body over maxResponseBytes → unknown (response_too_large), read only to the limit, not retried", async () => {
    const h = setup();
    const pulled = { bytes: 0 };
    let calls = 0;
    const client = h.makeClient({
      maxResponseBytes: 256 * 1024,
      fetch: async () => {
        calls += 1;
        return new Response(endless('{"data":[', pulled), { status: 200, headers: json });
      },
    });
    const out = await client.context.get();
    expect(out.kind).toBe("unknown");
    if (out.kind !== "unknown") return;
    expect(out.reason).toBe("response_too_large");
    expect(out.attempts).toMatchObject([{ status: 200, error: "response_too_large" }]);
    expect(new TextEncoder().encode(out.snippet).byteLength).toBeLessThanOrEqual(2048);
    expect(out.snippet?.startsWith('{"data":[')).toBe(true);
    expect(calls).toBe(1);
    expect(pulled.bytes).toBeLessThan(256 * 1024 + 4 * 64 * 1024); // the limit plus what the stream had queued
  });

  it("E5/I4: an oversized 201 on orders.create stays unknown — never resent, never looked up as 'not found'", async () => {
    const h = setup({ environment: "live" });
    const journal = createMemoryJournal();
    const client = h.makeClient({
      journal,
      maxResponseBytes: 64 * 1024,
      fetch: async () => new Response(endless('{"data":{"uuid":"', { bytes: 0 }), { status: 201, headers: json }),
    });
    const out = await client.orders.create({
      body: { external_id: "crm-9", action: "register", domain: "big.kz", period: 1 },
    });
    expect(out).toMatchObject({ kind: "unknown", reason: "response_too_large", status: 201 });
    expect(out.attempts).toHaveLength(1);
    expect((await journal.get(out.commandId!))?.state).toBe("unknown");
  });

  it("E5: an oversized error body keeps its status and a ≤ 2 KiB snippet (500 → unknown, 404 → rejected)", async () => {
    const h = setup();
    for (const [status, kind] of [
      [500, "unknown"],
      [404, "rejected"],
    ] as const) {
      const client = h.makeClient({
        maxResponseBytes: 128 * 1024,
        retry: { maxAttempts: 1 },
        fetch: async () =>
          new Response(endless('{"error":{"code":"internal_error","message":"', { bytes: 0 }), {
            status,
            headers: json,
          }),
      });
      const out = await client.context.get();
      expect(out).toMatchObject({ kind, status });
      if (out.kind !== "rejected" && out.kind !== "unknown") continue;
      expect(out.error).toBeUndefined(); // a cut envelope is not trusted
      expect(new TextEncoder().encode(out.snippet).byteLength).toBeLessThanOrEqual(2048);
    }
  });

  it("E5: client.http gets a typed ResponseTooLargeError, never a cut body", async () => {
    const h = setup();
    const client = h.makeClient({
      maxResponseBytes: 64 * 1024,
      fetch: async () => new Response(endless('{"data":{', { bytes: 0 }), { status: 200, headers: json }),
    });
    const error = await client.http.GET("/context").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ code: "response_too_large", status: 200, maxResponseBytes: 64 * 1024 });
  });

  it("E5: bodies up to the limit are read whole; the default limit is 4 MiB", async () => {
    expect(DEFAULT_CALL.maxResponseBytes).toBe(4 * 1024 * 1024);
    const h = setup();
    const items = Array.from({ length: 100 }, (_, i) => ({ uuid: `u-${i}`, name: `d${i}.kz`, pad: "x".repeat(900) }));
    const page = JSON.stringify({ data: items, links: {}, meta: { next_cursor: null, per_page: 100 } });
    const client = h.makeClient({
      maxResponseBytes: page.length,
      fetch: async () => new Response(page, { status: 200, headers: json }),
    });
    const out = await client.domains.list({ query: { per_page: 100 } });
    expect(out.kind).toBe("succeeded");
    if (out.kind === "succeeded") expect(out.data.data).toHaveLength(100);
  });
});
