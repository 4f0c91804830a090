// Properties (fast-check): (1) for ANY sequence of injected faults on renew, the emulator's effects
// ledger shows at most one renew per command and every attempt of a command carried the same key and
// the same bytes (D3, D4, I4); (2) malformed responses — random statuses, content types, bodies and
// headers from a custom fetch — never make a call throw an untyped error (E5); (3) a hostile network
// (test/support/hostile.ts) driving writes through reconcile and resend, async operations through
// polling and journalled commands through recover(): every call settles, typed, with ≤ 1 execution
// and snippets ≤ 2 KiB. bench/fuzz.ts runs (3) for ≥ 10,000 responses.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FAULT_KINDS } from "../../emulator/faults";
import { isResellerClientError, ResellerClientError } from "../../src/index";
import {
  addHits,
  hostileRun,
  OUTCOME_KINDS,
  snippetBytes,
  stepArbitrary,
  HOSTILE_OPERATIONS,
  type PathHits,
} from "../support/hostile";
import { decode, requestsTo, seeded, setup } from "./harness";

const KINDS = ["succeeded", "accepted", "rejected", "conflict", "unknown"];

describe("client: properties", () => {
  it("D3/D4/I4 property: any fault sequence on renew → ≤ 1 renew per command, one key and one body per command", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.constantFrom(...FAULT_KINDS), { maxLength: 5 }), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 10 }),
        async (faultsPerCommand, period) => {
          const h = setup({ client: { timeoutMs: 5_000 } });
          const domains = faultsPerCommand.map((_, i) =>
            i === 0 ? h.domainUuid : h.emulator.control.createDomain({ token: h.token, name: `prop-${i}.kz` }).uuid,
          );
          for (let i = 0; i < faultsPerCommand.length; i++) {
            h.emulator.control.clearFaults();
            for (const kind of faultsPerCommand[i]) {
              h.emulator.control.addFault({
                method: "POST",
                path: "/domains/{domainUuid}/renew",
                kind,
                retry_after_seconds: 2,
              });
            }
            const out = await h.client.domains.renew({ domainUuid: domains[i], body: { period } });
            expect(KINDS).toContain(out.kind);
            const sent = requestsTo(h.captured, "POST", `/domains/${domains[i]}/renew`);
            expect(sent.length).toBe(out.attempts.length);
            expect(new Set(sent.map((s) => s.headers["idempotency-key"]))).toEqual(new Set([out.idempotencyKey]));
            expect(new Set(sent.map((s) => decode(s.body)))).toEqual(new Set([`{"period":${period}}`]));
          }
          const perKey = new Map<string, number>();
          for (const e of h.emulator.control.effects()) {
            if (!e.kind.includes("renew")) continue;
            perKey.set(e.idempotency_key ?? "", (perKey.get(e.idempotency_key ?? "") ?? 0) + 1);
          }
          for (const n of perKey.values()) expect(n).toBeLessThanOrEqual(1);
          await h.emulator.close();
        },
      ),
      { numRuns: 40, seed: 20261005 },
    );
  });

  it("E5 property: random statuses, content types, bodies and headers never yield an untyped throw", async () => {
    const status = fc.oneof(
      fc.integer({ min: 200, max: 599 }),
      fc.constantFrom(200, 201, 202, 204, 400, 404, 405, 409, 422, 429, 500, 502, 503),
    );
    const contentType = fc.constantFrom(
      undefined,
      "application/json",
      "application/json; charset=utf-8",
      "text/html",
      "text/plain",
      "application/problem+json",
      "APPLICATION/JSON",
      "application/octet-stream",
    );
    const body = fc.oneof(
      fc.constant(""),
      fc.string(),
      fc.json(),
      fc.json().map((j) => j.slice(0, Math.floor(j.length / 2))),
      fc.constantFrom(
        '{"error":{"code":"conflict","message":"x","details":[],"request_id":null}}',
        '{"error":{"code":"rate_limit_exceeded","message":"x","details":{"retry_after":"soon"},"request_id":"r"}}',
        '{"error":{"code":"brand_new_code","message":"x","details":{"a":1},"request_id":"r"}}',
        '{"error":null}',
        '{"data":null}',
        '{"data":{"uuid":42,"status":null}}',
        '{"message":"The POST method is not supported"}',
        "<html><body>502</body></html>",
        "\u0000\uFFFF\uD800",
      ),
    );
    const headerValue = fc.oneof(
      fc.constant(undefined),
      fc.constantFrom("0", "-1", "1.5", "abc", "Wed, 21 Oct 2015 07:28:00 GMT", "99999999999", "true", "TRUE"),
    );
    const response = fc.record({
      status,
      contentType,
      body,
      retryAfter: headerValue,
      limit: headerValue,
      replayed: headerValue,
    });
    const op = fc.constantFrom("context.get", "domains.renew", "webhooks.delete", "orders.create", "domains.list");

    await fc.assert(
      fc.asyncProperty(fc.array(response, { minLength: 1, maxLength: 4 }), op, async (responses, operationId) => {
        const h = setup({ environment: "live" });
        let i = 0;
        const client = h.makeClient({
          retry: { maxAttempts: 2, maxRateLimitRetries: 1 },
          random: seeded(3),
          fetch: async () => {
            const r = responses[Math.min(i++, responses.length - 1)];
            const headers = new Headers();
            if (r.contentType) headers.set("content-type", r.contentType);
            if (r.retryAfter) headers.set("retry-after", r.retryAfter);
            if (r.limit) headers.set("x-ratelimit-limit", r.limit);
            if (r.replayed) headers.set("idempotency-replayed", r.replayed);
            const nullBody = r.status === 204 || r.status === 205 || r.status === 304;
            return new Response(nullBody ? null : r.body, { status: r.status, headers });
          },
        });
        const calls: Record<string, () => Promise<unknown>> = {
          "context.get": () => client.context.get(),
          "domains.renew": () => client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } }),
          "webhooks.delete": () => client.webhooks.delete({ webhookUuid: h.domainUuid }),
          "orders.create": () =>
            client.orders.create({ body: { external_id: "fz-1", action: "register", domain: "fz.kz", period: 1 } }),
          "domains.list": async () => {
            const items = [];
            try {
              for await (const d of client.domains.list()) items.push(d);
            } catch (e) {
              if (!(e instanceof ResellerClientError)) throw e;
            }
            return client.domains.list();
          },
        };
        let out: unknown;
        try {
          out = await calls[operationId]();
        } catch (e) {
          expect(e).toBeInstanceOf(ResellerClientError);
          return;
        }
        expect(KINDS).toContain((out as { kind: string }).kind);
      }),
      { numRuns: 150, seed: 42 },
    );
  });

  it("E5/I4/F1/G4/H1 property: a hostile network through reconcile, resend, polling, pages and recover() → settles, typed, ≤ 1 execution, snippet ≤ 2 KiB", async () => {
    const hits: PathHits = {};
    let recoveredRuns = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArbitrary, { minLength: 1, maxLength: 10 }),
        fc.constantFrom(...HOSTILE_OPERATIONS),
        async (steps, operationId) => {
          // 5 s of REAL time per run: the VirtualClock makes every virtual wait instant, so more is a hang.
          const { settled, outcomes, waits, executions, paths, recovered } = await hostileRun(
            steps,
            operationId,
            5_000,
          );
          addHits(hits, paths);
          if (recovered > 0 && (paths.recover?.hostile ?? 0) > 0) recoveredRuns += 1;
          expect(settled.hang).toBeUndefined();
          if (settled.error !== undefined) {
            // Only the typed error family may escape (e.g. I6 DomainLockedError), never a TypeError.
            const what = settled.error instanceof Error ? settled.error.stack : JSON.stringify(settled.error);
            expect(isResellerClientError(settled.error), what).toBe(true);
          }
          for (const out of outcomes) {
            expect(OUTCOME_KINDS).toContain(out.kind);
            expect(snippetBytes(out)).toBeLessThanOrEqual(2048);
          }
          for (const w of waits) expect(["completed", "failed", "timeout", "rejected"]).toContain(w.kind);
          expect(executions).toBeLessThanOrEqual(1);
        },
      ),
      {
        numRuns: 150,
        seed: 20261201,
        // Regression (seed 20261201, path 70:1:1:1:1:1:1:1:1:1:2:3:3:3:3:3:3:3:3): a 3xx on POST /orders,
        // then a 204 on the lookup by external_id — the TypeError "reading 'data'" of the issue.
        examples: [
          [
            [
              { mode: "respond", forward: false, status: 301, body: { kind: "text", text: "null" }, headers: {} },
              { mode: "respond", forward: false, status: 204, body: { kind: "deep", depth: 1000 }, headers: {} },
              { mode: "hang", forward: false },
            ],
            "orders.create",
          ],
        ],
      },
    );
    // The property reaches every path under hostile answers, not only with the emulator's own: the
    // order lookup and the resend after an unknown write, operations.wait polls, and recover() over
    // commands the call left journalled (its lookups and resends got spoiled answers too).
    for (const path of ["write", "reconcile", "resend", "poll", "page", "context", "recover"] as const) {
      expect(hits[path]?.hostile ?? 0, `${path}: ${JSON.stringify(hits)}`).toBeGreaterThan(0);
    }
    expect(recoveredRuns).toBeGreaterThan(0);
  });
});
