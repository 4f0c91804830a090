// `reseller`: the operator CLI. No shebang here: tsup adds it to dist/reseller.js.
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { CommanderError } from "commander";
import { InsecureTransportError, InvalidOptionsError, InvalidTokenError, ResellerClientError } from "../src/index";
import { refuseTokenArguments } from "./args";
import { SetupError, UsageError } from "./errors";
import { EXIT, type ExitCode } from "./exit-codes";
import type { Runtime } from "./job-session";
import { buildProgram } from "./program";

/** Runs one CLI invocation (argv without node and script) and returns its exit code. */
export async function main(argv: readonly string[], rt: Runtime): Promise<ExitCode> {
  let code: ExitCode = EXIT.ok;
  try {
    refuseTokenArguments(argv);
    const program = buildProgram(rt, (c) => (code = c));
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
      return EXIT.usage; // commander already printed the message and the --help hint
    }
    if (
      error instanceof UsageError ||
      error instanceof InvalidTokenError ||
      error instanceof InvalidOptionsError ||
      error instanceof InsecureTransportError
    ) {
      rt.stderr.write(`reseller: ${error.message}\n`);
      return EXIT.usage;
    }
    if (error instanceof SetupError || error instanceof ResellerClientError) {
      rt.stderr.write(`reseller: ${error.message}\n`);
      return EXIT.failure;
    }
    rt.stderr.write(`reseller: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
    if (rt.env.RESELLER_DEBUG && error instanceof Error && error.stack) rt.stderr.write(error.stack + "\n");
    return EXIT.failure;
  }
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
  const rt: Runtime = {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    proc: process,
  };
  main(process.argv.slice(2), rt).then(
    (code) => {
      // Writes to a pipe are asynchronous: let stdout and stderr drain (results, the summary event),
      // then exit, so a stray timer cannot keep the process alive.
      process.exitCode = code;
      let pending = 2;
      const done = () => --pending === 0 && process.exit(code);
      process.stdout.write("", done);
      process.stderr.write("", done);
    },
    (error: unknown) => {
      process.stderr.write(`reseller: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(EXIT.failure);
    },
  );
}
