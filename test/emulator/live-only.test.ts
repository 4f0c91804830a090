// B1–B3: support and finance are live-only.
import { describe, expect, it } from "vitest";
import { call, json, OTHER_UUID, setup } from "./helpers";

const B1_MESSAGE = "Support is available only to live credentials.";

describe("B: live-only resources", () => {
  it("B1: with a test key and the right scope all four ticket handlers answer 403 with the exact body", async () => {
    const { emu, test } = setup();
    const k = emu.control.createKey({ environment: "test", scopes: ["tickets.read", "tickets.write"] });
    const responses = [
      await call(emu, k.token, "/tickets"),
      await call(emu, k.token, `/tickets/${OTHER_UUID}`),
      await call(emu, k.token, "/tickets", { body: { subject: "Help", message: "Please" } }),
      await call(emu, k.token, `/tickets/${OTHER_UUID}/messages`, { body: { message: "More" } }),
      await call(emu, test.token, "/tickets", { headers: { "x-language": "ru" } }), // not translated
    ];
    for (const res of responses) {
      expect(res.status).toBe(403);
      const body = await json(res);
      expect(body).toEqual({
        error: { code: "forbidden", message: B1_MESSAGE, details: [], request_id: res.headers.get("x-request-id") },
      });
      expect(Object.keys(body.error)).toEqual(["code", "message", "details", "request_id"]);
    }
    expect(emu.control.effects()).toEqual([]);
  });

  it("B1: live keys use tickets normally (create, list, get with messages, add message)", async () => {
    const { emu, live } = setup();
    const created = await call(emu, live.token, "/tickets", {
      body: { subject: "Renewal stuck", message: "Operation uuid …" },
    });
    expect(created.status).toBe(201);
    const ticket = (await json(created)).data;
    expect(ticket).toMatchObject({ subject: "Renewal stuck", status: "open" });
    const msg = await call(emu, live.token, `/tickets/${ticket.uuid}/messages`, { body: { message: "Any news?" } });
    expect(msg.status).toBe(201);
    expect((await json(msg)).data).toMatchObject({ author: "reseller", body: "Any news?" });
    const got = (await json(await call(emu, live.token, `/tickets/${ticket.uuid}`))).data;
    expect(got.messages).toHaveLength(2);
    const list = await json(await call(emu, live.token, "/tickets"));
    expect(list.data.map((t: { uuid: string }) => t.uuid)).toEqual([ticket.uuid]);
    expect(emu.control.effects().map((e) => e.kind)).toEqual(["ticket.create", "ticket.message"]);
  });

  it("B2: for ticket writes the live-only check runs before an old replay is returned", async () => {
    // A live key's replay can't be reached with a test key; what B2 pins is the order: a test key
    // with a previously used Idempotency-Key and identical bytes still gets the B1 403, never a replay or 409.
    const { emu } = setup();
    const k = emu.control.createKey({ environment: "test", scopes: ["tickets.write"] });
    const first = await call(emu, k.token, "/tickets", { body: { subject: "s", message: "m" }, key: "same" });
    const second = await call(emu, k.token, "/tickets", { body: { subject: "s", message: "m" }, key: "same" });
    const changed = await call(emu, k.token, "/tickets", { body: { subject: "other", message: "m" }, key: "same" });
    for (const res of [first, second, changed]) {
      expect(res.status).toBe(403);
      expect(res.headers.get("idempotency-replayed")).toBeNull();
      expect((await json(res)).error.message).toBe(B1_MESSAGE);
    }
  });

  it("B2: a restricted reseller or a revoked key gets no replay of a stored live ticket write", async () => {
    const { emu, live } = setup();
    const first = await call(emu, live.token, "/tickets", { body: { subject: "s", message: "m" }, key: "t-1" });
    expect(first.status).toBe(201);
    emu.control.setResellerStatus(live.reseller_uuid, "restricted");
    const again = await call(emu, live.token, "/tickets", { body: { subject: "s", message: "m" }, key: "t-1" });
    expect(again.status).toBe(403);
    expect(again.headers.get("idempotency-replayed")).toBeNull();
  });

  it("B3: /balance and /ledger answer 403 to a test key with finance.read; live keys see them", async () => {
    const { emu, test, live } = setup();
    for (const path of ["/balance", "/ledger"]) {
      const res = await call(emu, test.token, path);
      expect(res.status).toBe(403);
      expect((await json(res)).error.code).toBe("forbidden");
      expect(res.headers.get("x-ratelimit-limit")).toBe("120"); // passed the limiter: counted
      expect((await call(emu, live.token, path)).status).toBe(200);
    }
    const balance = (await json(await call(emu, live.token, "/balance"))).data;
    expect(balance.available).toEqual({ amount: "1000000.00", currency: "KZT" });
  });
});
