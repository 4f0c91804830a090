// J1: the contract page exists in both languages with the same rules: every rule anchor in the same
// order, and in each section the same inline code, numbers and links (drift fails here, not on the site).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { docsRoot } from "../../docs/.vitepress/guides";
import { sectionFacts } from "./twin-facts";

const en = readFileSync(join(docsRoot, "contract.md"), "utf8");
const ru = readFileSync(join(docsRoot, "ru/contract.md"), "utf8");
const anchors = (text: string) => [...text.matchAll(/<a id="([a-j]\d{1,2})"><\/a>/g)].map((m) => m[1]);

describe("J1: the contract in English and Russian", () => {
  it("has every rule, in the same order, with the same anchors", () => {
    expect(anchors(en).length).toBeGreaterThan(60);
    expect(anchors(ru)).toEqual(anchors(en));
  });

  it("quotes the same code, numbers and links in every section", () => {
    const a = sectionFacts(en, "contract.md");
    const b = sectionFacts(ru, "ru/contract.md");
    expect(b.length).toBe(a.length);
    for (let i = 0; i < a.length; i++) {
      const where = `section ${i} (${a[i].heading} / ${b[i].heading})`;
      expect(b[i].code, `${where}: inline code`).toEqual(a[i].code);
      expect(b[i].numbers, `${where}: numbers`).toEqual(a[i].numbers);
      expect(b[i].links, `${where}: links`).toEqual(a[i].links);
    }
  });
});
