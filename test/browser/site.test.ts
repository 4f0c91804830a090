// The documentation site in Debian's Chromium, served from its built folder by a plain static server on
// loopback: every page clean, every internal link and anchor resolving, the HTTP reference complete,
// the language switch, offline search, and a phone-width layout. Screenshots go to test/browser/screenshots/.
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operationList } from "../../generated/operations";
import {
  decorateSpec,
  HTTP_REFERENCE_FILE,
  HTTP_REFERENCE_FILE_RU,
  readSpec,
} from "../../docs/.vitepress/http-reference";
import { methodDocs } from "../../docs/.vitepress/sdk-methods";
import { launchChromium, type Browser } from "./chromium";
import { anchorTextOf, crawl, idsOf, type Crawl } from "./crawl";
import { ensureSite } from "./site";
import { serveStatic, type StaticServer } from "./static-server";

const SCREENSHOTS = join(import.meta.dirname, "screenshots");
const REFERENCE = `/${HTTP_REFERENCE_FILE}`;
const REFERENCE_RU = `/${HTTP_REFERENCE_FILE_RU}`;
const operationIds = decorateSpec(readSpec()).operationIds;

/** Tabs the crawl loads at once: pages wait on the loopback server and on each other's CPU by turns. */
const CRAWL_CONCURRENCY = 4;
/** The width of a desktop reader's window: the crawl loads every page at it and measures inner scroll there. */
const DESKTOP = { width: 1440, height: 900 };

let siteDir: string;
let server: StaticServer;
let browser: Browser;
let site: Crawl;

beforeAll(async () => {
  const started = performance.now();
  const built = ensureSite();
  siteDir = built.dir;
  const ready = performance.now();
  server = await serveStatic(siteDir);
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
  site = await crawl(
    browser.context,
    server.origin,
    ["/index.html", "/ru/index.html", REFERENCE, REFERENCE_RU],
    // The Russian copies of the per-type SDK pages are the English pages byte for byte (their links are
    // still checked against the built files); loading them again would double the crawl.
    (p) => p === REFERENCE || p === REFERENCE_RU || p.startsWith("/ru/sdk/reseller-api/"),
    { concurrency: CRAWL_CONCURRENCY, viewport: DESKTOP },
  );
  const seconds = (from: number, to = performance.now()) => ((to - from) / 1000).toFixed(1);
  console.log(
    `docs site: ${built.built ? `built in ${seconds(started, ready)} s (its inputs changed)` : "the current build reused (inputs hash matches)"}; ` +
      `${site.pages.length} pages crawled in ${seconds(ready)} s, ${CRAWL_CONCURRENCY} at a time`,
  );
}, 1_800_000); // a stale site is rebuilt first (minutes on a busy two-core machine)

afterAll(async () => {
  if (site) {
    const distinct = new Set(site.links.map((l) => `${l.path}#${l.hash}`));
    console.log(
      `docs site: ${site.pages.length} pages loaded, ${site.links.length} internal links (${distinct.size} distinct) checked`,
    );
  }
  await browser?.close();
  await server?.close();
});

async function open(path: string, width = 1280): Promise<Page> {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width, height: 800 });
  await page.goto(server.origin + path, { waitUntil: "load" });
  return page;
}

/** The Redoc page, rendered: it builds its DOM from the inlined spec after load. */
async function openReference(hash = ""): Promise<Page> {
  const page = await open(`${REFERENCE}${hash}`);
  await page.waitForSelector('[id^="operation/"]', { timeout: 30_000 });
  return page;
}

