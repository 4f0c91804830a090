/**
 * Rule IDs in prose — "(A5)", "(D5, D9)", "F1–F4" — link to their rule in the contract page of the
 * page's language. Only IDs the contract defines (its `<a id="a5">` anchors) are linked, and never
 * inside code or inside a link already.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { MarkdownRenderer as MarkdownIt } from "vitepress";

type Token = ReturnType<MarkdownIt["parse"]>[number];

/** The rule anchors of a contract page (`a1` … `j3`). */
export function contractRules(docsRoot: string): Set<string> {
  const text = readFileSync(join(docsRoot, "contract.md"), "utf8");
  return new Set([...text.matchAll(/<a id="([a-j]\d{1,2})"><\/a>/g)].map((m) => m[1]));
}

const RULE = /\b([A-J])(\d{1,2})\b/g;
const HAS_RULE = /\b[A-J]\d{1,2}\b/;

export function ruleLinks(md: MarkdownIt, options: { base: string; rules: Set<string> }): void {
  md.core.ruler.push("rule_links", (state) => {
    const relativePath = (state.env as { relativePath?: string }).relativePath ?? "";
    const page = `${options.base}${relativePath.startsWith("ru/") ? "ru/" : ""}contract.html`;
    for (const block of state.tokens) {
      if (block.type !== "inline" || !block.children) continue;
      const out: Token[] = [];
      let depth = 0;
      for (const child of block.children) {
        if (child.type === "link_open") depth++;
        if (child.type === "link_close") depth--;
        if (child.type !== "text" || depth > 0 || !HAS_RULE.test(child.content)) {
          out.push(child);
          continue;
        }
        let last = 0;
        for (const m of child.content.matchAll(RULE)) {
          const id = `${m[1].toLowerCase()}${m[2]}`;
          if (!options.rules.has(id)) continue;
          if (m.index > last) out.push(text(state, child.content.slice(last, m.index)));
          const open = new state.Token("link_open", "a", 1);
          open.attrSet("href", `${page}#${id}`);
          open.attrSet("class", "rule-link");
          out.push(open, text(state, m[0]), new state.Token("link_close", "a", -1));
          last = m.index + m[0].length;
        }
        if (last < child.content.length) out.push(text(state, child.content.slice(last)));
      }
      block.children = out;
    }
  });
}

function text(state: { Token: new (type: string, tag: string, nesting: -1 | 0 | 1) => Token }, content: string): Token {
  const token = new state.Token("text", "", 0);
  token.content = content;
  return token;
}
