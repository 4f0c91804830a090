// Every place that reads a response is total (E5): the order lookup after an unknown orders.create,
// recover()'s lookups, operations.wait polling, pagination, limit learning from GET /context and the
// transport itself. A 2xx with no body, JSON of the wrong shape, invalid UTF-8, a body that errors
// mid-read, a fetch that rejects with a non-Error or resolves with a non-Response: each ends as an
// Outcome or a typed ResellerClientError — never a raw TypeError/SyntaxError/RangeError.
import { describe, expect, it } from "vitest";
import { isResellerClientError, NetworkError, type Outcome } from "../../src/index";
import { createMemoryJournal } from "../../stores/memory-journal";
import { requestsTo, setup } from "./harness";

const ORDER = { external_id: "crm-4711", action: "register" as const, domain: "checkout.kz", period: 1 };
const isLookup = (r: Request) => r.method === "GET" && new URL(r.url).pathname.endsWith("/orders");

/** The emulator, except that GET /orders (the lookup by external_id) answers `lookup()`. */
function lookupAnswers(h: ReturnType<typeof setup>, lookup: () => Response) {
  return async (request: Request) => (isLookup(request) ? lookup() : h.fetch(request));
}

const EMPTY_OR_WRONG: [string, () => Response][] = [
  ["204", () => new Response(null, { status: 204 })],
  ["200, no body", () => new Response(null, { status: 200, headers: { "content-type": "application/json" } })],
  ["200, no JSON", () => new Response("OK", { status: 200, headers: { "content-type": "text/plain" } })],
  ["200, null", () => Response.json(null)],
  ["200, an array", () => Response.json([{ external_id: "crm-4711" }])],
  ["200, a number", () => Response.json(42)],
  ["200, a string", () => Response.json("data")],
  ["200, no data", () => Response.json({ meta: { next_cursor: null } })],
  ["200, data not a list", () => Response.json({ data: { external_id: "crm-4711" } })],
  [
    "200, invalid UTF-8",
    () =>
      new Response(new Uint8Array([0x7b, 0x22, 0xc3, 0x28, 0xff]), {
        status: 200,
        headers: { "content-type": "application/json" },
      }),
  ],
];

