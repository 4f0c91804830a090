/**
 * Loads every page of the site reachable from the entry pages, in a real browser, and records what
 * went wrong on each (console errors, failed or non-2xx requests) and every internal link it shows.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";

interface PageReport {
  path: string;
  problems: string[];
  /** Tables and code blocks of the page's text that scroll inside themselves at the crawl's width. */
  innerScroll: string[];
  /** How many tables and code blocks of the page's text were measured. */
  blocks: number;
}

interface Link {
  from: string;
  /** Path of the target document, e.g. `/guides/never-buy-twice.html`. */
  path: string;
  /** The fragment without `#`, decoded, or "". */
  hash: string;
  /** The link's visible text, trimmed. */
  text: string;
}

export interface Crawl {
  pages: PageReport[];
  links: Link[];
  /** Every same-origin path any page requested (documents, scripts, styles, fonts, search index). */
  requested: Set<string>;
}

interface CrawlOptions {
  /** Pages loaded at once: each is its own tab, so a page's problems are its own. */
  concurrency: number;
  /** The window every page is loaded in (the inner-scroll measurement is at this width). */
  viewport: { width: number; height: number };
}

/** Pages that are standalone documents handled by their own tests (the Redoc page). */
function isDocumentPage(path: string): boolean {
  return path.endsWith(".html") || path.endsWith("/");
}

/** What a reader at this width would have to scroll sideways inside the text: wide tables and code. */
function measureBlocks(): { innerScroll: string[]; blocks: number } {
  const els = [...document.querySelectorAll(".vp-doc table, .vp-doc div[class*='language-'] pre")];
  const innerScroll = els
    .filter((e) => e.scrollWidth > e.clientWidth + 1)
    .map((e) => {
      const heading = [...document.querySelectorAll(".vp-doc :is(h1, h2, h3)")]
        .filter((h) => h.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING)
        .pop();
      return `${e.tagName.toLowerCase()} under "${heading?.textContent?.trim() ?? ""}": ${e.scrollWidth}px in ${e.clientWidth}px`;
    });
  return { innerScroll, blocks: els.length };
}

export async function crawl(
  context: BrowserContext,
  origin: string,
  entries: string[],
  skip: (path: string) => boolean,
  options: CrawlOptions,
): Promise<Crawl> {
  const queue = [...entries];
  const seen = new Set(queue);
  const pages: PageReport[] = [];
  const links: Link[] = [];
  const requested = new Set<string>();
  let active = 0;
  let waiting: (() => void)[] = [];
  const wake = () => {
    const w = waiting;
    waiting = [];
    for (const resolve of w) resolve();
  };

  async function visit(page: Page, path: string, problems: string[]): Promise<void> {
    await page.goto(origin + path, { waitUntil: "load" });
    await page.evaluate(() => document.fonts.ready.then(() => undefined));
    const anchors = await page.$$eval("a[href]", (as) =>
      as.map((a) => ({ href: (a as HTMLAnchorElement).href, text: (a.textContent ?? "").trim() })),
    );
    const measured = await page.evaluate(measureBlocks);
    pages.push({ path, problems, ...measured });
    for (const { href, text } of anchors) {
      const url = new URL(href);
      if (url.origin !== origin) continue;
      const hash = decodeURIComponent(url.hash.replace(/^#/, ""));
      links.push({ from: path, path: url.pathname, hash, text });
      // `/guides/` and `/guides/index.html` are one document: load it once.
      const doc = url.pathname.endsWith("/") ? `${url.pathname}index.html` : url.pathname;
      if (!seen.has(doc) && isDocumentPage(doc) && !skip(doc)) {
        seen.add(doc);
        queue.push(doc);
      }
    }
  }

  async function worker(): Promise<void> {
    const page = await context.newPage();
    await page.setViewportSize(options.viewport);
    let problems: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(`console: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("requestfailed", (r) => {
      // Leaving a page cancels the chunks VitePress prefetches for its links; `requested` still checks they exist.
      if (r.failure()?.errorText !== "net::ERR_ABORTED")
        problems.push(`request failed: ${r.url()} (${r.failure()?.errorText})`);
    });
    page.on("response", (r) => {
      if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
    });
    page.on("request", (r) => {
      const url = r.url();
      if (url.startsWith(origin)) requested.add(new URL(url).pathname);
      else if (!/^(data|blob):/.test(url)) problems.push(`off-site request: ${url}`);
    });
    for (;;) {
      const path = queue.shift();
      if (path === undefined) {
        // Another tab may still find pages: wait for it, and stop when nobody is loading.
        if (active === 0) break;
        await new Promise<void>((resolve) => waiting.push(resolve));
        continue;
      }
      active++;
      problems = [];
      try {
        await visit(page, path, problems);
      } finally {
        active--;
        wake();
      }
    }
    await page.close();
  }

  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return { pages, links, requested };
}

const idCache = new Map<string, Set<string>>();

/** The ids a built page defines, read from its HTML as served (what an anchor jumps to). */
export function idsOf(siteDir: string, path: string): Set<string> {
  const cached = idCache.get(`${siteDir}:${path}`);
  if (cached) return cached;
  const file = join(siteDir, path.endsWith("/") ? `${path}index.html` : path);
  const html = readFileSync(file, "utf8");
  const ids = new Set<string>();
  for (const m of html.matchAll(/\sid="([^"]+)"/g)) {
    ids.add(
      m[1]
        .replace(/&amp;/g, "&")
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&lt;/g, "<")
        .replace(/&gt;/g, ">"),
    );
  }
  idCache.set(`${siteDir}:${path}`, ids);
  return ids;
}

const textCache = new Map<string, Map<string, string>>();

function plain(html: string): string {
  return html
    .replace(/<a class="header-anchor"[\s\S]*?<\/a>/g, "")
    .replace(/<[^>]+>/g, "")
    .replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .trim();
}

/**
 * The text a reader sees where an anchor lands: the heading with that id, or for a rule anchor
 * (`<a id="d5"></a><strong>D5 — …`) the rule's title; undefined when the id is neither.
 */
export function anchorTextOf(siteDir: string, path: string, hash: string): string | undefined {
  const key = `${siteDir}:${path}`;
  let map = textCache.get(key);
  if (!map) {
    map = new Map();
    const html = readFileSync(join(siteDir, path.endsWith("/") ? `${path}index.html` : path), "utf8");
    for (const m of html.matchAll(/<h([1-6]) id="([^"]+)"[^>]*>([\s\S]*?)<\/h\1>/g)) map.set(m[2], plain(m[3]));
    for (const m of html.matchAll(/<a id="([^"]+)"><\/a>\s*<strong>([\s\S]*?)<\/strong>/g)) map.set(m[1], plain(m[2]));
    textCache.set(key, map);
  }
  return map.get(hash);
}
