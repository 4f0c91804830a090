/**
 * The changelog page of the site: the released versions from CHANGELOG.md (written by `changeset
 * version`), preceded by what is queued for the next release — the pending `.changeset/*.md` files,
 * grouped by bump. Built with the site, so it always matches the repository.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./package-entries";

type Bump = "major" | "minor" | "patch";

interface Pending {
  bump: Bump;
  text: string;
}

const WORDS = {
  en: {
    title: "Changelog",
    intro: (v: string) => `The package's changes, newest first. The version on npm and in the nav is **${v}**.`,
    next: "Next release (pending changes)",
    none: "No pending changes.",
    released: "Released versions",
    noReleases: "No version has been released with a changelog yet.",
    bumps: { major: "Breaking changes", minor: "New features", patch: "Fixes" },
  },
  ru: {
    title: "История изменений",
    intro: (v: string) => `Изменения пакета, новые сверху. Версия в npm и в меню — **${v}**.`,
    next: "Следующий выпуск (изменения, ещё не выпущенные)",
    none: "Невыпущенных изменений нет.",
    released: "Выпущенные версии",
    noReleases: "Версий с историей изменений пока не выпускалось.",
    bumps: { major: "Несовместимые изменения", minor: "Новые возможности", patch: "Исправления" },
  },
};

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }).version;
}

function pendingChanges(): Pending[] {
  const dir = join(repoRoot, ".changeset");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".md") && f !== "README.md")
    .sort()
    .flatMap((f) => {
      const m = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(readFileSync(join(dir, f), "utf8"));
      const bump = /"reseller-api":\s*(major|minor|patch)/.exec(m?.[1] ?? "")?.[1] as Bump | undefined;
      return m && bump ? [{ bump, text: m[2].trim() }] : [];
    });
}

export function changelogPage(lang: "en" | "ru"): string {
  const w = WORDS[lang];
  const out = [`# ${w.title}`, "", w.intro(packageVersion()), "", `## ${w.next} {#next}`, ""];
  const pending = pendingChanges();
  if (pending.length === 0) out.push(w.none, "");
  for (const bump of ["major", "minor", "patch"] as const) {
    const items = pending.filter((p) => p.bump === bump);
    if (items.length === 0) continue;
    out.push(`### ${w.bumps[bump]} {#next-${bump}}`, "");
    for (const item of items) out.push(`- ${item.text.replace(/\n+/g, " ")}`);
    out.push("");
  }
  out.push(`## ${w.released} {#released}`, "");
  const file = join(repoRoot, "CHANGELOG.md");
  const released = existsSync(file)
    ? readFileSync(file, "utf8")
        .replace(/^# .*\n/, "")
        .replace(/^## /gm, "### ")
    : "";
  out.push(released.trim() || w.noReleases, "");
  return out.join("\n");
}
