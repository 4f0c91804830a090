// I7, F4 and the stable HTTP conventions, checked the way an operator reads them: the manual-check
// line has every id a support ticket quotes; the duration histogram has server.port; and there is one
// `reseller.attempt` line per HTTP request — reconcile lookups, operations.wait polls, list pages and
// recover()'s lookups included — whose http.request.resend_count counts resends of that request only.
import { afterEach, describe, expect, it } from "vitest";
import { SpanKind } from "@opentelemetry/api";
import { METRIC_HTTP_CLIENT_REQUEST_DURATION } from "@opentelemetry/semantic-conventions";
import { otelTelemetry, ATTR, HTTP } from "../../otel/index";
import { createMemoryJournal } from "../../stores/memory-journal";
import { requestsTo, setup, type Harness } from "../client/harness";
import { attr, metric, otelKit, pinoCapture, total, type OtelKit, type PinoLine } from "./support";

const kits: OtelKit[] = [];
afterEach(async () => {
  for (const k of kits.splice(0)) await k.shutdown();
});

function logged(extra: Parameters<typeof setup>[0] = {}) {
  const kit = otelKit();
  kits.push(kit);
  const { logger, lines } = pinoCapture();
  const journal = createMemoryJournal();
  const h = setup({ environment: "live", ...extra, client: { timeoutMs: 10_000, ...extra.client } });
  const telemetry = otelTelemetry({ tracerProvider: kit.tracerProvider, meterProvider: kit.meterProvider });
  const client = h.makeClient({ journal, logger, telemetry });
  return { kit, h, client, journal, lines };
}

/** Every request the client put on the wire has exactly one attempt line with its X-Request-ID. */
function expectOneLinePerRequest(h: Harness, lines: PinoLine[]): void {
  const sent = h.captured.map((c) => c.headers["x-request-id"]);
  const attempts = lines.filter((l) => l.event === "reseller.attempt");
  expect(sent.every((id) => typeof id === "string")).toBe(true);
  expect(attempts.map((l) => l.requestId).sort()).toEqual([...sent].sort());
}

describe("I7/F4: the manual-check line", () => {
  it("F4: reseller.manual_check carries the Idempotency-Key, the command id, every request id and the domain UUID", async () => {
    const { h, client, lines } = logged();
    h.emulator.control.addFault({
      method: "POST",
      path: "/domains/{domainUuid}/renew",
      kind: "reset_before",
      times: 10,
    });
    const renew = await client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
    expect(renew.kind).toBe("unknown");
    h.clock.advance(30 * 3_600_000); // past the replay TTL: resending is not allowed below
    const summary = await client.recover({ asyncResendPastTtl: false });
    expect(summary.manual).toHaveLength(1);
    const [manual] = lines.filter((l) => l.event === "reseller.manual_check");
    expect(manual).toMatchObject({
      operationId: "domains.renew",
      idempotencyKey: renew.idempotencyKey,
      commandId: renew.commandId,
      domainUuid: h.domainUuid,
    });
    expect(manual.requestIds).toEqual(expect.arrayContaining(renew.attempts.map((a) => a.requestId)));
  });

  it("F4: a webhook create left for a manual check — its line has the key too", async () => {
    const { h, client, lines } = logged();
    h.emulator.control.addFault({ method: "POST", path: "/webhooks", kind: "reset_after" });
    const hook = await client.webhooks.create({
      body: { url: "https://hooks.example/m", events: ["operation.completed"] },
    });
    expect(hook.kind).toBe("unknown");
    await client.recover();
    const [manual] = lines.filter((l) => l.event === "reseller.manual_check");
    expect(manual).toMatchObject({ idempotencyKey: hook.idempotencyKey, commandId: hook.commandId });
    expect(manual.requestIds).toEqual(expect.arrayContaining(hook.attempts.map((a) => a.requestId)));
  });
});

describe("stable HTTP client metric conventions", () => {
  it("I7: http.client.request.duration carries server.address AND server.port (Required)", async () => {
    const { kit, client } = logged({ client: { baseUrl: "http://127.0.0.1:8443/api/reseller/v1" } });
    expect((await client.context.get()).kind).toBe("succeeded");
    const duration = metric(await kit.metrics(), METRIC_HTTP_CLIENT_REQUEST_DURATION);
    expect(duration.dataPoints.length).toBeGreaterThan(0);
    for (const p of duration.dataPoints) {
      expect(p.attributes[HTTP.serverAddress]).toBe("127.0.0.1");
      expect(p.attributes[HTTP.serverPort]).toBe(8443);
    }
    expect(total(duration, { [HTTP.serverPort]: 8443 })).toBe(1);
  });
});

describe("OpenTelemetry metric naming", () => {
  it("I7: the window's used amount is .usage; the journal's UpDownCounter is the singular .count", async () => {
    const { kit, h, client } = logged();
    h.emulator.control.addFault({ method: "POST", path: "/webhooks", kind: "reset_after" });
    await client.webhooks.create({ body: { url: "https://hooks.example/n", events: ["operation.completed"] } });
    const names = (await kit.metrics()).map((m) => m.descriptor.name);
    expect(names).toEqual(
      expect.arrayContaining(["reseller.client.window.usage", "reseller.client.journal.command.count"]),
    );
    expect(names.filter((n) => /\.used$|\.commands$/.test(n))).toEqual([]);
    const journal = metric(await kit.metrics(), "reseller.client.journal.command.count");
    expect(total(journal, { [ATTR.commandState]: "unknown" })).toBe(1);
  });
});

