// reseller-api/otel against the in-process emulator (one VirtualClock) with the OpenTelemetry SDK's
// in-memory exporters: span structure and attributes, the propagated traceparent, and the metric
// values after a scripted sequence — a 429 pause, a retry after a reset, an unknown outcome
// reconciled by external_id, and a command left for a manual check.
import { afterEach, describe, expect, it } from "vitest";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_ERROR_TYPE,
  METRIC_HTTP_CLIENT_REQUEST_DURATION,
} from "@opentelemetry/semantic-conventions";
import { otelTelemetry, METRIC, ATTR } from "../../otel/index";
import { createMemoryJournal } from "../../stores/memory-journal";
import { requestsTo, setup, type Harness } from "../client/harness";
import { attr, metric, otelKit, parentId, total, type OtelKit } from "./support";

const kits: OtelKit[] = [];
afterEach(async () => {
  for (const k of kits.splice(0)) await k.shutdown();
});

function instrumented(extra: Parameters<typeof setup>[0] = {}) {
  const kit = otelKit();
  kits.push(kit);
  const journal = createMemoryJournal();
  const h = setup({ environment: "live", ...extra, client: { timeoutMs: 10_000, ...extra.client } });
  const client = h.makeClient({
    journal,
    telemetry: otelTelemetry({ tracerProvider: kit.tracerProvider, meterProvider: kit.meterProvider }),
  });
  return { kit, h, client, journal };
}

const commandSpans = (spans: ReadableSpan[]) => spans.filter((s) => s.kind === SpanKind.INTERNAL);
const attemptsOf = (spans: ReadableSpan[], command: ReadableSpan) =>
  spans.filter((s) => s.kind === SpanKind.CLIENT && parentId(s) === command.spanContext().spanId);
const byOperation = (spans: ReadableSpan[], operationId: string) =>
  commandSpans(spans).filter((s) => attr(s, ATTR.operationId) === operationId);

