// Issue 27: the emulator's costs are per request and per page — bulk seeding, the name filter that
// turns names into UUIDs without listing the account, cursors found without scanning. Behaviour
// only here; the speed ratios live in bench/emulator-scale.ts.
import { describe, expect, it } from "vitest";
import { seedDomains } from "../../emulator/index";
import { call, CONTROL, json, setup } from "./helpers";

describe("bulk seeding (control seedDomains, POST /_emulator/domains/bulk)", () => {
  it("creates count domains bulk-1.kz … for the key's reseller and environment, listable in seq order", async () => {
    const s = setup();
    const seeded = seedDomains(s.emu, { token: s.test.token, count: 250 });
    expect(seeded.created).toBe(250);
    expect(seeded.names[0]).toBe("bulk-1.kz");
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await json(
        await call(
          s.emu,
          s.test.token,
          `/domains?per_page=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        ),
      );
      seen.push(...page.data.map((d: { name: string }) => d.name));
      cursor = page.meta.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(253); // 3 default domains + 250
    expect(seen.slice(3)).toEqual(seeded.names);
    // A8: the live key of the same reseller sees none of them.
    expect((await json(await call(s.emu, s.live.token, "/domains?per_page=100"))).data).toHaveLength(3);
  });

  it("rejects a duplicate (409) or a bad name (422) before creating anything; works over HTTP", async () => {
    const s = setup();
    expect(() => s.emu.control.seedDomains({ token: s.test.token, names: ["fresh.kz", "example.kz"] })).toThrow(
      /already registered/,
    );
    expect(() => s.emu.control.seedDomains({ token: s.test.token, names: ["fresh.kz", "not a name"] })).toThrow(
      /not a domain name/,
    );
    expect((await json(await call(s.emu, s.test.token, "/domains?name=fresh.kz"))).data).toEqual([]);
    const res = await s.emu.fetch(
      new Request(`${CONTROL}/domains/bulk`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token: s.test.token, count: 3, prefix: "h-", zone: ".com.kz" }),
      }),
    );
    expect(res.status).toBe(201);
    expect((await json(res)).data).toEqual({ created: 3, first: "h-1.com.kz", last: "h-3.com.kz" });
  });
});

describe("domains.list ?name= (name → UUID without listing the account)", () => {
  it("H1/A8: returns only the caller's domains with those names, case-insensitive, repeatable", async () => {
    const s = setup();
    seedDomains(s.emu, { token: s.test.token, count: 1000 });
    const res = await call(
      s.emu,
      s.test.token,
      "/domains?name=BULK-7.kz&name=bulk-999.kz&name=missing.kz&name=bulk-7.kz",
    );
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.data.map((d: { name: string }) => d.name)).toEqual(["bulk-7.kz", "bulk-999.kz"]);
    expect(body.meta.next_cursor).toBeNull();
    expect(body.links.first).toContain("name=");
    // Another environment's key of the same reseller: the name is not its domain (A8).
    expect((await json(await call(s.emu, s.live.token, "/domains?name=bulk-7.kz"))).data).toEqual([]);
    // Pagination still applies.
    const paged = await json(await call(s.emu, s.test.token, "/domains?per_page=1&name=bulk-1.kz&name=bulk-2.kz"));
    expect(paged.data).toHaveLength(1);
    expect(paged.meta.next_cursor).not.toBeNull();
  });

  it("H1: more than 100 names → 422 details.name", async () => {
    const s = setup();
    const query = Array.from({ length: 101 }, (_, i) => `name=n${i}.kz`).join("&");
    const res = await call(s.emu, s.test.token, `/domains?${query}`);
    expect(res.status).toBe(422);
    expect(Object.keys((await json(res)).error.details)).toEqual(["name"]);
  });
});

describe("indexes stay consistent with what the API shows", () => {
  it("F5: orders by external_id and operations by domain_uuid find exactly their items", async () => {
    const s = setup();
    const [a, b] = (await json(await call(s.emu, s.test.token, "/domains?per_page=2"))).data;
    await call(s.emu, s.test.token, `/domains/${a.uuid}/sync`, { body: {} });
    await call(s.emu, s.test.token, `/domains/${b.uuid}/sync`, { body: {} });
    await call(s.emu, s.test.token, `/domains/${a.uuid}/renew`, { body: { period: 1 } });
    const ops = (await json(await call(s.emu, s.test.token, `/operations?domain_uuid=${a.uuid}`))).data;
    expect(ops.map((o: { action: string }) => o.action)).toEqual(["sync", "renew"]);
    expect((await json(await call(s.emu, s.live.token, `/operations?domain_uuid=${a.uuid}`))).data).toEqual([]);
    const order = { action: "register", domain: "brand-new.kz", period: 1 };
    await call(s.emu, s.test.token, "/orders", { body: { ...order, external_id: "crm-1" } });
    await call(s.emu, s.test.token, "/orders", { body: { ...order, domain: "other.kz", external_id: "crm-2" } });
    const found = (await json(await call(s.emu, s.test.token, "/orders?external_id=crm-2"))).data;
    expect(found.map((o: { domain: string }) => o.domain)).toEqual(["other.kz"]);
    expect((await json(await call(s.emu, s.live.token, "/orders?external_id=crm-2"))).data).toEqual([]);
    // The order completes: the domain appears, and check/name lookups see it through the name index.
    s.clock.advance(10_000);
    const check = (await json(await call(s.emu, s.test.token, "/domains/check", { body: { names: ["brand-new.kz"] } })))
      .data[0];
    expect(check.available).toBe(false);
    expect((await json(await call(s.emu, s.test.token, "/domains?name=brand-new.kz"))).data).toHaveLength(1);
  });
});