describe("client: every response parser is total", () => {
  it.each(EMPTY_OR_WRONG)(
    "F5/E5: a 500 on POST /orders, then a lookup answering %s → unknown (lookup failed), no TypeError, not created again",
    async (_name, lookup) => {
      const h = setup({ environment: "live" });
      const journal = createMemoryJournal();
      const client = h.makeClient({ journal, fetch: lookupAnswers(h, lookup) });
      h.emulator.control.addFault({ method: "POST", path: "/orders", kind: "error_500_after" }); // the order IS created
      const out = await client.orders.create({ body: ORDER });
      expect(out.kind).toBe("unknown");
      if (out.kind !== "unknown") return;
      expect(out.reason).toBe("server_error");
      expect(out.reconciliation).toMatch(/order lookup by external_id failed .*do not create it again/);
      expect(requestsTo(h.captured, "POST", "/orders")).toHaveLength(1);
      expect(h.emulator.control.effects().filter((e) => e.kind === "order.create")).toHaveLength(1);
      // The command is not left mid-reconciliation: it is unknown, for recover() to settle.
      expect((await journal.get(out.commandId!))?.state).toBe("unknown");
    },
  );

  it("G4/F5: recover() whose lookup answers 204 keeps the order command pending — typed, never a TypeError", async () => {
    const h = setup({ environment: "live" });
    const journal = createMemoryJournal();
    const client = h.makeClient({ journal, fetch: lookupAnswers(h, () => new Response(null, { status: 204 })) });
    h.emulator.control.addFault({ method: "POST", path: "/orders", kind: "error_500_after" });
    const out = await client.orders.create({ body: ORDER });
    expect(out.kind).toBe("unknown");
    const summary = await client.recover();
    expect(summary.examined).toBe(1);
    expect(summary.stillPending.map((p) => p.commandId)).toEqual([out.commandId]);
    expect(summary.stillPending[0].reason).toMatch(/unknown|lookup/);
    expect(h.emulator.control.effects().filter((e) => e.kind === "order.create")).toHaveLength(1);
  });

  it("F1/F3: operations.wait keeps polling through 204s and wrongly shaped bodies, then reports timeout", async () => {
    const h = setup();
    const renewed = await h.client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
    if (renewed.kind !== "accepted") throw new Error(`expected accepted, got ${renewed.kind}`);
    const bodies = [null, "[]", "42", '"x"', '{"data":null}', '{"data":{"uuid":1,"status":2}}', '{"data":[]}'];
    let i = 0;
    const client = h.makeClient({
      retry: { maxAttempts: 1 },
      fetch: async () => {
        const b = bodies[i++ % bodies.length];
        return b === null
          ? new Response(null, { status: 204 })
          : new Response(b, { headers: { "content-type": "application/json" } });
      },
    });
    const result = await client.operations.wait(renewed.operationUuid, {
      minIntervalMs: 1000,
      maxIntervalMs: 2000,
      deadline: h.clock.now() + 60_000,
    });
    expect(result.kind).toBe("timeout");
    if (result.kind !== "timeout") return;
    expect(result.lastOperation).toBeUndefined(); // no body was an Operation: nothing was concluded
    expect(i).toBeGreaterThan(bodies.length);
  });

  it("E5: a 2xx whose body is not the success envelope is unknown (malformed_response) — for reads and writes", async () => {
    const h = setup({ environment: "live" });
    for (const body of ["null", "[]", "7", '"s"', "{}", '{"data":null}', '{"data":"x"}']) {
      const client = h.makeClient({
        retry: { maxAttempts: 1 },
        fetch: async () => new Response(body, { status: 200, headers: { "content-type": "application/json" } }),
      });
      const read = await client.domains.get({ domainUuid: h.domainUuid });
      expect([read.kind, read.kind === "unknown" && read.reason]).toEqual(["unknown", "malformed_response"]);
      const write = await client.domains.check({ body: { domains: ["a.kz"] } } as never);
      expect([write.kind, write.kind === "unknown" && write.reason]).toEqual(["unknown", "malformed_response"]);
    }
  });

  it("F1/E5: a 202 on renew without an operation uuid is unknown — the renewal may have been accepted", async () => {
    const h = setup();
    const client = h.makeClient({
      fetch: async () =>
        new Response('{"data":{"status":"pending"}}', { status: 202, headers: { "content-type": "application/json" } }),
    });
    const out = await client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
    expect(out.kind).toBe("unknown");
    if (out.kind === "unknown") expect(out.reason).toBe("malformed_response");
  });

  it("H1: a page whose data is not a list ends the iteration with a PaginationError, never a TypeError", async () => {
    const h = setup();
    const client = h.makeClient({
      retry: { maxAttempts: 1 },
      fetch: async () =>
        new Response('{"data":5,"meta":{"next_cursor":"c2"}}', { headers: { "content-type": "application/json" } }),
    });
    let thrown: unknown;
    try {
      for await (const item of client.domains.list()) expect(item).toBeUndefined();
    } catch (error) {
      thrown = error;
    }
    expect(isResellerClientError(thrown) && thrown.code).toBe("pagination_failed");
  });

  it("A5: GET /context with a non-numeric rate_limit_per_minute succeeds and teaches the pacer nothing", async () => {
    const h = setup();
    const client = h.makeClient({
      fetch: async () =>
        Response.json({ data: { environment: "test", credential: { scopes: [], rate_limit_per_minute: "lots" } } }),
    });
    const out = await client.context.get();
    expect(out.kind).toBe("succeeded");
    expect(client.pacer.snapshot(h.publicKeyId).limit).toBe(10_000);
  });

  const REJECTIONS: [string, unknown][] = [
    ["a string", "socket hang up"],
    ["null", null],
    ["undefined", undefined],
    ["a number", 42],
    [
      "an object whose getter throws",
      Object.defineProperty({}, "cause", {
        get: () => {
          throw new Error("boom");
        },
      }),
    ],
  ];
  it.each(REJECTIONS)("E4: fetch rejecting with %s → unknown (network) with a NetworkError", async (_name, value) => {
    const h = setup();
    const client = h.makeClient({ retry: { maxAttempts: 1 }, fetch: () => Promise.reject(value) });
    const out = await client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
    expect(out.kind).toBe("unknown");
    if (out.kind !== "unknown") return;
    expect(out.reason).toBe("network");
    expect(out.cause).toBeInstanceOf(NetworkError);
  });

  it.each([
    ["undefined", undefined],
    ["a plain object", { status: "200" }],
    ["a number", 200],
  ])("E4: fetch resolving with %s instead of a Response → unknown (network), typed", async (_name, value) => {
    const h = setup();
    const client = h.makeClient({ retry: { maxAttempts: 1 }, fetch: async () => value as unknown as Response });
    const out = await client.context.get();
    expect(out.kind).toBe("unknown");
    if (out.kind === "unknown") expect(out.cause?.message).toMatch(/not an HTTP Response/);
  });

  it("E4: a body stream that errors mid-read → unknown (network), the attempt is retried for a read", async () => {
    const h = setup();
    let calls = 0;
    const client = h.makeClient({
      retry: { maxAttempts: 2 },
      fetch: async () => {
        calls += 1;
        const body = new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(new TextEncoder().encode('{"data":{"envir'));
            c.error(new TypeError("terminated"));
          },
        });
        return new Response(body, { headers: { "content-type": "application/json" } });
      },
    });
    const out: Outcome = await client.context.get();
    expect(out.kind).toBe("unknown");
    if (out.kind === "unknown") expect(out.reason).toBe("network");
    expect(calls).toBe(2);
  });

  it("E4: a fetch that never settles and ignores its signal, or a body that never ends → unknown (timeout), no hang", async () => {
    const h = setup();
    const hang = h.makeClient({
      timeoutMs: 2_000,
      retry: { maxAttempts: 1 },
      fetch: () => new Promise<Response>(() => undefined),
    });
    const endless = h.makeClient({
      timeoutMs: 2_000,
      retry: { maxAttempts: 1 },
      fetch: async () =>
        new Response(new ReadableStream<Uint8Array>({ start: () => undefined }), {
          headers: { "content-type": "application/json" },
        }),
    });
    for (const client of [hang, endless]) {
      const out = await client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
      expect(out.kind).toBe("unknown");
      if (out.kind === "unknown") expect(out.reason).toBe("timeout");
    }
  });

  it("E5/H2: a 2xx body nested 100,000 deep neither overflows the stack nor reaches the journal whole", async () => {
    const h = setup({ environment: "live" });
    const journal = createMemoryJournal();
    const deep = `{"data":{"uuid":"x","deep":${"[".repeat(100_000)}${"]".repeat(100_000)}}}`;
    const client = h.makeClient({
      journal,
      fetch: async () => new Response(deep, { status: 201, headers: { "content-type": "application/json" } }),
    });
    const out = await client.orders.create({ body: ORDER });
    expect(out.kind).toBe("succeeded");
    const stored = JSON.stringify((await journal.get(out.commandId!))?.response?.body);
    expect(stored).toContain("[Too deep]");
  });
});