describe("otel: spans", () => {
  it("one command span per call with a CLIENT child per attempt (stable HTTP client conventions)", async () => {
    const { kit, h, client } = instrumented();
    const out = await client.domains.get({ domainUuid: h.domainUuid });
    expect(out.kind).toBe("succeeded");
    const spans = kit.spans();
    const [command] = byOperation(spans, "domains.get");
    expect(command.name).toBe("domains.get");
    expect(attr(command, ATTR.outcomeKind)).toBe("succeeded");
    const [attempt] = attemptsOf(spans, command);
    expect(attempt.name).toBe("GET /api/reseller/v1/domains/{domainUuid}");
    expect(attempt.spanContext().traceId).toBe(command.spanContext().traceId);
    expect(attr(attempt, ATTR_HTTP_REQUEST_METHOD)).toBe("GET");
    expect(attr(attempt, "url.template") /* development-status name, no stable export */).toBe(
      "/api/reseller/v1/domains/{domainUuid}",
    );
    expect(attr(attempt, ATTR_SERVER_ADDRESS)).toBe("127.0.0.1");
    expect(attr(attempt, ATTR_HTTP_RESPONSE_STATUS_CODE)).toBe(200);
    expect(attr(attempt, ATTR_ERROR_TYPE)).toBeUndefined();
    expect(attr(attempt, ATTR.requestId)).toBe(out.requestId);
  });

  it("one otelTelemetry shared by two clients: each client's attempt spans name its own server", async () => {
    const kit = otelKit();
    kits.push(kit);
    const h = setup();
    const telemetry = otelTelemetry({ tracerProvider: kit.tracerProvider, meterProvider: kit.meterProvider });
    const a = h.makeClient({ telemetry });
    const b = h.makeClient({ telemetry, baseUrl: "http://localhost:8080/api/reseller/v1" });
    expect((await a.context.get()).kind).toBe("succeeded");
    expect((await b.context.get()).kind).toBe("succeeded");
    const attempts = kit.spans().filter((s) => s.kind === SpanKind.CLIENT);
    expect(attempts.map((s) => [attr(s, ATTR_SERVER_ADDRESS), attr(s, "server.port")])).toEqual([
      ["127.0.0.1", 80],
      ["localhost", 8080],
    ]);
  });

  it("W3C traceparent: every attempt carries its own span's context in the outgoing headers", async () => {
    const { kit, h, client } = instrumented();
    h.emulator.control.addFault({ method: "GET", path: "/domains/{domainUuid}", kind: "reset_before" });
    const out = await client.domains.get({ domainUuid: h.domainUuid });
    expect(out.kind).toBe("succeeded");
    const sent = requestsTo(h.captured, "GET", `/domains/${h.domainUuid}`);
    expect(sent).toHaveLength(2);
    const [command] = byOperation(kit.spans(), "domains.get");
    const attempts = attemptsOf(kit.spans(), command);
    expect(attempts).toHaveLength(2);
    for (let i = 0; i < 2; i++) {
      const sc = attempts[i].spanContext();
      expect(sent[i].headers.traceparent).toBe(`00-${sc.traceId}-${sc.spanId}-01`);
    }
    expect(attr(attempts[0], ATTR_ERROR_TYPE)).toBe("network");
    expect(attempts[0].status.code).toBe(SpanStatusCode.ERROR);
    expect(attr(attempts[1], "http.request.resend_count")).toBe(1);
    const backoff = command.events.find(
      (e) => e.name === "reseller.wait" && e.attributes?.[ATTR.waitKind] === "backoff",
    );
    expect(backoff?.attributes?.[ATTR.waitReason]).toBe("network");
    expect(backoff?.attributes?.[ATTR.waitMs]).toBeGreaterThan(0);
  });

  it("C12: a 429 pause is a retry_after wait on the command span, and the 429 attempt is an error", async () => {
    const { kit, h, client } = instrumented();
    h.emulator.control.addFault({ method: "GET", path: "/domains", kind: "proxy_429_date", retry_after_seconds: 5 });
    const page = await client.domains.list({ query: { per_page: 10 } });
    expect(page.kind).toBe("succeeded");
    const [command] = byOperation(kit.spans(), "domains.list");
    const attempts = attemptsOf(kit.spans(), command);
    expect(attempts.map((a) => attr(a, ATTR_HTTP_RESPONSE_STATUS_CODE))).toEqual([429, 200]);
    expect(attr(attempts[0], ATTR_ERROR_TYPE)).toBe("429");
    const wait = command.events.find((e) => e.attributes?.[ATTR.waitKind] === "retry_after");
    expect(wait?.attributes?.[ATTR.waitMs]).toBeGreaterThanOrEqual(4000);
  });

  it("I4: an unknown outcome reconciled by external_id — the lookup is an attempt span of the same command", async () => {
    const { kit, h, client } = instrumented();
    h.emulator.control.addFault({ method: "POST", path: "/orders", kind: "reset_after" });
    const out = await client.orders.create({
      body: { external_id: "crm-otel-1", action: "register", domain: "otel-name.kz", period: 1 },
    } as never);
    expect(out.kind).toBe("succeeded");
    const [command] = byOperation(kit.spans(), "orders.create");
    expect(attr(command, ATTR.reconciled)).toBe(true);
    expect(attr(command, ATTR.idempotencyKey)).toBe(out.idempotencyKey);
    expect(attr(command, ATTR.commandId)).toBe(out.commandId);
    const attempts = attemptsOf(kit.spans(), command);
    expect(attempts.map((a) => a.name)).toEqual(["POST /api/reseller/v1/orders", "GET /api/reseller/v1/orders"]);
  });
});

describe("telemetry that throws", () => {
  it("a broken ClientTelemetry never fails or changes a call (like a broken logger)", async () => {
    const h = setup();
    const boom = () => {
      throw new Error("exporter down");
    };
    const client = h.makeClient({
      telemetry: {
        bind: boom,
        startCommand: () => ({ slot: boom, backoff: boom, startAttempt: boom, end: boom }),
        onEvent: boom,
      },
    });
    h.emulator.control.addFault({ method: "GET", path: "/domains/{domainUuid}", kind: "reset_before" });
    const out = await client.domains.get({ domainUuid: h.domainUuid });
    expect(out.kind).toBe("succeeded");
    expect(out.attempts).toHaveLength(2);
    const throwingStart = h.makeClient({ telemetry: { startCommand: boom } });
    expect((await throwingStart.domains.get({ domainUuid: h.domainUuid })).kind).toBe("succeeded");
  });
});

