// The CLI reference is built from help text: the command list is read from commander-style help
// (wrapped descriptions, arguments, aliases), and every bin of package.json gets a page.
import { describe, expect, it } from "vitest";
import { cliPage, CLI_WORDS, collectCliHelp, subcommands } from "../../docs/.vitepress/cli-reference";
import { binEntries } from "../../docs/.vitepress/package-entries";

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
});
