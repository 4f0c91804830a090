// A4, D9, H2: no event, error, snippet or journal record ever contains the token, its secret, a
// signing_secret or an auth_code — checked by scanning JSON.stringify of everything captured.
import { describe, expect, it } from "vitest";
import { createMemoryJournal } from "../../stores/memory-journal";
import { COMMAND_STATES } from "../../journal";
import { createRedactor, snippetOf } from "../../core";
import { createEventSink } from "../../core";
import type { Journal } from "../../journal";
import { setup } from "./harness";

describe("client: redaction", () => {
  it("A4/H2/D9: token, signing_secret and auth_code never reach events, errors, snippets or the journal", async () => {
    const h = setup({ client: { timeoutMs: 5_000 } });
    // A spy in front of the memory journal keeps the RAW arguments the client passes, so the test
    // sees the client's own redaction (the store redacts again as a second line of defence).
    const memory = createMemoryJournal();
    const rawJournalArgs: unknown[] = [];
    const journal: Journal = {
      ...memory,
      record: (c) => (rawJournalArgs.push({ ...c, body: c.body && Buffer.from(c.body).toString() }), memory.record(c)),
      addAttempt: (id, a, then, lease) => (rawJournalArgs.push(a, then?.patch), memory.addAttempt(id, a, then, lease)),
      transition: (id, to, patch, lease) => (rawJournalArgs.push(patch), memory.transition(id, to, patch, lease)),
    };
    const client = h.makeClient({ journal });
    const secrets: string[] = [h.token, h.token.split(".")[1]];
    const leaks: unknown[] = [];

    // webhooks.create: its secret, a replay of it, a truncated copy of another, a rotation.
    const hook = { body: { url: "https://hooks.example/r", events: ["domain.renewed" as const] } };
    const created = await client.webhooks.create(hook, { idempotencyKey: "wh-1" });
    const replay = await client.webhooks.create(hook, { idempotencyKey: "wh-1" });
    expect(created.kind).toBe("succeeded");
    expect(replay.kind === "succeeded" && replay.replayed).toBe(true);
    const webhook = (created as { data: { data: { uuid: string; signing_secret: string } } }).data.data;
    secrets.push(webhook.signing_secret);

    h.emulator.control.addFault({ method: "POST", path: "/webhooks", kind: "truncated_json" });
    const truncated = await client.webhooks.create(
      { body: { url: "https://hooks.example/t", events: ["domain.renewed"] } },
      { idempotencyKey: "wh-2" },
    );
    expect(truncated.kind).toBe("unknown");
    leaks.push(truncated);
    const full = await client.webhooks.create(
      { body: { url: "https://hooks.example/t", events: ["domain.renewed"] } },
      { idempotencyKey: "wh-2" },
    );
    const truncatedSecret = (full as { data: { data: { signing_secret: string } } }).data.data.signing_secret;
    secrets.push(truncatedSecret, truncatedSecret.slice(0, 16));

    const rotated = await client.webhooks.rotateSecret({ webhookUuid: webhook.uuid });
    expect(rotated.kind).toBe("succeeded");
    secrets.push((rotated as { data: { data: { signing_secret: string } } }).data.data.signing_secret);

    const code = await client.domains.getAuthCode({ domainUuid: h.domainUuid });
    expect(code.kind).toBe("succeeded");
    secrets.push((code as { data: { data: { auth_code: string } } }).data.data.auth_code);

    // Errors: a server error body and a transport failure.
    h.emulator.control.addFault({ method: "POST", path: "/webhooks/{webhookUuid}/rotate-secret", kind: "reset_after" });
    leaks.push(await client.webhooks.rotateSecret({ webhookUuid: webhook.uuid }));
    leaks.push(await client.webhooks.create({ body: { url: "not a url", events: [] } }));

    const records = await journal.listByState(COMMAND_STATES);
    expect(records.length).toBeGreaterThan(3);
    const haystack = JSON.stringify({
      rawJournalArgs,
      events: h.events,
      records: records.map((r) => ({ ...r, body: r.body && Buffer.from(r.body).toString() })),
      leaks,
    });
    expect(h.events.length).toBeGreaterThan(5);
    for (const s of secrets) {
      expect(s.length).toBeGreaterThan(8);
      expect(haystack).not.toContain(s);
    }
    expect(haystack).toContain("[REDACTED]");
  });

  it("A4: a custom fetch echoing the token in an error body is redacted in the snippet and events", async () => {
    const h = setup();
    const client = h.makeClient({
      fetch: async (req) =>
        new Response(`<html>debug: ${req.headers.get("authorization")}</html>`, {
          status: 502,
          headers: { "content-type": "text/html" },
        }),
      retry: { maxAttempts: 1 },
    });
    const out = await client.context.get();
    expect(out.kind).toBe("unknown");
    const text = JSON.stringify({ out, events: h.events });
    expect(text).not.toContain(h.token);
    expect(text).not.toContain(h.token.split(".")[1]);
  });

  it("A4/I7: the event sink redacts whatever an event carries before the integrator's logger sees it", () => {
    const token = "rsl_live_" + "B".repeat(24) + "." + "z".repeat(64);
    const seen: unknown[] = [];
    const sink = createEventSink((e) => seen.push(e), createRedactor([token, token.split(".")[1]]));
    sink.emit({
      type: "pacing",
      event: { type: "store-error", apiKeyId: "k", error: new Error(`redis said ${token}`) },
    });
    sink.emit({
      type: "reconcile",
      operationId: "orders.create",
      externalId: `x-${token.split(".")[1]}`,
      result: "found",
    });
    const text = JSON.stringify(seen);
    expect(seen).toHaveLength(2);
    expect(text).not.toContain(token);
    expect(text).not.toContain("z".repeat(64));
    expect(text).toContain("[REDACTED]");
    // A throwing logger never breaks a call.
    expect(() =>
      createEventSink(() => {
        throw new Error("logger down");
      }, createRedactor()).emit(seen[1] as never),
    ).not.toThrow();
  });

  it("H2: the redactor handles truncated secrets and multibyte bodies within 2 KiB", () => {
    const r = createRedactor(["rsl_test_" + "A".repeat(24) + "." + "s".repeat(64)]);
    expect(r.text('{"data":{"signing_secret":"whsec_abcdefgh')).not.toContain("abcdefgh");
    expect(r.text('{"auth_code": "Xy9#secret"}')).toBe('{"auth_code": "[REDACTED]"}');
    expect(r.value({ a: { auth_code: "k", Authorization: "Bearer x" } })).toEqual({
      a: { auth_code: "[REDACTED]", Authorization: "[REDACTED]" },
    });
    const snip = snippetOf(new TextEncoder().encode("ж".repeat(3000)), r);
    expect(new TextEncoder().encode(snip).byteLength).toBeLessThanOrEqual(2048);
    expect(snip).not.toContain("\uFFFD");
  });
});
