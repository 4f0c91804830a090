// `reseller`: the operator CLI. No shebang here: tsup adds it to dist/reseller.js.
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { CommanderError } from "commander";
import {
  InsecureTransportError,
  InvalidOptionsError,
  InvalidTokenError,
  ResellerClientError,
  redactUrl,
} from "../src/index";
import { refuseTokenArguments } from "./args";
import { guardClosedStdout } from "./closed-stdout";
import { configureColour } from "./colour";
import { UsageError } from "./errors";
import { EXIT, type ExitCode } from "./exit-codes";
import type { Runtime } from "./job-session";
import { buildProgram } from "./program";
import { OutputRedactor } from "./redact";
import { routeWarnings } from "./warnings";

/**
 * Fatal errors: plain text on a terminal; one JSON line on stderr when stderr is not a terminal or
 * with --json, so `2> events.jsonl` and `| jq` never meet a line that is not JSON.
 */
function reporter(argv: readonly string[], rt: Runtime) {
  const json = !rt.stderr.isTTY || argv.includes("--json");
  return (code: string, message: string, exitCode: ExitCode): ExitCode => {
    if (json)
      rt.stderr.write(JSON.stringify({ at: new Date().toISOString(), type: "error", code, message, exitCode }) + "\n");
    else rt.stderr.write(`reseller: ${message}\n`);
    return exitCode;
  };
}

/** Runs one CLI invocation (argv without node and script) and returns its exit code. */
export async function main(argv: readonly string[], runtime: Runtime): Promise<ExitCode> {
  const rt = redacting(runtime);
  let code: ExitCode = EXIT.ok;
  const report = reporter(argv, rt);
  const jsonErrors = !rt.stderr.isTTY || argv.includes("--json");
  let commanderText = "";
  configureColour(!argv.includes("--no-color"), rt.env);
  try {
    refuseTokenArguments(argv);
    const program = buildProgram(
      rt,
      (c) => (code = c),
      jsonErrors ? (s) => (commanderText += s) : (s) => rt.stderr.write(s),
    );
    if (argv.length === 0) {
      program.outputHelp();
      return EXIT.usage;
    }
    await program.parseAsync([...argv], { from: "user" });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === "commander.helpDisplayed" ||
        error.code === "commander.version" ||
        error.code === "commander.help"
      )
        return EXIT.ok;
      // commander printed the message and the --help hint (collected for one JSON line when piped)
      if (jsonErrors) report("cli_usage", commanderText.trim().replace(/^error: /, "") || error.message, EXIT.usage);
      return EXIT.usage;
    }
    if (
      error instanceof UsageError ||
      error instanceof InvalidTokenError ||
      error instanceof InvalidOptionsError ||
      error instanceof InsecureTransportError
    )
      return report(error.code, error.message, EXIT.usage);
    if (error instanceof ResellerClientError) return report(error.code, error.message, EXIT.failure);
    const message = `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
    report("unexpected", redactUrlsIn(message), EXIT.failure);
    if (rt.env.RESELLER_DEBUG && error instanceof Error && error.stack) rt.stderr.write(error.stack + "\n");
    return EXIT.failure;
  }
}

/**
 * A4: every write of this invocation goes through one filter (redact.ts): the token the session
 * reads (registered by openSession), the one in the environment, and anything token-shaped.
 */
function redacting(rt: Runtime): Runtime {
  if (rt.redactor) return rt;
  const redactor = new OutputRedactor();
  redactor.addToken(rt.env.RESELLER_API_TOKEN);
  return { ...rt, stdout: redactor.wrap(rt.stdout), stderr: redactor.wrap(rt.stderr), redactor };
}

/** Any URL inside an unexpected error's message is printed redacted (userinfo, secret query values). */
function redactUrlsIn(message: string): string {
  return message.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, (url) => redactUrl(url));
}

function isEntry(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return /(?:^|[\\/])(?:main\.(?:ts|js)|reseller(?:\.js)?)$/.test(script);
  }
}

if (isEntry()) {
  const rt = redacting({
    stdout: guardClosedStdout(process.stdout, process),
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    proc: process,
  });
  // The runtime's own warnings, and a crash below, go through the same filter as everything else.
  routeWarnings(process, rt.stderr);
  main(process.argv.slice(2), rt).then(
    (code) => {
      // Writes to a pipe are asynchronous: let stdout and stderr drain (results, the summary event),
      // then exit, so a stray timer cannot keep the process alive.
      process.exitCode = code;
      let pending = 2;
      const done = () => --pending === 0 && process.exit(code);
      rt.stdout.write("", done);
      process.stderr.write("", done);
    },
    (error: unknown) => {
      rt.stderr.write(`reseller: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(EXIT.failure);
    },
  );
}
