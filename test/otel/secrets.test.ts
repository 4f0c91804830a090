// A4/H2/D9: a run that handles every secret the API has — the token and its secret part, a webhook's
// signing_secret (create, a replay of the create, rotate), a domain's auth_code — with spans, metrics,
// a pino logger and a console-shaped logger all on, then a scan of every exported record.
import { describe, expect, it } from "vitest";
import { emulatorTracer, otelTelemetry } from "../../otel/index";
import { createMemoryJournal } from "../../stores/memory-journal";
import { setup } from "../client/harness";
import { otelKit, pinoCapture } from "./support";

describe("otel + logger: no secret in any span, metric or log line", () => {
  it("A4/H2/D9: token, its secret part, signing_secret, auth_code — absent from every exported record", async () => {
    const kit = otelKit();
    const { logger: pinoLogger, lines: pinoLines } = pinoCapture();
    const consoleLines: unknown[][] = [];
    const consoleLike = {
      debug: (...a: unknown[]) => consoleLines.push(a),
      info: (...a: unknown[]) => consoleLines.push(a),
      warn: (...a: unknown[]) => consoleLines.push(a),
      error: (...a: unknown[]) => consoleLines.push(a),
    };
    const h = setup({
      environment: "live",
      emulator: { tracer: emulatorTracer({ tracerProvider: kit.tracerProvider }) },
    });
    const telemetry = otelTelemetry({ tracerProvider: kit.tracerProvider, meterProvider: kit.meterProvider });
    const journal = createMemoryJournal();
    const client = h.makeClient({ telemetry, logger: pinoLogger, journal });
    const second = h.makeClient({ telemetry, logger: consoleLike });

    const secrets: string[] = [h.token, h.token.split(".")[1]];
    const created = await client.webhooks.create(
      { body: { url: "https://hooks.example/s", events: ["operation.completed"] } },
      { idempotencyKey: "hook-secret-1" },
    );
    expect(created.kind).toBe("succeeded");
    if (created.kind !== "succeeded") return;
    const hook = (created.data as { data: { uuid: string; signing_secret: string } }).data;
    secrets.push(hook.signing_secret);
    // D9: the replay of the create shows the secret again.
    const replay = await second.webhooks.create(
      { body: { url: "https://hooks.example/s", events: ["operation.completed"] } },
      { idempotencyKey: "hook-secret-1" },
    );
    expect(replay.kind === "succeeded" && replay.replayed).toBe(true);
    const rotated = await client.webhooks.rotateSecret({ webhookUuid: hook.uuid }, { idempotencyKey: "rotate-1" });
    expect(rotated.kind).toBe("succeeded");
    if (rotated.kind === "succeeded")
      secrets.push((rotated.data as { data: { signing_secret: string } }).data.signing_secret);
    // A rotate whose answer is lost (x-unknown-outcome report) and a broken body: the secret must not leak via snippets.
    h.emulator.control.addFault({
      method: "POST",
      path: "/webhooks/{webhookUuid}/rotate-secret",
      kind: "truncated_json",
    });
    const truncated = await client.webhooks.rotateSecret({ webhookUuid: hook.uuid }, { idempotencyKey: "rotate-2" });
    expect(truncated.kind).toBe("unknown");
    const auth = await second.domains.getAuthCode({ domainUuid: h.domainUuid });
    expect(auth.kind).toBe("succeeded");
    if (auth.kind === "succeeded") secrets.push((auth.data as { data: { auth_code: string } }).data.auth_code);
    await client.recover();

    const spans = kit.spans();
    const metrics = await kit.metrics();
    expect(spans.length).toBeGreaterThan(10);
    expect(metrics.length).toBeGreaterThan(5);
    expect(pinoLines.length).toBeGreaterThan(5);
    expect(consoleLines.length).toBeGreaterThan(2);
    const exported = JSON.stringify({
      spans: spans.map((s) => ({
        name: s.name,
        attributes: s.attributes,
        events: s.events,
        status: s.status,
        links: s.links,
        resource: s.resource.attributes,
      })),
      metrics: metrics.map((m) => ({ descriptor: m.descriptor, points: m.dataPoints.map((p) => p.attributes) })),
      pinoLines,
      consoleLines,
    });
    expect(secrets.every((s) => typeof s === "string" && s.length >= 8)).toBe(true);
    for (const secret of secrets)
      expect(exported.includes(secret), `a secret (${secret.slice(0, 4)}…) leaked`).toBe(false);
    expect(exported).not.toMatch(/rsl_(test|live)_/);
    expect(exported).not.toMatch(/whsec_/);
    expect(exported).not.toMatch(/Bearer /i);
    await kit.shutdown();
  });
});
