/**
 * What a translation must keep from the page it translates: the inline code spans, the numbers and the
 * link targets of its prose, section by section (code blocks are compared on their own). A Russian page
 * whose section quotes another option, another number or another link than its English twin has
 * drifted, whatever its words.
 */
import { posix } from "node:path";
export interface SectionFacts {
  heading: string;
  code: string[];
  numbers: string[];
  links: string[];
}

function withoutCodeBlocks(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, "");
}

/** Thousands separators differ by language (1,000 / 1 000): compare the number, not its spelling. */
function joinThousands(text: string): string {
  return text.replace(/(\d)[,\u00a0\u202f ](?=\d{3}\b)/g, "$1");
}

/**
 * A link as the site resolves it, from the page at `page` (a path inside docs/, e.g. `ru/guides/x.md`),
 * with the language prefix and the Russian reference's suffix removed, so twins compare equal.
 */
function siteTarget(href: string, page: string): string {
  if (/^[a-z]+:|^#/.test(href)) return href;
  const target = href.startsWith("/") ? href.slice(1) : posix.join(posix.dirname(page), href);
  return target.replace(/^ru\//, "").replace(/\.ru\.html/, ".html");
}

/** The facts of each `## ` section (the text before the first one is section 0). */
export function sectionFacts(markdown: string, page: string): SectionFacts[] {
  const sections = withoutCodeBlocks(markdown).split(/^## /m);
  return sections.map((text, i) => {
    const heading = i === 0 ? "(top)" : text.split("\n")[0].replace(/\s*\{#[\w-]+\}$/, "");
    const code = [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1].replace(/\s+/g, " "));
    const prose = text
      .replace(/`[^`]+`/g, " ")
      .replace(/\]\([^)]*\)/g, "]")
      .replace(/<[^>]+>/g, " ");
    const numbers = [...joinThousands(prose).matchAll(/\d+/g)].map((m) => m[0]);
    const links = [...text.matchAll(/\]\(([^)\s]+)\)/g), ...text.matchAll(/href="([^"]+)"/g)].map((m) =>
      siteTarget(m[1], page),
    );
    return { heading, code: code.sort(), numbers: numbers.sort(), links: links.sort() };
  });
}
