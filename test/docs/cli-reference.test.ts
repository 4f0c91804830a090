// The CLI reference is built from help text: the command list is read from commander-style help
// (wrapped descriptions, arguments, aliases), and every bin of package.json gets a page.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  cliPage,
  cliReferenceFiles,
  CLI_WORDS,
  collectCliHelp,
  subcommands,
} from "../../docs/.vitepress/cli-reference";
import { binEntries, repoRoot } from "../../docs/.vitepress/package-entries";
import { EXIT_CODE_HELP } from "../../cli/exit-codes";

const COMMANDER_HELP = `Usage: reseller [options] [command]

Operator CLI.

Options:
  --journal <file|url>             SQLite journal file or postgres:// URL
                                   (default: journal.sqlite)
  -h, --help                       display help for command

Commands:
  context                          environment, key id, scopes, rate limit and
                                   window of the key
  domains                          read domains
  check [options] [names...]       availability of names from arguments, --file
                                   or stdin, 50 per request
  commands|cmd [options]           journalled commands
  help [command]                   display help for command
`;

describe("docs: CLI reference", () => {
  it("reads every command of a commander-style help, across wrapped lines, without `help`", () => {
    expect(subcommands(COMMANDER_HELP)).toEqual(["context", "domains", "check", "commands"]);
    expect(subcommands("Usage: x [options]\n\nOptions:\n  --port PORT   the port\n")).toEqual([]);
  });

  it("J1: documents every bin of package.json from its own --help, verbatim", async () => {
    const refs = await collectCliHelp();
    expect(refs.map((r) => r.bin)).toEqual(binEntries().map((b) => b.name));
    const emulator = refs.find((r) => r.bin === "reseller-emulator")!;
    expect(emulator.pages[0].text).toMatch(/^Usage: reseller-emulator/);
    const page = cliPage(emulator, CLI_WORDS.en);
    for (const flag of ["--port", "--window-ms", "--replay-ttl-ms", "--rate-limit", "--seed"])
      expect(page).toContain(flag);
  });

  // The pages are build output (gitignored): `npm run docs` writes them, and nothing rewrote them when
  // a help text changed afterwards — a page on disk kept the old exit-code line. Each page a build left
  // behind must be what the build would write now, in both languages.
  it("J1: the reseller page prints the exit codes as `reseller --help` does; pages on disk are current", async () => {
    const refs = await collectCliHelp();
    const reseller = refs.find((r) => r.bin === "reseller")!;
    expect(reseller.pages[0].text).toContain(EXIT_CODE_HELP);
    for (const words of [CLI_WORDS.en, CLI_WORDS.ru]) expect(cliPage(reseller, words)).toContain(EXIT_CODE_HELP);
    const files = cliReferenceFiles(refs);
    expect([...files.keys()]).toEqual(
      ["cli", "ru/cli"].flatMap((p) => [`${p}/index.md`, ...refs.map((r) => `${p}/${r.bin}.md`)]),
    );
    for (const [path, text] of files) {
      const onDisk = join(repoRoot, "docs", path);
      if (!existsSync(onDisk)) continue; // not built here: nothing stale to read
      expect(readFileSync(onDisk, "utf8"), `docs/${path} is stale: run \`npm run docs\``).toBe(text);
    }
  });
});
