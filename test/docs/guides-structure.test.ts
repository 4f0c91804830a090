// The Russian guides are the English guides' twins: the same files, the same sections, the same code
// (comments may be translated), and in each section the same inline code, numbers and links. A guide
// added in one language only, or a translation that drifted, fails here, not on the site.
import { existsSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { docsRoot, guideDir, listGuides, LOCALES } from "../../docs/.vitepress/guides";
import { blocksOf } from "./guide-blocks";
import { sectionFacts } from "./twin-facts";

const [en, ru] = LOCALES;

/** Code without its comments: `// …` and `# …` after whitespace (never `://` inside a URL). */
function withoutComments(code: string): string {
  return code
    .split("\n")
    .map((l) => l.replace(/(^|\s)(\/\/|#) .*$/, "").trimEnd())
    .filter(Boolean)
    .join("\n");
}

function headings(file: string): number[] {
  return [...readFileSync(file, "utf8").matchAll(/^(#{1,3}) /gm)].map((m) => m[1].length);
}

describe("guides: English and Russian have the same structure", () => {
  it("every guide exists in both languages, with the index", () => {
    expect(listGuides(en).length).toBeGreaterThan(4);
    const english = listGuides(en).map((g) => g.slug);
    const russian = listGuides(ru).map((g) => g.slug);
    expect(russian).toEqual(english);
    expect(existsSync(join(guideDir(ru), "README.md"))).toBe(true);
  });

  for (const guide of listGuides(en)) {
    it(`${guide.slug}: the same headings and the same code blocks in Russian`, () => {
      const twin = listGuides(ru).find((g) => g.slug === guide.slug);
      expect(twin, `docs/ru/guides/${guide.slug}.md is missing`).toBeDefined();
      expect(headings(twin!.file)).toEqual(headings(guide.file));
      const a = blocksOf(en, guide);
      const b = blocksOf(ru, twin!);
      expect(b.map((x) => [x.lang, x.file])).toEqual(a.map((x) => [x.lang, x.file]));
      for (let i = 0; i < a.length; i++) {
        if (a[i].lang === "json") expect(b[i].code).toBe(a[i].code);
        else expect(withoutComments(b[i].code)).toBe(withoutComments(a[i].code));
      }
      expect(twin!.title).not.toBe(guide.title); // translated, not copied
    });

    it(`${guide.slug}: every section quotes the same inline code, numbers and links in Russian`, () => {
      const twin = listGuides(ru).find((g) => g.slug === guide.slug)!;
      const a = sectionFacts(readFileSync(guide.file, "utf8"), relative(docsRoot, guide.file));
      const b = sectionFacts(readFileSync(twin.file, "utf8"), relative(docsRoot, twin.file));
      expect(b.length).toBe(a.length);
      for (let i = 0; i < a.length; i++) {
        const where = `section "${a[i].heading}" / "${b[i].heading}"`;
        expect(b[i].code, `${where}: inline code`).toEqual(a[i].code);
        expect(b[i].numbers, `${where}: numbers`).toEqual(a[i].numbers);
        expect(b[i].links, `${where}: links`).toEqual(a[i].links);
      }
    });
  }
});