describe("otel: metrics after a scripted sequence", () => {
  async function scripted(): Promise<{ kit: OtelKit; h: Harness; client: ReturnType<Harness["makeClient"]> }> {
    const { kit, h, client, journal } = instrumented();
    expect((await client.context.get()).kind).toBe("succeeded");
    // 1. a 429 pause: the limiter's own 429 without Retry-After (API), then a proxy's (HTML date).
    h.emulator.control.addFault({ method: "GET", path: "/domains", kind: "rate_limit_no_header" });
    expect((await client.domains.list({ query: { per_page: 5 } })).kind).toBe("succeeded");
    h.emulator.control.addFault({ method: "GET", path: "/domains", kind: "proxy_429_date" });
    expect((await client.domains.list({ query: { per_page: 5 } })).kind).toBe("succeeded");
    // 2. a retry after a reset.
    h.emulator.control.addFault({ method: "GET", path: "/domains/{domainUuid}", kind: "reset_before" });
    expect((await client.domains.get({ domainUuid: h.domainUuid })).kind).toBe("succeeded");
    // 3. an unknown outcome reconciled (orders.create: x-unknown-outcome reconcile).
    h.emulator.control.addFault({ method: "POST", path: "/orders", kind: "reset_after" });
    const order = await client.orders.create({
      body: { external_id: "crm-otel-2", action: "register", domain: "otel-two.kz", period: 1 },
    } as never);
    expect(order.kind === "succeeded" && order.reconciled).toBe(true);
    // 4. a manual check: a webhook create (x-unknown-outcome report) reset after the server committed.
    h.emulator.control.addFault({ method: "POST", path: "/webhooks", kind: "reset_after" });
    const hook = await client.webhooks.create({
      body: { url: "https://hooks.example/a", events: ["operation.completed"] },
    });
    expect(hook.kind).toBe("unknown");
    const summary = await client.recover();
    expect(summary.manual).toHaveLength(1);
    expect((await journal.listByState(["needs_manual_check"])).length).toBe(1);
    return { kit, h, client };
  }

  it("I7: requests by status class, retries by reason, 429s by source, outcomes by kind, recoveries", async () => {
    const { kit } = await scripted();
    const all = await kit.metrics();
    const requests = metric(all, METRIC_HTTP_CLIENT_REQUEST_DURATION);
    expect(total(requests, { [ATTR.statusClass]: "4xx", "http.response.status_code": 429 })).toBe(2);
    expect(total(requests, { [ATTR.statusClass]: "none" })).toBe(3); // the reset GET, the reset POST /orders, the webhook
    // context, two lists after their 429, the get after its reset, the order lookup (the manual check sends nothing).
    expect(total(requests, { [ATTR.statusClass]: "2xx" })).toBe(5);
    const retries = metric(all, METRIC.retries);
    expect(total(retries, { [ATTR.retryReason]: "rate_limited" })).toBe(2);
    expect(total(retries, { [ATTR.retryReason]: "network", [ATTR.operationId]: "domains.get" })).toBe(1);
    const limited = metric(all, METRIC.rateLimited);
    expect(total(limited, { [ATTR.rateLimitSource]: "api" })).toBe(1);
    expect(total(limited, { [ATTR.rateLimitSource]: "proxy" })).toBe(1);
    const outcomes = metric(all, METRIC.outcomes);
    expect(total(outcomes, { [ATTR.outcomeKind]: "unknown", [ATTR.operationId]: "webhooks.create" })).toBe(1);
    expect(total(outcomes, { [ATTR.outcomeKind]: "succeeded", [ATTR.operationId]: "orders.create" })).toBe(1);
    const recoveries = metric(all, METRIC.recoveries);
    expect(total(recoveries, { [ATTR.recoveryResult]: "needs_manual_check" })).toBe(1);
    expect(requests.descriptor.unit).toBe("s");
    expect(METRIC.requestDuration).toBe(METRIC_HTTP_CLIENT_REQUEST_DURATION);
  });

  it("I7: a 429 whose pause would pass the call's deadline counts as a 429, not as a retry (none was made)", async () => {
    const { kit, h, client } = instrumented();
    h.emulator.control.addFault({ method: "GET", path: "/domains", kind: "proxy_429_date", retry_after_seconds: 3600 });
    const listed = await client.domains.list({ query: { per_page: 5 } }, { deadlineMs: 60_000 });
    expect(listed.kind === "unknown" && listed.reason).toBe("deadline");
    expect(listed.attempts.map((a) => a.status)).toEqual([429]);
    h.emulator.control.addFault({ method: "GET", path: "/domains", kind: "rate_limit_no_header" });
    const later = await client.domains.list({ query: { per_page: 5 } }, { deadlineMs: Number.POSITIVE_INFINITY });
    expect(later.kind).toBe("succeeded"); // waits out the hour, gets a 429, pauses, then sends again
    const all = await kit.metrics();
    expect(total(metric(all, METRIC.rateLimited))).toBe(2);
    expect(total(metric(all, METRIC.retries), { [ATTR.retryReason]: "rate_limited" })).toBe(1);
  });

  it("I7/G4: a call answered from the journal is a command too — one span marked reseller.local_replay, one outcome, no attempt", async () => {
    const { kit, h, client } = instrumented();
    const args = { domainUuid: h.domainUuid, body: { period: 1 } };
    const first = await client.domains.renew(args, { idempotencyKey: "otel-replay-1" });
    expect(first.kind).toBe("accepted");
    const again = await client.domains.renew(args, { idempotencyKey: "otel-replay-1" });
    expect(again.kind === "accepted" && again.localReplay?.source).toBe("journal");
    const commands = byOperation(kit.spans(), "domains.renew");
    expect(commands).toHaveLength(2);
    expect(commands.map((c) => attr(c, ATTR.localReplay))).toEqual([undefined, "journal"]);
    expect(attemptsOf(kit.spans(), commands[1])).toHaveLength(0);
    expect(attr(commands[1], ATTR.outcomeKind)).toBe("accepted");
    const all = await kit.metrics();
    expect(total(metric(all, METRIC.outcomes), { [ATTR.operationId]: "domains.renew" })).toBe(2);
    expect(h.emulator.control.effects().filter((e) => e.kind === "domain.renew")).toHaveLength(1);
  });

  it("C12/C3: the pacer-wait histogram records the attempts that waited, the 429 pauses under retry_after", async () => {
    const { kit } = await scripted();
    const all = await kit.metrics();
    const wait = metric(all, METRIC.pacerWait);
    expect(wait.descriptor.unit).toBe("s");
    expect(total(wait)).toBeLessThan(total(metric(all, METRIC_HTTP_CLIENT_REQUEST_DURATION)));
    expect(total(wait, { [ATTR.waitReason]: "retry_after" })).toBe(2);
    const point = wait.dataPoints.find((p) => p.attributes[ATTR.waitReason] === "retry_after")!;
    expect((point.value as { sum: number }).sum).toBeGreaterThan(1); // seconds, not ms
  });

  it("G1/F4: journal commands by state show needs_manual_check; window and budget gauges read the client", async () => {
    const { kit, client } = await scripted();
    client.retryBudget.tryAcquire("timeout"); // spend 10 tokens, so the gauge has something to show
    const all = await kit.metrics();
    const journal = metric(all, METRIC.journalCommandCount);
    expect(total(journal, { [ATTR.commandState]: "needs_manual_check" })).toBe(1);
    expect(total(journal, { [ATTR.commandState]: "unknown" })).toBe(0);
    const limit = metric(all, METRIC.windowLimit);
    expect(total(limit, { [ATTR.environment]: "live" })).toBe(10_000); // learnt from GET /context
    const used = total(metric(all, METRIC.windowUsage));
    expect(used).toBeGreaterThan(0);
    const utilization = metric(all, METRIC.windowUtilization);
    expect(utilization.descriptor.unit).toBe("1");
    expect(total(utilization)).toBeCloseTo(used / 10_000, 10);
    const budget = metric(all, METRIC.retryBudget);
    expect(total(budget)).toBe(490);
  });

  it("metric attributes stay bounded: no UUID, domain, key id, Idempotency-Key or request id", async () => {
    const { kit, h } = await scripted();
    const all = await kit.metrics();
    const values = all.flatMap((m) => m.dataPoints.flatMap((p) => Object.values(p.attributes).map(String)));
    const keys = new Set(all.flatMap((m) => m.dataPoints.flatMap((p) => Object.keys(p.attributes))));
    expect([...keys].filter((k) => /idempotency|command_id|request_id|uuid|domain|url\.full/.test(k))).toEqual([]);
    const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
    expect(values.filter((v) => uuid.test(v) || v.includes(h.publicKeyId) || v.includes(".kz"))).toEqual([]);
    for (const m of all) expect(m.descriptor.name).toMatch(/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/);
  });
});
