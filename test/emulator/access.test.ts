// A7 (seed 000): API mode, tariff and an API disabled for the reseller — produced by the emulator's
// control API (in process and over /_emulator), and handled by the client as a typed `rejected`
// outcome with nothing retried.
import { describe, expect, it } from "vitest";
import { requestsTo, setup as clientSetup } from "../client/harness";
import { call, CONTROL, firstDomain, json, setup } from "./helpers";

const countedFor = (s: ReturnType<typeof setup>) => s.emu.control.counters()[s.test.public_key_id].count;

describe("A7: API mode", () => {
  it("A7: a read_only key gets 403 forbidden on every write, even POST /domains/check; GET passes; not counted (C6)", async () => {
    const s = setup();
    s.emu.control.updateKey(s.test.public_key_id, { api_mode: "read_only" });
    const uuid = await firstDomain(s.emu, s.test.token);
    const before = countedFor(s);
    for (const [path, body] of [
      ["/domains/check", { names: ["new-name.kz"] }],
      [`/domains/${uuid}/renew`, { period: 1 }],
    ] as const) {
      const res = await call(s.emu, s.test.token, path, { body });
      expect(res.status, path).toBe(403);
      const err = (await json(res)).error;
      expect(err.code).toBe("forbidden");
      expect(err.message).toMatch(/API mode/);
      expect(res.headers.get("x-ratelimit-remaining")).toBeNull();
    }
    expect(countedFor(s)).toBe(before);
    expect((await call(s.emu, s.test.token, `/domains/${uuid}`)).status).toBe(200);
    expect(s.emu.control.effects()).toEqual([]);
    expect(s.emu.control.keys().find((k) => k.public_key_id === s.test.public_key_id)?.api_mode).toBe("read_only");
  });
});

describe("A7: tariff", () => {
  it("A7: a tariff without domains.renew → 403 on renew only; other writes pass", async () => {
    const s = setup();
    s.emu.control.updateKey(s.test.public_key_id, {
      tariff: { name: "basic", excluded_operations: ["domains.renew"] },
    });
    const uuid = await firstDomain(s.emu, s.test.token);
    const renew = await call(s.emu, s.test.token, `/domains/${uuid}/renew`, { body: { period: 1 } });
    expect(renew.status).toBe(403);
    expect((await json(renew)).error).toMatchObject({ code: "forbidden", message: /tariff/ });
    expect((await call(s.emu, s.test.token, `/domains/${uuid}/sync`, { body: {} })).status).toBe(202);
    expect(() =>
      s.emu.control.updateKey(s.test.public_key_id, { tariff: { name: "x", excluded_operations: ["nope.nope"] } }),
    ).toThrow(/unknown nope\.nope/);
  });
});

describe("A7: API disabled for the reseller", () => {
  it("A7: every route answers 404 resource_not_found, GET and POST alike, revealing nothing; re-enabling restores it", async () => {
    const s = setup();
    const uuid = await firstDomain(s.emu, s.test.token);
    s.emu.control.setResellerApi(s.test.reseller_uuid, { enabled: false });
    for (const [path, body] of [
      ["/context", undefined],
      ["/domains", undefined],
      [`/domains/${uuid}`, undefined],
      ["/domains/check", { names: ["a.kz"] }],
      ["/orders", { external_id: "x-1", action: "register", domain: "new.kz", period: 1 }],
    ] as const) {
      const res = await call(s.emu, s.test.token, path, { body });
      expect(res.status, path).toBe(404);
      expect((await json(res)).error.code, path).toBe("resource_not_found");
    }
    // Both environments of the reseller; a bad token is still 401 (authentication first).
    expect((await call(s.emu, s.live.token, "/context")).status).toBe(404);
    expect((await call(s.emu, "rsl_test_x.y", "/context")).status).toBe(401);
    s.emu.control.setResellerApi(s.test.reseller_uuid, { enabled: true });
    expect((await call(s.emu, s.test.token, "/context")).status).toBe(200);
  });

  it("A7: the control API over HTTP sets mode, tariff and the API switch", async () => {
    const s = setup();
    const post = (path: string, body: unknown, method = "POST") =>
      s.emu.fetch(
        new Request(CONTROL + path, {
          method,
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
      );
    expect((await post(`/keys/${s.test.public_key_id}`, { api_mode: "read_only" }, "PATCH")).status).toBe(200);
    expect((await call(s.emu, s.test.token, "/domains/check", { body: { names: ["a.kz"] } })).status).toBe(403);
    expect((await post(`/keys/${s.test.public_key_id}`, { api_mode: "full", tariff: null }, "PATCH")).status).toBe(200);
    expect((await post(`/resellers/${s.test.reseller_uuid}/api`, { enabled: false })).status).toBe(204);
    expect((await call(s.emu, s.test.token, "/context")).status).toBe(404);
    expect((await post(`/resellers/${s.test.reseller_uuid}/api`, { enabled: "no" })).status).toBe(422);
  });
});

describe("A7: the client's handling (typed rejected, the right guidance, nothing retried)", () => {
  it("A7: mode 403 and tariff 403 → rejected, status 403, code forbidden, the server's message, one attempt", async () => {
    const h = clientSetup();
    h.emulator.control.updateKey(h.publicKeyId, { api_mode: "read_only" });
    const mode = await h.client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
    h.emulator.control.updateKey(h.publicKeyId, {
      api_mode: "full",
      tariff: { name: "basic", excluded_operations: ["domains.renew"] },
    });
    const tariff = await h.client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
    for (const [outcome, words] of [
      [mode, /API mode/],
      [tariff, /tariff/],
    ] as const) {
      expect(outcome.kind).toBe("rejected");
      if (outcome.kind !== "rejected" || outcome.status !== 403) throw new Error("expected a rejected 403");
      // Narrowed by status (E4): a 403's error is `forbidden` (or a newer server's unknown code).
      expect(outcome.error?.code).toBe("forbidden");
      expect(outcome.error?.message).toMatch(words);
      expect(outcome.attempts).toHaveLength(1);
    }
    expect(requestsTo(h.captured, "POST", /\/renew$/)).toHaveLength(2);
    expect(h.emulator.control.effects()).toEqual([]);
  });

  it("A7: API disabled → rejected 404 resource_not_found on reads and writes, one attempt each", async () => {
    const h = clientSetup();
    const reseller = h.emulator.control.keys()[0].reseller_uuid;
    h.emulator.control.setResellerApi(reseller, { enabled: false });
    const read = await h.client.domains.get({ domainUuid: h.domainUuid });
    const write = await h.client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
    for (const outcome of [read, write]) {
      if (outcome.kind !== "rejected" || outcome.status !== 404)
        throw new Error(`expected rejected 404: ${outcome.kind}`);
      expect(outcome.error?.code).toBe("resource_not_found");
      expect(outcome.attempts).toHaveLength(1);
    }
    expect(h.captured.filter((c) => !c.url.endsWith("/context"))).toHaveLength(2);
    expect(h.emulator.control.effects()).toEqual([]);
  });
});
