// H1: cursor pagination — links lists vs the webhooks' meta-only shape.
import { describe, expect, it } from "vitest";
import { call, json, setup } from "./helpers";

describe("H: pagination", () => {
  it("H1: links lists — {data, links:{first,next}, meta:{next_cursor, per_page}}, default per_page 25", async () => {
    const { emu, test } = setup();
    for (let i = 0; i < 30; i++) emu.control.createDomain({ token: test.token, name: `bulk-${i}.kz` });
    const page1 = await json(await call(emu, test.token, "/domains"));
    expect(Object.keys(page1).sort()).toEqual(["data", "links", "meta"]);
    expect(page1.data).toHaveLength(25);
    expect(page1.meta.per_page).toBe(25);
    expect(page1.meta.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(page1.links.first).toBe("http://emulator.test/api/reseller/v1/domains");
    expect(page1.links.next).toContain(`cursor=${page1.meta.next_cursor}`);
    const page2 = await json(
      await call(emu, test.token, `/domains?cursor=${encodeURIComponent(page1.meta.next_cursor)}`),
    );
    expect(page2.data).toHaveLength(8);
    expect(page2.meta.next_cursor).toBeNull(); // the last page: next_cursor null, links.next null
    expect(page2.links.next).toBeNull();
    const names = [...page1.data, ...page2.data].map((d: { name: string }) => d.name);
    expect(new Set(names).size).toBe(33);
  });

  it("H1: walking a list with per_page=1 visits every item once; filters survive in links", async () => {
    const { emu, live } = setup();
    for (const id of ["a", "b", "c"])
      await call(emu, live.token, "/orders", {
        body: { external_id: id, action: "register", domain: `${id}-page.kz`, period: 1 },
      });
    await call(emu, live.token, "/orders", {
      body: { external_id: "b", action: "register", domain: "b2-page.kz", period: 1 },
    });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const qs = `/orders?per_page=1&external_id=b${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const page = await json(await call(emu, live.token, qs));
      expect(page.links.first).toContain("external_id=b");
      seen.push(...page.data.map((o: { domain: string }) => o.domain));
      cursor = page.meta.next_cursor;
    } while (cursor);
    expect(seen).toEqual(["b-page.kz", "b2-page.kz"]);
  });

  it("H1: webhook lists are meta-only — no links, no total/page/last_page", async () => {
    const { emu, test } = setup();
    for (let i = 0; i < 3; i++)
      await call(emu, test.token, "/webhooks", { body: { url: `https://h${i}.example/`, events: ["webhook.test"] } });
    const page = await json(await call(emu, test.token, "/webhooks?per_page=2"));
    expect(Object.keys(page).sort()).toEqual(["data", "meta"]);
    expect(Object.keys(page.meta).sort()).toEqual(["next_cursor", "per_page"]);
    expect(page.data).toHaveLength(2);
    expect(page.data[0]).not.toHaveProperty("signing_secret");
    const last = await json(await call(emu, test.token, `/webhooks?per_page=2&cursor=${page.meta.next_cursor}`));
    expect(last.data).toHaveLength(1);
    expect(last.meta).toEqual({ next_cursor: null, per_page: 2 });
  });

  it("H1: per_page outside 1..100 or not an integer → 422 {per_page}; a forged cursor → 422 {cursor}", async () => {
    const { emu, test, live } = setup();
    for (const v of ["0", "101", "abc", "2.5"]) {
      const res = await call(emu, test.token, `/domains?per_page=${v}`);
      expect(res.status).toBe(422);
      expect(Object.keys((await json(res)).error.details)).toEqual(["per_page"]);
    }
    expect((await call(emu, test.token, "/domains?per_page=100")).status).toBe(200);
    expect((await call(emu, test.token, "/domains?per_page=1")).status).toBe(200);
    for (const path of ["/domains?cursor=%%%", "/webhooks?cursor=bm90LWpzb24", "/ledger?cursor=eyJ2IjoyfQ"]) {
      const res = await call(emu, path.startsWith("/ledger") ? live.token : test.token, path);
      expect(res.status, path).toBe(422);
      expect(Object.keys((await json(res)).error.details)).toEqual(["cursor"]);
    }
  });
});
