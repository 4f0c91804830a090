// The monitoring guide's export set-up, end to end: the OTLP/HTTP trace and metric exporters send
// to a receiver on a loopback port that decodes what arrives (OTLP JSON), and the Prometheus
// exporter is scraped over loopback and read by a real text-format parser. The metric names and
// units are taken from the guide's own tables and queries, so what it promises is what a collector
// and a dashboard get.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { otelTelemetry } from "../../otel/index";
import { createMemoryJournal } from "../../stores/memory-journal";
import { setup } from "../client/harness";

const GUIDE = readFileSync(new URL("../../docs/guides/monitoring.md", import.meta.url), "utf8");

/** The guide's metric table: every `name` of a row with the unit its second column gives. */
function guideMetrics(): Map<string, string> {
  const section = GUIDE.slice(GUIDE.indexOf("### Metrics"), GUIDE.indexOf("### Logs"));
  const out = new Map<string, string>();
  for (const row of section.split("\n").filter((l) => l.startsWith("| `"))) {
    const [names, instrument] = row.split("|").slice(1, 3);
    const unit = /`([^`]+)`/.exec(instrument)?.[1];
    for (const [, name] of names.matchAll(/`([^`]+)`/g)) out.set(name, unit!);
  }
  return out;
}

/** The Prometheus series and label names the guide quotes in its PromQL block and the paragraph before it. */
function guideSeries(): { series: string[]; labels: string[] } {
  const text = GUIDE.slice(GUIDE.indexOf("Scraped through"), GUIDE.indexOf("```promql\n") + 2000);
  const block = /```promql\n([\s\S]*?)```/.exec(text)![1];
  const names = [
    ...new Set([...(text.split("```promql")[0] + block).matchAll(/\b((?:reseller|http)_[a-z_]+)\b/g)].map((m) => m[1])),
  ];
  const series = names.filter(
    (n) => /^(reseller_client_|http_client_)/.test(n) && !n.endsWith("_") && n !== "reseller_client_name",
  );
  return { series, labels: names.filter((n) => !/^(reseller_client_|http_client_)/.test(n)) };
}

interface OtlpAttr {
  key: string;
  value: Record<string, unknown>;
}
interface OtlpJsonMetric {
  name: string;
  unit?: string;
  [shape: string]: unknown;
}

const servers: Server[] = [];
const shutdowns: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of shutdowns.splice(0)) await s();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const bodyOf = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });

/** A run the guide's panels are about: a 429 pause, a reconciled order, a command left for a manual check. */
async function scriptedRun(telemetry: ReturnType<typeof otelTelemetry>) {
  const h = setup({ environment: "live", client: { timeoutMs: 10_000 } });
  let proxy429 = 0; // a proxy's 429 with a day's Retry-After: a proxy anomaly and a call stopped at its deadline
  const client = h.makeClient({
    journal: createMemoryJournal(),
    telemetry,
    fetch: async (request) =>
      proxy429-- > 0
        ? new Response("<html>Too Many Requests</html>", {
            status: 429,
            headers: { "retry-after": "86400", "content-type": "text/html" },
          })
        : h.fetch(request),
  });
  expect((await client.context.get()).kind).toBe("succeeded");
  h.emulator.control.addFault({ method: "GET", path: "/domains", kind: "rate_limit_no_header" });
  expect((await client.domains.list({ query: { per_page: 5 } })).kind).toBe("succeeded");
  proxy429 = 1;
  expect((await client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } })).kind).toBe("unknown");
  h.clock.advance(86_400_000 + 120_000); // the proxy's pause is over
  h.emulator.control.addFault({ method: "POST", path: "/orders", kind: "reset_after" });
  const order = await client.orders.create({
    body: { external_id: "crm-export-1", action: "register", domain: "export-one.kz", period: 1 },
  } as never);
  expect(order.kind).toBe("succeeded");
  h.emulator.control.addFault({ method: "GET", path: "/domains/{domainUuid}", kind: "reset_before" });
  expect((await client.domains.get({ domainUuid: h.domainUuid })).kind).toBe("succeeded");
  h.emulator.control.addFault({ method: "POST", path: "/webhooks", kind: "reset_after" });
  await client.webhooks.create({ body: { url: "https://hooks.example/x", events: ["operation.completed"] } });
  expect((await client.recover()).manual).toHaveLength(1);
  return h;
}

