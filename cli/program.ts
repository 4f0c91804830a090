/**
 * The command tree (commander): every command has --help; the root help ends with a try-it session,
 * where credentials come from, and the exit codes. Actions return an exit code; nothing here exits.
 */
import { createRequire } from "node:module";
import { Command, Option } from "commander";
import { parseChoice, parseDuration, parseInteger } from "./args";
import { runCheck } from "./cmd-check";
import {
  LIST_DEFAULT_LIMIT,
  parseLimit,
  parseStates,
  runCommandsList,
  runCommandsNotes,
  runCommandsResolve,
  runCommandsShow,
  runRecover,
} from "./cmd-journal";
import { runCommandsPrune } from "./cmd-prune";
import { DOMAIN_STATUSES, runContext, runDomainsList } from "./cmd-read";
import { runRegister } from "./cmd-register";
import { runRenew } from "./cmd-renew";
import { tokenForRedaction } from "./credentials";
import { CLI_DEFAULTS } from "./defaults";
import { EXIT_CODE_HELP, type ExitCode } from "./exit-codes";
import type { Runtime } from "./job-session";
import { stderrNotice } from "./output";
import { DEFAULT_GLOBALS, type GlobalOptions } from "./session";
import { journalPasswordWarning } from "./stores";

const TRY_IT = `Try it with no account (an in-process emulator, test key, no real money):
  reseller --emulator context
  reseller --emulator domains list --expiring-within 400d
  reseller --emulator renew --expiring-within 400d --dry-run`;

const CREDENTIALS_HELP = `Credentials (never on the command line — shell history and ps are logs too):
  RESELLER_API_TOKEN      the reseller token (or --token-file FILE, mode 600)
  RESELLER_API_BASE_URL   https://<your provider>/api/reseller/v1 (or --base-url)
  RESELLER_JOURNAL        journal file or postgres:// URL (or --journal)`;

const ON_ERROR = ["continue", "stop"] as const;

/** commander's parsed options: strings for value flags, booleans for switches, string[] for variadics. */
type Raw = Record<string, string | boolean | string[] | undefined>;

/** A value flag's text (commander hands strings; defaults are strings too). */
function text(value: Raw[string]): string {
  return typeof value === "string" ? value : Array.isArray(value) ? value.join(",") : String(value);
}

/** The package version: cli/ and dist/ both sit one level below package.json. */
function packageVersion(): string {
  try {
    return (createRequire(import.meta.url)("../package.json") as { version: string }).version;
  } catch {
    return "unknown";
  }
}

function globals(program: Command): GlobalOptions {
  const o = program.opts<Raw>();
  return {
    tokenFile: o.tokenFile as string | undefined,
    baseUrl: o.baseUrl as string | undefined,
    emulator: o.emulator === true,
    journal: o.journal as string | undefined,
    journalSync: parseChoice("--journal-sync", text(o.journalSync ?? DEFAULT_GLOBALS.journalSync), [
      "full",
      "normal",
    ] as const),
    json: o.json === true,
    windowMs:
      o.windowMs === undefined ? DEFAULT_GLOBALS.windowMs : parseInteger("--window-ms", text(o.windowMs), 1, 3_600_000),
    requestTimeoutMs:
      o.requestTimeout === undefined
        ? DEFAULT_GLOBALS.requestTimeoutMs
        : parseDuration("--request-timeout", text(o.requestTimeout)),
    connectTimeoutMs:
      o.connectTimeout === undefined
        ? DEFAULT_GLOBALS.connectTimeoutMs
        : parseDuration("--connect-timeout", text(o.connectTimeout)),
    windowFromFlag: o.windowMs !== undefined,
    wide: o.wide === true,
    color: o.color !== false,
    recoverOlderThanMs:
      o.recoverOlderThan === undefined ? 0 : parseDuration("--recover-older-than", text(o.recoverOlderThan)),
  };
}

function zones(program: Command): readonly string[] {
  const raw = program.opts<Raw>().zones as string | undefined;
  if (!raw) return CLI_DEFAULTS.input.zones;
  return raw
    .split(",")
    .map((z) => z.trim().replace(/^\./, "").toLowerCase())
    .filter(Boolean);
}

