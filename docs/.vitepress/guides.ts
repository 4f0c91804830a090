/**
 * The guides, found on disk: every `docs/guides/*.md` and its Russian twin `docs/ru/guides/*.md`, in
 * the reading order of the English index (`guides/README.md`), then any guide the index does not list.
 * The site's sidebars and the example tests both read this, so a new guide needs no registration.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./package-entries";

export const docsRoot = join(repoRoot, "docs");

export interface Locale {
  /** `root` is English at `/`; `ru` lives under `/ru/`. */
  key: "root" | "ru";
  lang: string;
  /** URL and folder prefix inside docs/: "" or "ru/". */
  prefix: string;
}

export const LOCALES: Locale[] = [
  { key: "root", lang: "en", prefix: "" },
  { key: "ru", lang: "ru", prefix: "ru/" },
];

export interface Guide {
  /** File name without `.md`: `never-buy-twice`. */
  slug: string;
  /** Absolute path of the Markdown file. */
  file: string;
  /** The page's first `# ` heading. */
  title: string;
}

export function guideDir(locale: Locale): string {
  return join(docsRoot, locale.prefix, "guides");
}

function titleOf(markdown: string, fallback: string): string {
  return /^# (.+)$/m.exec(markdown)?.[1].trim() ?? fallback;
}

/** Slugs in the order the English index links them. */
function indexOrder(): string[] {
  const index = join(guideDir(LOCALES[0]), "README.md");
  if (!existsSync(index)) return [];
  const seen: string[] = [];
  for (const m of readFileSync(index, "utf8").matchAll(/\]\(([a-z0-9-]+)\.md\)/g)) {
    if (!seen.includes(m[1])) seen.push(m[1]);
  }
  return seen;
}

export function listGuides(locale: Locale): Guide[] {
  const dir = guideDir(locale);
  if (!existsSync(dir)) return [];
  const order = indexOrder();
  const rank = (slug: string) => (order.includes(slug) ? order.indexOf(slug) : order.length);
  return readdirSync(dir)
    .filter((f) => f.endsWith(".md") && f !== "README.md")
    .map((f) => {
      const slug = f.slice(0, -3);
      const file = join(dir, f);
      return { slug, file, title: titleOf(readFileSync(file, "utf8"), slug) };
    })
    .sort((a, b) => rank(a.slug) - rank(b.slug) || a.slug.localeCompare(b.slug));
}
