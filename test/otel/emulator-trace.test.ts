// One trace across the client and the emulator: the emulator's tracer hook continues the W3C
// traceparent each attempt sends, in process and over a real loopback TCP port.
import { afterEach, describe, expect, it } from "vitest";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { startEmulatorServer, type EmulatorServer } from "../../emulator/public";
import { createResellerClient } from "../../src/index";
import { emulatorTracer, otelTelemetry, ATTR } from "../../otel/index";
import { setup } from "../client/harness";
import { attr, otelKit, parentId, type OtelKit } from "./support";

const kits: OtelKit[] = [];
const servers: EmulatorServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const k of kits.splice(0)) await k.shutdown();
});

function kit(): OtelKit {
  const k = otelKit();
  kits.push(k);
  return k;
}

describe("otel: emulator spans", () => {
  it("each attempt's CLIENT span is the parent of the emulator's SERVER span (one trace, retries included)", async () => {
    const k = kit();
    const h = setup({ emulator: { tracer: emulatorTracer({ tracerProvider: k.tracerProvider }) } });
    const client = h.makeClient({ telemetry: otelTelemetry({ tracerProvider: k.tracerProvider }) });
    h.emulator.control.addFault({ method: "POST", path: "/domains/{domainUuid}/renew", kind: "error_500_after" });
    const out = await client.domains.renew(
      { domainUuid: h.domainUuid, body: { period: 1 } },
      { idempotencyKey: "renew-otel-1" },
    );
    expect(out.kind).toBe("accepted"); // F1: the retry (same key, same bytes) is accepted
    const spans = k.spans();
    const command = spans.find((s) => s.kind === SpanKind.INTERNAL && attr(s, ATTR.operationId) === "domains.renew")!;
    const clients = spans.filter((s) => s.kind === SpanKind.CLIENT && parentId(s) === command.spanContext().spanId);
    const servers = spans.filter((s) => s.kind === SpanKind.SERVER && attr(s, ATTR.operationId) === "domains.renew");
    expect(clients).toHaveLength(2);
    expect(servers).toHaveLength(2);
    for (let i = 0; i < 2; i++) {
      expect(servers[i].spanContext().traceId).toBe(command.spanContext().traceId);
      expect(parentId(servers[i])).toBe(clients[i].spanContext().spanId);
      expect(servers[i].name).toBe("POST /api/reseller/v1/domains/{domainUuid}/renew");
      expect(attr(servers[i], "http.route")).toBe("/api/reseller/v1/domains/{domainUuid}/renew");
      expect(attr(servers[i], ATTR.requestId)).toBe(attr(clients[i], ATTR.requestId));
    }
    expect(attr(servers[0], "http.response.status_code")).toBe(500);
    expect(attr(servers[0], ATTR.fault)).toBe("error_500_after");
    expect(servers[0].status.code).toBe(SpanStatusCode.ERROR);
    expect(attr(servers[1], "http.response.status_code")).toBe(202);
    expect(servers[1].status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it("over a real loopback port, with the SDK's W3C propagator on both sides", async () => {
    const k = kit();
    const propagator = new W3CTraceContextPropagator();
    const server = await startEmulatorServer({
      tracer: emulatorTracer({ tracerProvider: k.tracerProvider, propagator }),
    });
    servers.push(server);
    const key = server.emulator.control.createKey({ environment: "test" });
    const client = createResellerClient({
      baseUrl: server.baseUrl,
      token: key.token,
      telemetry: otelTelemetry({ tracerProvider: k.tracerProvider, propagator }),
    });
    const out = await client.context.get();
    expect(out.kind).toBe("succeeded");
    const spans = k.spans();
    const attempt = spans.find((s) => s.kind === SpanKind.CLIENT)!;
    const served = spans.find((s) => s.kind === SpanKind.SERVER)!;
    expect(served.spanContext().traceId).toBe(attempt.spanContext().traceId);
    expect(parentId(served)).toBe(attempt.spanContext().spanId);
    expect(attr(attempt, "server.port")).toBe(server.port);
    expect(attr(served, "server.port")).toBe(server.port);
  });

  it("without a traceparent the emulator starts its own trace; a malformed one is ignored", async () => {
    const k = kit();
    const h = setup({ emulator: { tracer: emulatorTracer({ tracerProvider: k.tracerProvider }) } });
    const send = (traceparent?: string) =>
      h.emulator.fetch(`http://127.0.0.1/api/reseller/v1/context`, {
        headers: { authorization: `Bearer ${h.token}`, ...(traceparent ? { traceparent } : {}) },
      });
    expect((await send()).status).toBe(200);
    expect((await send("00-zzzz-not-a-trace-01")).status).toBe(200);
    const served = k.spans().filter((s) => s.kind === SpanKind.SERVER);
    expect(served).toHaveLength(2);
    for (const s of served) expect(parentId(s)).toBeUndefined();
  });
});