describe("turning parts off", () => {
  it("I7: traces: false — metrics only, no traceparent; metrics: false — spans only", async () => {
    const kit = otelKit();
    kits.push(kit);
    const h = setup();
    const providers = { tracerProvider: kit.tracerProvider, meterProvider: kit.meterProvider };
    const metricsOnly = h.makeClient({ telemetry: otelTelemetry({ ...providers, traces: false }) });
    expect((await metricsOnly.context.get()).kind).toBe("succeeded");
    expect(kit.spans()).toEqual([]);
    expect(h.captured.at(-1)!.headers.traceparent).toBeUndefined();
    expect(total(metric(await kit.metrics(), METRIC_HTTP_CLIENT_REQUEST_DURATION))).toBe(1);
    const spansOnly = h.makeClient({ telemetry: otelTelemetry({ ...providers, metrics: false }) });
    expect((await spansOnly.context.get()).kind).toBe("succeeded");
    expect(kit.spans().map((s) => s.kind)).toEqual([SpanKind.CLIENT, SpanKind.INTERNAL]);
    expect(h.captured.at(-1)!.headers.traceparent).toMatch(/^00-/);
    expect(total(metric(await kit.metrics(), METRIC_HTTP_CLIENT_REQUEST_DURATION))).toBe(1);
  });
});

describe("I7: one reseller.attempt line per HTTP request", () => {
  it("I4: the reconcile lookup has its own attempt line, and it is a first send (no resend_count)", async () => {
    const { kit, h, client, lines } = logged();
    h.emulator.control.addFault({ method: "POST", path: "/orders", kind: "reset_after" });
    const out = await client.orders.create({
      body: { external_id: "crm-lines-1", action: "register", domain: "lines-one.kz", period: 1 },
    } as never);
    expect(out.kind === "succeeded" && out.reconciled).toBe(true);
    expect(requestsTo(h.captured, "GET", /\/orders$/)).toHaveLength(1);
    expectOneLinePerRequest(h, lines);
    const lookup = kit.spans().find((s) => s.kind === SpanKind.CLIENT && s.name === "GET /api/reseller/v1/orders")!;
    expect(attr(lookup, HTTP.resendCount)).toBeUndefined();
    const [lookupLine] = lines.filter((l) => l.event === "reseller.attempt" && l.lookup === "orders.list");
    expect(lookupLine).toMatchObject({ operationId: "orders.create", idempotencyKey: out.idempotencyKey, status: 200 });
  });

  it("I4/G4: lookup not found → the POST resend counts one resend; a 429 on the lookup makes the lookup's resend 1", async () => {
    const { kit, h, client, lines } = logged();
    // The first POST is lost before the server sees it, so the lookup finds nothing and the POST goes again.
    h.emulator.control.addFault({ method: "POST", path: "/orders", kind: "reset_before" });
    h.emulator.control.addFault({ method: "POST", path: "/orders", kind: "reset_before" });
    h.emulator.control.addFault({ method: "GET", path: "/orders", kind: "rate_limit_no_header" });
    const out = await client.orders.create({
      body: { external_id: "crm-lines-2", action: "register", domain: "lines-two.kz", period: 1 },
    } as never);
    expect(out.kind).toBe("succeeded");
    expectOneLinePerRequest(h, lines);
    const clientSpans = kit.spans().filter((s) => s.kind === SpanKind.CLIENT);
    const posts = clientSpans.filter((s) => s.name === "POST /api/reseller/v1/orders");
    const gets = clientSpans.filter((s) => s.name === "GET /api/reseller/v1/orders");
    expect(posts.length).toBeGreaterThanOrEqual(2);
    posts.forEach((s, i) => expect(attr(s, HTTP.resendCount)).toBe(i === 0 ? undefined : i));
    expect(gets.length).toBeGreaterThanOrEqual(2);
    // Each lookup is a new request: the first send of a lookup has no resend_count; its 429 retry has 1.
    expect(attr(gets[0], HTTP.resendCount)).toBeUndefined();
    expect(attr(gets[1], HTTP.resendCount)).toBe(1);
  });

  it("F1: operations.wait polls, list pages and recover()'s lookups each have one line", async () => {
    const { h, client, lines } = logged();
    for (let i = 0; i < 30; i++) h.emulator.control.createDomain({ token: h.token, name: `page-${i}.kz` });
    const renew = await client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
    if (renew.kind !== "accepted") throw new Error(`expected accepted, got ${renew.kind}`);
    expect((await client.operations.wait(renew.operationUuid, { minIntervalMs: 500 })).kind).toBe("completed");
    let n = 0;
    for await (const _ of client.domains.list({ query: { per_page: 10 } })) n += 1;
    expect(n).toBe(31);
    // An order whose answer and lookup are both lost stays unknown; recover() looks it up again.
    h.emulator.control.addFault({ method: "POST", path: "/orders", kind: "reset_after" });
    h.emulator.control.addFault({ method: "GET", path: "/orders", kind: "reset_before" });
    const order = await client.orders.create({
      body: { external_id: "crm-lines-3", action: "register", domain: "lines-three.kz", period: 1 },
    } as never);
    expect(order.kind).toBe("unknown");
    const summary = await client.recover();
    expect(summary.resolved.length).toBeGreaterThan(0);
    expect(requestsTo(h.captured, "GET", `/operations/${renew.operationUuid}`).length).toBeGreaterThanOrEqual(2);
    expect(requestsTo(h.captured, "GET", /\/domains$/).length).toBe(4);
    expect(requestsTo(h.captured, "GET", /\/orders$/).length).toBe(2);
    expectOneLinePerRequest(h, lines);
  });
});