describe("the guide's export set-up, end to end", () => {
  it("I7: OTLP/HTTP traces and metrics reach a loopback receiver with the guide's names and units", async () => {
    const received = { traces: [] as unknown[], metrics: [] as unknown[], types: new Set<string>() };
    const base = await listen((req, res) => {
      void bodyOf(req).then((body) => {
        received.types.add(String(req.headers["content-type"]));
        if (req.url === "/v1/traces") received.traces.push(JSON.parse(body.toString("utf8")));
        else if (req.url === "/v1/metrics") received.metrics.push(JSON.parse(body.toString("utf8")));
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    // As in the guide, with the collector's address replaced by the receiver's.
    const tracerProvider = new BasicTracerProvider({
      spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${base}/v1/traces` }))],
    });
    const meterProvider = new MeterProvider({
      readers: [
        new PeriodicExportingMetricReader({
          exporter: new OTLPMetricExporter({ url: `${base}/v1/metrics` }),
          exportIntervalMillis: 3_600_000, // forceFlush() below exports; no timer races the test
        }),
      ],
    });
    shutdowns.push(
      () => tracerProvider.shutdown(),
      () => meterProvider.shutdown(),
    );
    await scriptedRun(otelTelemetry({ tracerProvider, meterProvider }));
    await tracerProvider.forceFlush();
    await meterProvider.forceFlush();

    expect([...received.types]).toEqual(["application/json"]);
    interface Spans {
      resourceSpans: { scopeSpans: { spans: { name: string; kind: number; attributes: OtlpAttr[] }[] }[] }[];
    }
    const spans = (received.traces as Spans[]).flatMap((t) =>
      t.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)),
    );
    const names = new Set(spans.map((s) => s.name));
    expect(names).toContain("orders.create");
    expect(names).toContain("GET /api/reseller/v1/orders");
    const attempt = spans.find((s) => s.name === "POST /api/reseller/v1/orders")!;
    const keys = attempt.attributes.map((a) => a.key);
    for (const k of ["http.request.method", "url.template", "server.address", "server.port", "reseller.request_id"])
      expect(keys).toContain(k);

    interface Metrics {
      resourceMetrics: { scopeMetrics: { metrics: OtlpJsonMetric[] }[] }[];
    }
    const metrics = new Map<string, OtlpJsonMetric>();
    for (const m of (received.metrics as Metrics[]).flatMap((e) =>
      e.resourceMetrics.flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics)),
    ))
      metrics.set(m.name, m);
    const promised = guideMetrics();
    expect(promised.size).toBeGreaterThanOrEqual(13);
    for (const [name, unit] of promised) {
      expect(metrics.has(name), `${name} (in the guide) was not exported`).toBe(true);
      expect(metrics.get(name)!.unit, `${name}'s unit`).toBe(unit);
    }
    // Nothing exported that the guide does not list.
    expect([...metrics.keys()].filter((n) => !promised.has(n))).toEqual([]);
    const duration = metrics.get("http.client.request.duration") as unknown as {
      histogram: { dataPoints: { attributes: OtlpAttr[] }[] };
    };
    for (const p of duration.histogram.dataPoints)
      expect(p.attributes.map((a) => a.key)).toEqual(expect.arrayContaining(["server.address", "server.port"]));
  });

  it("I7: a Prometheus scrape, parsed by a real parser, has every series the guide's queries use", async () => {
    const exporter = new PrometheusExporter({ preventServerStart: true });
    const meterProvider = new MeterProvider({ readers: [exporter] });
    shutdowns.push(() => meterProvider.shutdown());
    const base = await listen((req, res) => exporter.getMetricsRequestHandler(req, res));
    await scriptedRun(otelTelemetry({ meterProvider }));
    const scrape = await fetch(`${base}/metrics`);
    expect(scrape.status).toBe(200);
    const families = parsePrometheusTextFormat(await scrape.text());
    const byName = new Map(families.map((f) => [f.name, f]));
    const series = new Set(
      families.flatMap((f) =>
        f.type === "HISTOGRAM" ? [`${f.name}_sum`, `${f.name}_count`, `${f.name}_bucket`] : [f.name],
      ),
    );
    const quoted = guideSeries();
    expect(quoted.series.length).toBeGreaterThanOrEqual(4);
    for (const name of quoted.series)
      expect(series.has(name), `${name} (in the guide) is not in the scrape: ${[...series].join(", ")}`).toBe(true);
    const labels = new Set(families.flatMap((f) => f.metrics.flatMap((m) => Object.keys(m.labels ?? {}))));
    for (const label of quoted.labels) expect(labels.has(label), `label ${label} (in the guide)`).toBe(true);
    const manual = byName.get("reseller_client_journal_command_count")!;
    expect(manual.type).toBe("GAUGE");
    const point = manual.metrics.find((m) => m.labels?.reseller_command_state === "needs_manual_check");
    expect(point?.value).toBe("1");
    const outcomes = families.find((f) => f.name.startsWith("reseller_client_outcomes"))!;
    expect(outcomes.type).toBe("COUNTER");
  });
});
