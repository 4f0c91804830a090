// A1, A3, A9, B1–B4, D2, D4, H1: a call the server would refuse for a reason we can see locally
// throws a typed error and sends NOTHING (the capturing fetch stays empty).
import { describe, expect, it } from "vitest";
import {
  createResellerClient,
  InsecureTransportError,
  InvalidArgumentError,
  InvalidOptionsError,
  InvalidTokenError,
  LiveOnlyError,
  ResellerClientError,
} from "../../src/index";
import { BASE_URL, setup } from "./harness";

const GOOD_TEST_TOKEN = `rsl_test_${"A".repeat(24)}.${"b".repeat(64)}`;

describe("client: local validation", () => {
  it("A3: a malformed token throws InvalidTokenError whose message never contains the token", () => {
    const bad = [
      "",
      "rsl_prod_" + "A".repeat(24) + "." + "b".repeat(64),
      "rsl_test_" + "A".repeat(23) + "." + "b".repeat(64),
      "rsl_test_" + "A".repeat(24) + "." + "b".repeat(63),
      "rsl_test_" + "A".repeat(24) + "." + "b".repeat(63) + "+",
      "dashboard_0123456789abcdef0123456789abcdef",
      "rsl_live_" + "A".repeat(24) + "." + "b".repeat(64) + "\n",
    ];
    for (const token of bad) {
      let thrown: unknown;
      try {
        createResellerClient({ baseUrl: BASE_URL, token, fetch: async () => new Response() });
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(InvalidTokenError);
      expect(thrown).toBeInstanceOf(ResellerClientError);
      if (token.length > 0) {
        expect((thrown as Error).message).not.toContain(token.trim());
        expect((thrown as Error).message).not.toContain("b".repeat(40));
        expect(JSON.stringify(thrown)).not.toContain("b".repeat(40));
      }
    }
  });

  it("A1/A4: http:// to a non-loopback host throws InsecureTransportError unless explicitly allowed", () => {
    const make = (baseUrl: string, allowInsecureHttp?: boolean) =>
      createResellerClient({ baseUrl, token: GOOD_TEST_TOKEN, fetch: async () => new Response(), allowInsecureHttp });
    expect(() => make("http://api.example/api/reseller/v1")).toThrow(InsecureTransportError);
    expect(() => make("http://api.example/api/reseller/v1")).toThrow(expect.objectContaining({ option: "baseUrl" }));
    expect(() => make("ftp://127.0.0.1/api/reseller/v1")).toThrow(InsecureTransportError);
    expect(() => make("https://api.example/api/reseller/v1")).not.toThrow();
    expect(() => make("http://127.0.0.1:8080/api/reseller/v1")).not.toThrow();
    expect(() => make("http://localhost/api/reseller/v1")).not.toThrow();
    expect(() => make("http://[::1]/api/reseller/v1")).not.toThrow();
    expect(() => make("http://emulator.test/api/reseller/v1", true)).not.toThrow();
  });

  it("invalid options throw InvalidOptionsError", () => {
    const base = { baseUrl: BASE_URL, token: GOOD_TEST_TOKEN };
    expect(() => createResellerClient({ ...base, timeoutMs: 0 })).toThrow(InvalidOptionsError);
    expect(() => createResellerClient({ ...base, retry: { maxAttempts: 1.5 } })).toThrow(InvalidOptionsError);
    expect(() => createResellerClient({ ...base, pacing: { maxConcurrency: -1 } })).toThrow(InvalidOptionsError);
    expect(() => createResellerClient({ ...base, fetch: "nope" as never })).toThrow(InvalidOptionsError);
    expect(() => createResellerClient({ ...base, language: "de" })).toThrow(InvalidOptionsError);
  });

  it("A9: a malformed UUID path parameter throws InvalidArgumentError and nothing is sent", async () => {
    const h = setup();
    for (const bad of ["not-a-uuid", "", h.domainUuid + "x", "../context", h.domainUuid.replace(/-/g, "")]) {
      await expect(h.client.domains.renew({ domainUuid: bad, body: { period: 1 } })).rejects.toBeInstanceOf(
        InvalidArgumentError,
      );
    }
    // orders.get answers 500 instead of 422 to a malformed UUID: the error says so.
    const err = await h.client.orders.get({ orderUuid: "42" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).serverWouldAnswer).toBe(500);
    expect(h.captured).toHaveLength(0);
  });

  it("H1: per_page outside 1..100 throws InvalidArgumentError and nothing is sent", async () => {
    const h = setup();
    for (const per_page of [0, 101, 2.5, -1]) {
      await expect(Promise.resolve(h.client.domains.list({ query: { per_page } }))).rejects.toBeInstanceOf(
        InvalidArgumentError,
      );
    }
    expect(h.captured).toHaveLength(0);
    const ok = await h.client.domains.list({ query: { per_page: 100 } });
    expect(ok.kind).toBe("succeeded");
  });

  it("D2: an Idempotency-Key empty after trimming or longer than 160 characters throws; nothing is sent", async () => {
    const h = setup();
    for (const idempotencyKey of ["", "   ", "k".repeat(161), ` ${"k".repeat(161)} `]) {
      await expect(
        h.client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } }, { idempotencyKey }),
      ).rejects.toBeInstanceOf(InvalidArgumentError);
    }
    expect(h.captured).toHaveLength(0);
    // 160 after trimming is fine, and the trimmed value is what is sent.
    const key = "k".repeat(160);
    const out = await h.client.domains.renew(
      { domainUuid: h.domainUuid, body: { period: 1 } },
      {
        idempotencyKey: `  ${key}  `,
      },
    );
    expect(out.kind).toBe("accepted");
    expect(out.idempotencyKey).toBe(key);
    expect(h.captured[0].headers["idempotency-key"]).toBe(key);
  });

  it("D1: a GET takes no Idempotency-Key — its options type has none, and a JavaScript caller's is refused", async () => {
    const h = setup();
    // @ts-expect-error — ReadCallOptions has no idempotencyKey (D1)
    const refused = h.client.context.get(undefined, { idempotencyKey: "abc" });
    await expect(refused).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(h.captured).toHaveLength(0);
  });

  it("B1–B3: live-only operations with a test key throw LiveOnlyError and nothing is sent", async () => {
    const h = setup();
    const calls: (() => Promise<unknown>)[] = [
      () => Promise.resolve(h.client.tickets.list()),
      () => h.client.tickets.get({ ticketUuid: h.domainUuid }),
      () => h.client.tickets.create({ body: { subject: "s", message: "m" } }),
      () => h.client.tickets.addMessage({ ticketUuid: h.domainUuid, body: { message: "m" } }),
      () => h.client.balance.get(),
      () => Promise.resolve(h.client.ledger.list()),
    ];
    for (const call of calls) await expect(call()).rejects.toBeInstanceOf(LiveOnlyError);
    expect(h.captured).toHaveLength(0);
  });

  it("B4: the explicit override sends it, and the server's 403 comes back as a rejected outcome", async () => {
    const h = setup({ client: { allowLiveOnlyWithTestKey: true } });
    const out = await h.client.tickets.list();
    expect(out.kind).toBe("rejected");
    if (out.kind !== "rejected") return;
    expect(out.status).toBe(403);
    expect(out.error?.code).toBe("forbidden");
    expect(out.attempts).toHaveLength(1); // G5: no automatic retry after 403
  });

  it("D4: a body on an operation without a requestBody throws instead of sending it", async () => {
    const h = setup();
    await expect(h.client.domains.sync({ domainUuid: h.domainUuid, body: {} } as never)).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
    expect(h.captured).toHaveLength(0);
  });
});
