/**
 * The CLI reference: every `bin` of package.json run with `--help`, and every command its help lists
 * (commander style: a `Commands:` section) run with `--help` too, recursively. The pages are the help
 * text itself, so the reference says exactly what the installed command prints.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { binEntries, repoRoot } from "./package-entries";

const run = promisify(execFile);

interface HelpPage {
  /** `["reseller", "journal", "list"]`. */
  command: string[];
  text: string;
}

export interface CliReference {
  bin: string;
  pages: HelpPage[];
}

/** Subcommand names from a commander-style `Commands:` section; `help` itself is skipped. */
export function subcommands(help: string): string[] {
  const m = /^Commands:\n([\s\S]*?)(?:\n\s*\n|(?![\s\S]))/m.exec(help);
  if (!m) return [];
  const names: string[] = [];
  for (const line of m[1].split("\n")) {
    const name = /^\s{1,8}([a-z][\w-]*)(?:\|[\w-]+)*/.exec(line)?.[1];
    if (name && name !== "help" && !names.includes(name)) names.push(name);
  }
  return names;
}

async function helpOf(source: string, args: string[]): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    ["--import", import.meta.resolve("tsx"), join(repoRoot, source), ...args, "--help"],
    {
      cwd: repoRoot,
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", COLUMNS: "100" },
      // Only a guard against a hung --help: on a loaded machine a dozen tsx processes at once are slow.
      timeout: 300_000,
    },
  );
  return stdout.trimEnd();
}

export async function collectCliHelp(maxDepth = 4): Promise<CliReference[]> {
  const out: CliReference[] = [];
  for (const bin of binEntries()) {
    const pages: HelpPage[] = [];
    const visit = async (path: string[]): Promise<void> => {
      const text = await helpOf(bin.source, path);
      pages.push({ command: [bin.name, ...path], text });
      if (path.length >= maxDepth) return;
      // Siblings in parallel: each is its own process, and the help of one never depends on another.
      await Promise.all(subcommands(text).map((name) => visit([...path, name])));
    };
    await visit([]);
    pages.sort((a, b) => a.command.join(" ").localeCompare(b.command.join(" ")));
    out.push({ bin: bin.name, pages });
  }
  return out;
}

export interface CliWords {
  title: string;
  intro: string;
  commands: string;
}

export const CLI_WORDS: Record<"en" | "ru", CliWords> = {
  en: {
    title: "CLI reference",
    intro:
      "Generated from each command's own `--help` output when the site is built, so it matches the installed version.",
    commands: "Commands",
  },
  ru: {
    title: "Справочник по CLI",
    intro:
      "Страница собирается из вывода `--help` каждой команды при сборке сайта, поэтому всегда совпадает с установленной версией. Текст справки — на английском, как его печатает сама программа.",
    commands: "Команды",
  },
};

/** `reseller journal list` → `journal-list`; the bin itself → `usage` (its name is the page title's id). */
function anchor(command: string[]): string {
  return command.length > 1 ? command.slice(1).join("-") : "usage";
}

/** One page per bin: a section per command, its help text verbatim. */
export function cliPage(ref: CliReference, words: CliWords): string {
  const lines = [`# ${ref.bin}`, "", words.intro, ""];
  if (ref.pages.length > 1) {
    // An explicit id: the slug of "Commands" would collide with a `commands` subcommand's section.
    lines.push(`## ${words.commands} {#all-commands}`, "");
    for (const p of ref.pages) lines.push(`- [\`${p.command.join(" ")}\`](#${anchor(p.command)})`);
    lines.push("");
  }
  for (const p of ref.pages) {
    lines.push(`## \`${p.command.join(" ")}\` {#${anchor(p.command)}}`, "", "```text", p.text, "```", "");
  }
  return lines.join("\n");
}

function cliIndex(refs: CliReference[], words: CliWords): string {
  return [`# ${words.title}`, "", words.intro, "", ...refs.map((r) => `- [\`${r.bin}\`](./${r.bin}.md)`), ""].join(
    "\n",
  );
}

/**
 * Every CLI page a build writes, by path under docs/: the index and one page per bin, in English
 * and in Russian. build.ts writes exactly these; the docs test compares any left on disk with them.
 */
export function cliReferenceFiles(refs: CliReference[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const [prefix, words] of [
    ["cli", CLI_WORDS.en],
    ["ru/cli", CLI_WORDS.ru],
  ] as const) {
    files.set(`${prefix}/index.md`, cliIndex(refs, words));
    for (const ref of refs) files.set(`${prefix}/${ref.bin}.md`, cliPage(ref, words));
  }
  return files;
}