function jobOptions(cmd: Command): Command {
  return cmd
    .option("--dry-run", "show what would be sent and what it would cost; send no purchase")
    .option(
      "--concurrency <n>",
      "rows in flight at once (requests still share the key's pacer)",
      String(CLI_DEFAULTS.job.concurrency),
    )
    .addOption(
      new Option(
        "--on-error <policy>",
        "bad input line or API rejection: continue with the other rows, or stop starting new ones",
      )
        .choices(ON_ERROR)
        .default(CLI_DEFAULTS.job.onError),
    );
}

/**
 * @param writeErr where commander's own messages go (usage errors, help hints): main.ts turns them
 *   into one JSON error line when stderr is not a terminal.
 */
export function buildProgram(
  rt: Runtime,
  setExit: (code: ExitCode) => void,
  writeErr: (s: string) => void = (s) => rt.stderr.write(s),
): Command {
  const program = new Command("reseller");
  program
    .description("Operator CLI for the Reseller API: bulk renew, register and check without ever buying twice.")
    .version(packageVersion(), "-V, --version")
    .option("--token-file <file>", "read the API token from this file (else RESELLER_API_TOKEN)")
    .option("--base-url <url>", "API base URL (else RESELLER_API_BASE_URL)")
    .option("--emulator", "run against an in-process emulator with its default test key (no account needed)")
    .option(
      "--journal <file|url>",
      "SQLite journal file, or a postgres:// or postgresql:// URL (default: $XDG_STATE_HOME/reseller/journal.sqlite)",
    )
    .addOption(
      new Option(
        "--journal-sync <mode>",
        "SQLite durability: full fsyncs every commit (survives a power cut); normal survives a killed process only",
      )
        .choices(["full", "normal"])
        .default(DEFAULT_GLOBALS.journalSync),
    )
    .option("--json", "JSON lines on stdout even on a terminal")
    .option(
      "--zones <list>",
      `zones input names may use, comma-separated (default ${CLI_DEFAULTS.input.zones.join(",")})`,
    )
    .option(
      "--request-timeout <duration>",
      "per-attempt timeout, e.g. 30s",
      `${CLI_DEFAULTS.http.requestTimeoutMs / 1000}s`,
    )
    .option(
      "--recover-older-than <duration>",
      "with several processes on one journal: recover only commands idle this long",
    )
    .option(
      "--connect-timeout <duration>",
      `connect timeout (DNS, TCP, TLS) of the first request, e.g. 3s (default ${CLI_DEFAULTS.http.connectTimeoutMs / 1000}s)`,
    )
    .option(
      "--window-ms <ms>",
      `rate-limit window of the server (default: the API's ${CLI_DEFAULTS.http.windowMs}; --emulator: the emulator's)`,
    )
    .option("--wide", "tables at full width (default: fit the terminal, truncating or stacking columns)")
    .option("--no-color", "no colours (also NO_COLOR=1; colours are only ever used on a terminal)")
    .addHelpText("after", `\n${TRY_IT}\n\n${CREDENTIALS_HELP}\n\n${EXIT_CODE_HELP}\n`)
    .showHelpAfterError("(add --help for usage)")
    .hook("preAction", () => {
      const o = program.opts<Raw>();
      // A4: before any command runs, the --token-file token is one of the strings output never shows —
      // also in commands that never read it (check --dry-run, the `commands` commands).
      rt.redactor?.addToken(tokenForRedaction(o.tokenFile as string | undefined));
      // A4/H2: a journal password on the command line is in `ps` and shell history: said once, first.
      const warning = journalPasswordWarning(o.journal as string | undefined);
      if (warning) stderrNotice(rt.stderr, o.json === true, warning);
    });

  program
    .command("context")
    .description("environment, key id, scopes, rate limit and window of the key")
    .action(async () => setExit(await runContext(globals(program), rt)));

  const domains = program.command("domains").description("read domains");
  domains
    .command("list")
    .description("every domain, all pages; a table on a terminal, JSON lines with --json or when piped")
    .option("--expiring-within <duration>", "only domains expiring within this time, e.g. 30d")
    .option("--status <status>", `only this status (${DOMAIN_STATUSES.join(", ")})`)
    .option("--zone <zone>", "only this zone, exactly (kz is not com.kz); one of --zones")
    .action(async (o: Raw) =>
      setExit(
        await runDomainsList(globals(program), rt, {
          expiringWithinMs:
            o.expiringWithin === undefined ? undefined : parseDuration("--expiring-within", text(o.expiringWithin)),
          status: o.status as string | undefined,
          zone: o.zone as string | undefined,
          zones: zones(program),
        }),
      ),
    );

  jobOptions(
    program
      .command("check")
      .description(
        `availability of names from arguments, --file or stdin, ${CLI_DEFAULTS.input.checkBatch} per request`,
      )
      .argument("[names...]", "domain names")
      .option("--file <file>", "one name per line (- for stdin)"),
  ).action(async (names: string[], o: Raw) =>
    setExit(
      await runCheck(globals(program), rt, {
        names,
        input: o.file as string | undefined,
        dryRun: o.dryRun === true,
        concurrency: parseInteger("--concurrency", text(o.concurrency), 1, 64),
        onError: parseChoice("--on-error", text(o.onError), ON_ERROR),
        zones: zones(program),
        batchSize: CLI_DEFAULTS.input.checkBatch,
      }),
    ),
  );

  jobOptions(
    program
      .command("renew")
      .description("renew domains from FILE (names or UUIDs, optional `,period`), stdin, or --expiring-within")
      .argument("[file]", "input file, - for stdin")
      .option("--expiring-within <duration>", "renew every domain expiring within this time, e.g. 30d")
      .option("--period <years>", "years to add, 1..10", String(CLI_DEFAULTS.job.period))
      .option("--no-wait", "stop at acceptance (202) instead of waiting for each operation")
      .option("--no-quotes", "only with --dry-run: do not ask for prices either")
      .option(
        "--wait-timeout <duration>",
        "longest wait for one operation",
        `${CLI_DEFAULTS.job.waitTimeoutMs / 60_000}m`,
      )
      .option(
        "--renewed-within <duration>",
        "skip domains this journal renewed within this time (0 = off)",
        `${CLI_DEFAULTS.job.renewedWithinMs / 86_400_000}d`,
      )
      .option("--attempt <n>", "after a renewal failed: 2, 3… derives a new Idempotency-Key", "1"),
  ).action(async (file: string | undefined, o: Raw) =>
    setExit(
      await runRenew(globals(program), rt, {
        input: file,
        expiringWithinMs:
          o.expiringWithin === undefined ? undefined : parseDuration("--expiring-within", text(o.expiringWithin)),
        period: parseInteger("--period", text(o.period), 1, 10),
        wait: o.wait !== false,
        dryRun: o.dryRun === true,
        quotes: o.quotes !== false,
        concurrency: parseInteger("--concurrency", text(o.concurrency), 1, 64),
        onError: parseChoice("--on-error", text(o.onError), ON_ERROR),
        renewedWithinMs: parseDuration("--renewed-within", text(o.renewedWithin)),
        attempt: parseInteger("--attempt", text(o.attempt), 1, 99),
        waitTimeoutMs: parseDuration("--wait-timeout", text(o.waitTimeout)),
        zones: zones(program),
      }),
    ),
  );

  jobOptions(
    program
      .command("register")
      .description(
        "register domains from orders in FILE: CSV with a header (external_id,domain,period,nameservers) or JSON lines",
      )
      .argument("[file]", "input file, - for stdin")
      .addOption(
        new Option("--format <format>", "input format (default: from the extension, else sniffed)").choices([
          "csv",
          "jsonl",
        ]),
      )
      .option("--period <years>", "years when a row has none, 1..10", String(CLI_DEFAULTS.job.period))
      .option("--no-quotes", "only with --dry-run: do not ask for prices either"),
  ).action(async (file: string | undefined, o: Raw) =>
    setExit(
      await runRegister(globals(program), rt, {
        input: file,
        format: o.format as "csv" | "jsonl" | undefined,
        period: parseInteger("--period", text(o.period), 1, 10),
        dryRun: o.dryRun === true,
        quotes: o.quotes !== false,
        concurrency: parseInteger("--concurrency", text(o.concurrency), 1, 64),
        onError: parseChoice("--on-error", text(o.onError), ON_ERROR),
        zones: zones(program),
      }),
    ),
  );

  const commands = program
    .command("commands")
    .description("journalled commands of an existing journal (needs no token; never creates one)");
  commands
    .command("list")
    .description("commands by state, newest first (default: every unsettled state, the newest 100)")
    .option("--state <states>", "comma-separated states, e.g. needs_manual_check,unknown")
    .option("--all", "every state, settled ones too")
    .option("--limit <n>", "rows at most, newest first; 0 = every row", String(LIST_DEFAULT_LIMIT))
    .option(
      "--before <id|time>",
      "next page: only commands created before this command id (the last row shown) or ISO time (2026-01-31T00:00:00Z)",
    )
    .addHelpText(
      "after",
      '\nA list cut by --limit says so on stderr: on a terminal, how many exist and the --before ID of\nthe next page; as JSON (--json, or stderr not a terminal), a {"type":"notice"} line, and every\nlist ends with a {"type":"summary"} line: rows, total, truncated, nextBefore.',
    )
    .action(async (o: Raw) =>
      setExit(
        await runCommandsList(globals(program), rt, {
          states: parseStates(o.state as string | undefined, o.all === true),
          limit: parseLimit(text(o.limit)),
          before: o.before === undefined ? undefined : text(o.before),
        }),
      ),
    );
  commands
    .command("show")
    .description("one command in full (by command id or Idempotency-Key); a support note when it needs a manual check")
    .argument("<id>", "command id or Idempotency-Key")
    .option("--include-text", "also print free text of the request body (ticket messages), left out by default")
    .action(async (id: string, o: Raw) =>
      setExit(await runCommandsShow(globals(program), rt, id, { includeText: o.includeText === true })),
    );
  commands
    .command("notes")
    .description(
      "every needs_manual_check command as a ready-to-send support note (request ids, UUIDs, times, key id; no secret)",
    )
    .option("--include-text", "also print free text of the request body (ticket messages), left out by default")
    .action(async (o: Raw) =>
      setExit(await runCommandsNotes(globals(program), rt, { includeText: o.includeText === true })),
    );
  commands
    .command("resolve")
    .description("close a needs_manual_check command after support answered: journalled with your note, sends nothing")
    .argument("<id>", "command id or Idempotency-Key")
    .addOption(
      new Option("--as <outcome>", "what support confirmed: completed (it happened) or failed (it did not)")
        .choices(["completed", "failed"])
        .makeOptionMandatory(),
    )
    .requiredOption("--note <text>", "what support said, in your words (kept in the journal)")
    .option("--reference <ref>", "support's ticket or reference number")
    .action(async (id: string, o: Raw) =>
      setExit(
        await runCommandsResolve(globals(program), rt, id, {
          as: parseChoice("--as", text(o.as), ["completed", "failed"] as const),
          note: text(o.note),
          reference: o.reference === undefined ? undefined : text(o.reference),
        }),
      ),
    );

  commands
    .command("prune")
    .description(
      "retention: drop the request and response bodies of commands settled before --older-than (keys, fingerprints, states, UUIDs and request ids stay); never an unsettled or needs_manual_check command",
    )
    .option("--older-than <duration>", "commands settled longer ago than this, e.g. 30d, 12h", "30d")
    .option("--dry-run", "count what would be pruned, by state; change nothing")
    .addHelpText(
      "after",
      "\nRun it from a daily job (cron): a settled command is never resent, so its body only\nserves `commands show`. Reports the commands pruned by state, and how many unsettled\nand needs_manual_check commands it left alone.",
    )
    .action(async (o: Raw) =>
      setExit(
        await runCommandsPrune(globals(program), rt, {
          olderThanMs: parseDuration("--older-than", text(o.olderThan)),
          olderThan: text(o.olderThan),
          dryRun: o.dryRun === true,
        }),
      ),
    );

  program
    .command("recover")
    .description(
      "settle what earlier runs left (by GET, or a resend with the same key and bytes); prints a summary; exits 3 while commands of the key wait for a manual check",
    )
    .action(async () => setExit(await runRecover(globals(program), rt)));

  for (const cmd of [program, ...program.commands, ...program.commands.flatMap((c) => c.commands)]) {
    cmd.exitOverride();
    cmd.configureOutput({ writeOut: (s) => rt.stdout.write(s), writeErr });
  }
  return program;
}
