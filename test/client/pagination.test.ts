// H1: cursor pagination helpers — awaitable first page, async iteration over every item, cursors
// passed back unchanged (URL-encoded), the end at next_cursor: null, a typed error on a failed page.
import { describe, expect, it } from "vitest";
import { PaginationError } from "../../src/index";
import { requestsTo, setup } from "./harness";

function withDomains(count: number) {
  const h = setup({ client: { retry: { maxAttempts: 1 } } });
  for (let i = 1; i < count; i++)
    h.emulator.control.createDomain({ token: h.token, name: `name-${String(i).padStart(3, "0")}.kz` });
  return h;
}

describe("client: pagination", () => {
  it("H1: for await iterates all 60 domains across pages of 25, passing next_cursor back unchanged", async () => {
    const h = withDomains(60);
    const seen: string[] = [];
    for await (const domain of h.client.domains.list({ query: { per_page: 25 } }))
      seen.push((domain as { uuid: string }).uuid);
    expect(seen).toHaveLength(60);
    expect(new Set(seen).size).toBe(60);
    const gets = requestsTo(h.captured, "GET", "/domains");
    expect(gets).toHaveLength(3);
    expect(new URL(gets[0].url).searchParams.has("cursor")).toBe(false); // no cursor on the first page
    const pages = [];
    for await (const page of h.client.domains.list({ query: { per_page: 25 } }).pages()) pages.push(page);
    expect(pages.map((p) => (p.kind === "succeeded" ? (p.data as { data: unknown[] }).data.length : -1))).toEqual([
      25, 25, 10,
    ]);
    const cursors = pages.map((p) => (p.kind === "succeeded" ? p.data.meta.next_cursor : "failed"));
    expect(cursors[2]).toBeNull();
    const later = requestsTo(h.captured, "GET", "/domains").slice(4, 6);
    expect(later.map((g) => new URL(g.url).searchParams.get("cursor"))).toEqual([cursors[0], cursors[1]]);
    // URL-encoded on the wire: the raw query never contains a bare character that needs escaping.
    for (const g of later) expect(new URL(g.url).search).toMatch(/^\?[A-Za-z0-9_.~%=&-]+$/);
  });

  it("H1: awaiting a list call gives the first page's Outcome (one request)", async () => {
    const h = withDomains(30);
    const first = await h.client.domains.list({ query: { per_page: 10 } });
    expect(first.kind).toBe("succeeded");
    if (first.kind !== "succeeded") return;
    expect((first.data as { data: unknown[] }).data).toHaveLength(10);
    expect(requestsTo(h.captured, "GET", "/domains")).toHaveLength(1);
  });

  it("H1: webhook lists (meta-only) paginate the same way", async () => {
    const h = setup();
    for (let i = 0; i < 7; i++)
      await h.client.webhooks.create({ body: { url: `https://hooks.example/${i}`, events: ["domain.renewed"] } });
    const urls: string[] = [];
    for await (const w of h.client.webhooks.list({ query: { per_page: 3 } })) urls.push((w as { url: string }).url);
    expect(urls).toHaveLength(7);
    expect(requestsTo(h.captured, "GET", "/webhooks")).toHaveLength(3);
  });

  it("H1: a page that does not succeed ends the iteration with a PaginationError carrying its Outcome", async () => {
    const h = withDomains(12);
    const items: unknown[] = [];
    let error: unknown;
    try {
      for await (const d of h.client.domains.list({ query: { per_page: 5 } })) {
        items.push(d);
        if (items.length === 5)
          h.emulator.control.addFault({ method: "GET", path: "/domains", kind: "proxy_502_html" });
      }
    } catch (e) {
      error = e;
    }
    expect(items).toHaveLength(5);
    expect(error).toBeInstanceOf(PaginationError);
    expect((error as PaginationError).outcome.kind).toBe("unknown");
    expect((error as PaginationError).pageIndex).toBe(1);
  });
});
