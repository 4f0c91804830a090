// Deadlines and proxy anomalies in OpenTelemetry, read back from the SDK's in-memory exporters: a
// proxy's 429 with a Retry-After of a day stops a renewal at its deadline — counted by what it waited
// for and whether it had sent anything, an event on its command span — and the over-long Retry-After
// is counted as a proxy anomaly, an event on the same span. With telemetry alone (no onEvent).
import { afterEach, describe, expect, it } from "vitest";
import { SpanKind, type Attributes } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { ATTR, METRIC, otelTelemetry } from "../../otel/index";
import { createMemoryJournal } from "../../stores/memory-journal";
import { setup } from "../client/harness";
import { attr, metric, otelKit, total, type OtelKit } from "./support";

const kits: OtelKit[] = [];
afterEach(async () => {
  for (const k of kits.splice(0)) await k.shutdown();
});

const proxy429 = (retryAfter: string) =>
  new Response("<html>Too Many Requests</html>", {
    status: 429,
    headers: { "retry-after": retryAfter, "content-type": "text/html" },
  });

/** A client with telemetry only, whose first `n429` requests get a proxy's 429 with this Retry-After. */
function instrumented(retryAfter: string, n429 = 1) {
  const kit = otelKit();
  kits.push(kit);
  const h = setup({ environment: "live" });
  let left = n429;
  const client = h.makeClient({
    journal: createMemoryJournal(),
    onEvent: undefined,
    telemetry: otelTelemetry({ tracerProvider: kit.tracerProvider, meterProvider: kit.meterProvider }),
    fetch: async (request) => (left-- > 0 ? proxy429(retryAfter) : h.fetch(request)),
  });
  return { kit, h, client };
}

const commandSpan = (spans: ReadableSpan[], operationId: string) =>
  spans.filter((s) => s.kind === SpanKind.INTERNAL && attr(s, ATTR.operationId) === operationId);
const eventsNamed = (span: ReadableSpan, name: string): Attributes[] =>
  span.events.filter((e) => e.name === name).map((e) => e.attributes ?? {});

describe("otel: deadlines and proxy anomalies", () => {
  it("C12/C11: a proxy's Retry-After of a day — deadline (pause, sent) and proxy anomaly, as metrics and span events", async () => {
    const { kit, h, client } = instrumented("86400");
    const out = await client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
    expect(out.kind === "unknown" && out.reason).toBe("deadline");
    if (out.kind !== "unknown") return;

    const all = await kit.metrics();
    const deadlines = metric(all, METRIC.deadlines);
    expect(deadlines.descriptor.unit).toBe("{call}");
    expect(
      total(deadlines, {
        [ATTR.operationId]: "domains.renew",
        [ATTR.deadlineWaitingFor]: "pause",
        [ATTR.deadlineSent]: true,
      }),
    ).toBe(1);
    const anomalies = metric(all, METRIC.proxyAnomalies);
    expect(anomalies.descriptor.unit).toBe("{response}");
    expect(total(anomalies, { [ATTR.operationId]: "domains.renew" })).toBe(1);
    const outcomes = metric(all, METRIC.outcomes);
    expect(total(outcomes, { [ATTR.outcomeKind]: "unknown", [ATTR.outcomeReason]: "deadline" })).toBe(1);

    const [span] = commandSpan(kit.spans(), "domains.renew");
    expect(attr(span, ATTR.outcomeReason)).toBe("deadline");
    expect(attr(span, ATTR.deadlineSent)).toBe(true);
    expect(eventsNamed(span, "reseller.deadline")).toEqual([
      { [ATTR.deadlineSent]: true, [ATTR.deadlineRetryAt]: out.retryAt, [ATTR.deadlineWaitingFor]: "pause" },
    ]);
    expect(eventsNamed(span, "reseller.proxy_anomaly")).toEqual([
      { [ATTR.retryAfterMs]: 3_600_000, [ATTR.windowMs]: 60_000 },
    ]);
  });

  it("C12: the next call on the paused key stops before sending — deadline (sent: false), no new anomaly", async () => {
    const { kit, h, client } = instrumented("86400");
    await client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
    const read = await client.context.get();
    expect(read.kind === "unknown" && read.reason).toBe("deadline");
    const all = await kit.metrics();
    expect(
      total(metric(all, METRIC.deadlines), { [ATTR.operationId]: "context.get", [ATTR.deadlineSent]: false }),
    ).toBe(1);
    expect(total(metric(all, METRIC.proxyAnomalies))).toBe(1);
    const [span] = commandSpan(kit.spans(), "context.get");
    expect(eventsNamed(span, "reseller.deadline")).toHaveLength(1);
    expect(eventsNamed(span, "reseller.deadline")[0][ATTR.deadlineSent]).toBe(false);
    expect(eventsNamed(span, "reseller.proxy_anomaly")).toHaveLength(0);
  });

  it("C11: a Retry-After within one window is the API's own — waited out, no anomaly and no deadline counted", async () => {
    const { kit, client } = instrumented("20");
    expect((await client.context.get()).kind).toBe("succeeded");
    const all = await kit.metrics();
    expect(all.some((m) => m.descriptor.name === METRIC.proxyAnomalies && total(m) > 0)).toBe(false);
    expect(all.some((m) => m.descriptor.name === METRIC.deadlines && total(m) > 0)).toBe(false);
    const [span] = commandSpan(kit.spans(), "context.get");
    expect(span.events.map((e) => e.name)).not.toContain("reseller.proxy_anomaly");
    expect(span.events.map((e) => e.name)).not.toContain("reseller.deadline");
  });

  it("a proxy anomaly on a call that then waits it out (deadlineMs: Infinity) marks that call's span only", async () => {
    const { kit, h, client } = instrumented("120");
    const [slow, other] = await Promise.all([
      client.context.get({}, { deadlineMs: Number.POSITIVE_INFINITY }),
      client.domains.get({ domainUuid: h.domainUuid }, { deadlineMs: Number.POSITIVE_INFINITY }),
    ]);
    expect(slow.kind).toBe("succeeded");
    expect(other.kind).toBe("succeeded");
    const spans = kit.spans();
    const marked = spans.filter((s) => s.events.some((e) => e.name === "reseller.proxy_anomaly"));
    expect(marked.map((s) => attr(s, ATTR.operationId))).toEqual(["context.get"]);
    expect(total(metric(await kit.metrics(), METRIC.proxyAnomalies))).toBe(1);
  });
});