describe("docs site (Chromium)", () => {
  it("every page loads with no console error, no failed request and nothing off-site", () => {
    expect(site.pages.length).toBeGreaterThan(20);
    expect(site.pages.filter((p) => p.path.startsWith("/ru/")).length).toBeGreaterThan(10);
    const broken = site.pages.filter((p) => p.problems.length > 0);
    expect(broken, JSON.stringify(broken, null, 2)).toEqual([]);
    const missing = [...site.requested].filter(
      (p) => !existsSync(join(siteDir, p.endsWith("/") ? `${p}index.html` : p)),
    );
    expect(missing).toEqual([]);
  });

  it("every internal link resolves to a built file, and every anchor to an id on that page", () => {
    const bad: string[] = [];
    const distinct = new Map(site.links.map((l) => [`${l.path}#${l.hash}`, l]));
    for (const link of distinct.values()) {
      const file = join(siteDir, link.path.endsWith("/") ? `${link.path}index.html` : link.path);
      if (!existsSync(file)) bad.push(`${link.from} → ${link.path}: no such file`);
      else if (
        link.hash &&
        link.path !== REFERENCE &&
        link.path !== REFERENCE_RU &&
        !idsOf(siteDir, link.path).has(link.hash)
      ) {
        bad.push(`${link.from} → ${link.path}#${link.hash}: no such id`);
      }
    }
    expect(site.links.length).toBeGreaterThan(200);
    expect(bad).toEqual([]);
  });

  it("J1: every operationId a guide links resolves to that operation in the HTTP reference", async () => {
    const anchors = [...new Set(site.links.filter((l) => l.path === REFERENCE && l.hash).map((l) => l.hash))];
    expect(anchors).toContain("operation/domains.renew");
    const page = await openReference();
    const ids = await page.$$eval("[id]", (els) => els.map((e) => e.id));
    expect(anchors.filter((a) => !ids.includes(a))).toEqual([]);
    await page.close();
  });

  it("J3, A7: the HTTP reference lists all 27 operations of the spec and the HEAD of every GET, and loads nothing off-site", async () => {
    const page = await openReference();
    const ids = await page.$$eval('[id^="operation/"]', (els) => els.map((e) => e.id.slice("operation/".length)));
    expect(operationIds).toHaveLength(27);
    const heads = operationList.filter((o) => o.head).map((o) => `${o.operationId}Head`);
    expect(heads.length).toBeGreaterThan(0);
    expect([...ids].sort()).toEqual([...operationIds, ...heads].sort());
    const problems = site.pages.find((p) => p.path === REFERENCE)?.problems;
    expect(problems).toEqual([]);
    await page.close();
  });

  it("B1, F1, E4: domains.renew shows its vendor extensions — live-only, async, unknown-outcome policy", async () => {
    const page = await openReference("#operation/domains.renew");
    const section = page.locator('[data-section-id="tag/domains/operation/domains.renew"]');
    const text = await section.innerText();
    expect(text).toMatch(/x-live-only\s+false/);
    expect(text).toMatch(/x-async-operation\s+true/);
    expect(text).toMatch(/x-unknown-outcome\s+resend/);
    await section.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, "renew-operation.png") });
    await page.close();
  });

  /** Switches the language the way a reader at this width does: the nav bar's menu, or the hamburger menu. */
  async function switchLanguage(page: Page, to: "English" | "Русский"): Promise<void> {
    const width = page.viewportSize()!.width;
    if (width >= 1280) {
      // Wide screens show the switch in the bar itself; it must be on the screen, not pushed off it.
      const button = page.locator(".VPNavBarTranslations button");
      const box = await button.boundingBox();
      expect(box, "the language switch is in the nav bar").not.toBeNull();
      expect(box!.x + box!.width).toBeLessThanOrEqual(width);
      await button.hover();
      await page.locator(`.VPNavBarTranslations a:has-text("${to}")`).click();
    } else {
      await page.locator(".VPNavBarHamburger").click();
      await page.locator(".VPNavScreenTranslations button").click();
      await page.locator(`.VPNavScreenTranslations a:has-text("${to}")`).click();
    }
  }

  for (const width of [1280, 375]) {
    it(`the language switch keeps the reader on the same page, both ways (${width} px)`, async () => {
      const page = await open("/guides/never-buy-twice.html", width);
      const englishText = await page.evaluate(() => document.querySelector("h1")?.textContent ?? "");
      await switchLanguage(page, "Русский");
      await page.waitForURL("**/ru/guides/never-buy-twice.html");
      // The router changes the URL first and the page right after: wait for the translated content.
      await page.waitForFunction(() => document.documentElement.lang === "ru");
      await page.waitForFunction((en) => document.querySelector("h1")?.textContent !== en, englishText);
      expect(await page.evaluate(() => document.querySelector("h1")?.textContent ?? "")).not.toBe(englishText);
      await switchLanguage(page, "English");
      await page.waitForURL("**/guides/never-buy-twice.html");
      await page.waitForFunction(() => document.documentElement.lang === "en");
      expect(new URL(page.url()).pathname).toBe("/guides/never-buy-twice.html");
      await page.close();
    });
  }

  it("the nav bar fits the screen at 1280 and 1440 px in both languages", async () => {
    const over: string[] = [];
    for (const path of [
      "/guides/never-buy-twice.html",
      "/ru/guides/never-buy-twice.html",
      "/index.html",
      "/ru/index.html",
    ]) {
      for (const width of [1280, 1440]) {
        const page = await open(path, width);
        const right = await page.$$eval(".VPNavBar .content-body > *", (els) =>
          els.filter((e) => getComputedStyle(e).display !== "none").map((e) => e.getBoundingClientRect().right),
        );
        expect(right.length).toBeGreaterThan(3);
        if (Math.max(...right) > width) over.push(`${path} at ${width} px: ${Math.max(...right)} px`);
        await page.close();
      }
    }
    expect(over).toEqual([]);
  });

  for (const [lang, entry] of [
    ["en", "/guides/"],
    ["ru", "/ru/guides/"],
  ] as const) {
    it(`offline search finds "Idempotency-Key" (${lang}) and leads to a ${lang} guide`, async () => {
      const page = await open(entry);
      await page.locator(".VPNavBarSearch button").click();
      await page.locator("input.search-input").fill("Idempotency-Key");
      const results = page.locator(".result");
      await results.first().waitFor();
      const hrefs = await results.evaluateAll((els) => els.map((e) => new URL((e as HTMLAnchorElement).href).pathname));
      expect(hrefs.length).toBeGreaterThan(1);
      for (const href of hrefs) expect(href.startsWith("/ru/")).toBe(lang === "ru");
      expect(hrefs.some((h) => h.includes("/guides/never-buy-twice"))).toBe(true);
      expect(hrefs[0]).toMatch(/\/guides\//); // guides rank first, before HTTP operations and SDK pages
      await page.close();
    });
  }

  it("the layout holds at a phone width: no horizontal scroll on landing, guides and references", async () => {
    const wide: string[] = [];
    for (const path of [
      "/index.html",
      "/guides/rate-limits-and-retries.html",
      "/ru/guides/never-buy-twice.html",
      "/sdk/reseller-api/index.html",
      "/sdk/client/domains.html",
      "/cli/reseller-emulator.html",
    ]) {
      const page = await open(path, 375);
      const [scroll, client] = await page.evaluate(() => [
        document.documentElement.scrollWidth,
        document.documentElement.clientWidth,
      ]);
      if (scroll > client) wide.push(`${path}: ${scroll}px > ${client}px`);
      await page.close();
    }
    expect(wide).toEqual([]);
  });

  it("no table or code block in a page's text needs an inner scroll at 1440 px", () => {
    // Measured by the crawl on every page it loaded, at DESKTOP width, after the fonts were in.
    const measured = site.pages.filter((p) => p.blocks > 0);
    expect(DESKTOP.width).toBe(1440);
    expect(measured.length).toBeGreaterThan(50);
    expect(measured.some((p) => p.path.startsWith("/guides/"))).toBe(true);
    expect(measured.some((p) => p.path.startsWith("/sdk/reseller-api/"))).toBe(true);
    expect(measured.reduce((n, p) => n + p.blocks, 0)).toBeGreaterThan(300);
    const scrolled = measured
      .filter((p) => p.innerScroll.length > 0)
      .map((p) => `${p.path}: ${p.innerScroll.join("; ")}`);
    expect(scrolled).toEqual([]);
  });

  it("J1: every internal link with an anchor lands on a heading (or rule) whose text names the link's target", () => {
    const bad: string[] = [];
    const norm = (t: string) =>
      t
        .replace(/[\u200b`()]/g, "")
        .replace(/\s+/g, " ")
        .trim()
        .toLowerCase();
    const distinct = new Map(site.links.map((l) => [`${l.path}#${l.hash}|${l.text}`, l]));
    let checked = 0;
    for (const link of distinct.values()) {
      // "Skip to content" (#VPContent) is the theme's own jump past the nav, not a link to a heading.
      if (!link.hash || link.hash === "VPContent" || link.path === REFERENCE || link.path === REFERENCE_RU) continue;
      if (!norm(link.text)) continue;
      const target = anchorTextOf(siteDir, link.path, link.hash);
      if (target === undefined) {
        bad.push(`${link.from} → ${link.path}#${link.hash} ("${link.text}"): not a heading or a rule`);
        continue;
      }
      checked++;
      // TypeDoc names a member by its owner (`Options.synchronous`); the heading names the member (`synchronous?`).
      const [a, b] = [norm(link.text).split(".").pop()!, norm(target).replace(/\?$/, "")];
      if (!b.includes(a) && !a.includes(b))
        bad.push(`${link.from} → ${link.path}#${link.hash}: "${link.text}" lands on "${target}"`);
    }
    expect(checked).toBeGreaterThan(100);
    expect(bad).toEqual([]);
  });

  it("J1: every client.<resource>.<method> of the facade has its own anchor on the SDK pages, in both languages", async () => {
    for (const prefix of ["", "/ru"]) {
      for (const r of methodDocs()) {
        const ids = idsOf(siteDir, `${prefix}/sdk/client/${r.resource}.html`);
        const missing = r.methods.map((m) => m.anchor).filter((a) => !ids.has(a));
        expect(missing, `${prefix}/sdk/client/${r.resource}.html`).toEqual([]);
      }
    }
    const page = await open("/sdk/client/domains.html#client-domains-renew");
    const top = await page.evaluate(() => document.getElementById("client-domains-renew")!.getBoundingClientRect().top);
    const nav = await page.evaluate(() => document.querySelector(".VPNav")!.getBoundingClientRect().bottom);
    expect(top).toBeGreaterThanOrEqual(nav); // the deep link's heading is not hidden under the sticky nav
    await page.screenshot({ path: join(SCREENSHOTS, "sdk-client-domains.png") });
    await page.close();
  });

  for (const [lang, reference] of [
    ["en", REFERENCE],
    ["ru", REFERENCE_RU],
  ] as const) {
    it(`J1: every HTTP operation (${lang}) shows a curl and a TypeScript sample, with Idempotency-Key on writes`, async () => {
      const page = await open(reference);
      await page.waitForSelector('[id^="operation/"]', { timeout: 30_000 });
      const missing: string[] = [];
      for (const meta of operationList) {
        const section = page.locator(`[data-section-id$="operation/${meta.operationId}"]`).first();
        await section.scrollIntoViewIfNeeded();
        for (const [tab, needs] of [
          ["curl", ["curl -X", "Authorization: Bearer", ...(meta.idempotencyRequired ? ["Idempotency-Key:"] : [])]],
          [
            "TypeScript (SDK)",
            [`client.${meta.operationId}(`, ...(meta.idempotencyRequired ? ["idempotencyKey"] : [])],
          ],
        ] as const) {
          const tabs = section.locator('[role="tab"]', { hasText: tab });
          if ((await tabs.count()) === 0) {
            missing.push(`${meta.operationId}: no "${tab}" tab`);
            continue;
          }
          await tabs.first().click();
          const panel = await section.locator('[role="tabpanel"]:visible').first().innerText();
          for (const text of needs) if (!panel.includes(text)) missing.push(`${meta.operationId} ${tab}: no "${text}"`);
        }
        const description = await section.innerText();
        if (!description.includes(`client.${meta.operationId}()`))
          missing.push(`${meta.operationId}: no SDK method name`);
      }
      expect(missing).toEqual([]);
      if (lang === "ru") expect(await page.locator("text=Примеры запросов").count()).toBeGreaterThan(0);
      const download = await page.locator('a[download], a:has-text("openapi.yaml")').count();
      expect(download).toBeGreaterThan(0);
      await page.close();
    });
  }

  it("the HTTP reference follows the site's dark mode and offers the spec for download", async () => {
    const page = await browser.context.newPage();
    await page.goto(server.origin + "/index.html");
    await page.evaluate(() => localStorage.setItem("vitepress-theme-appearance", "dark"));
    await page.goto(server.origin + REFERENCE);
    await page.waitForSelector('[id^="operation/"]', { timeout: 30_000 });
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).not.toBe("rgb(255, 255, 255)");
    await page.screenshot({ path: join(SCREENSHOTS, "reference-dark.png") });
    await page.evaluate(() => localStorage.removeItem("vitepress-theme-appearance"));
    await page.close();
    expect(existsSync(join(siteDir, "reference/openapi.yaml"))).toBe(true);
  });

  for (const [lang, home] of [
    ["en", "/index.html"],
    ["ru", "/ru/index.html"],
  ] as const) {
    it(`J1: the contract page is reachable from the nav (${lang}), and rule IDs in the guides link to it`, async () => {
      const page = await open(home);
      const contract = page.locator(".VPNavBar a", { hasText: lang === "ru" ? "Контракт" : "Contract" }).first();
      await contract.click();
      await page.waitForURL(`**${lang === "ru" ? "/ru" : ""}/contract.html`);
      await page.waitForSelector("#d5", { state: "attached" });
      expect(await page.locator("#d5").count()).toBe(1);
      await page.close();
      const guide = await open(`${lang === "ru" ? "/ru" : ""}/guides/never-buy-twice.html`);
      const rules = await guide.$$eval("a.rule-link", (as) =>
        as.map((a) => new URL((a as HTMLAnchorElement).href).pathname),
      );
      expect(rules.length).toBeGreaterThan(5);
      for (const path of rules) expect(path).toBe(`${lang === "ru" ? "/ru" : ""}/contract.html`);
      await guide.close();
    });
  }

  it("writes screenshots of the landing page and a guide", async () => {
    const landing = await open("/index.html");
    await landing.screenshot({ path: join(SCREENSHOTS, "landing.png"), fullPage: true });
    await landing.close();
    const guide = await open("/guides/never-buy-twice.html");
    await guide.screenshot({ path: join(SCREENSHOTS, "guide-never-buy-twice.png") });
    await guide.close();
    for (const name of ["landing.png", "guide-never-buy-twice.png", "renew-operation.png"]) {
      expect(existsSync(join(SCREENSHOTS, name))).toBe(true);
    }
  });
});
