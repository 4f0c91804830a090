/**
 * The runtime's own warnings (process.emitWarning) on the CLI's stderr: piped, stderr carries only
 * JSON lines, so a warning becomes one `{"type":"warning"}` event instead of plain text `jq` trips
 * over. Node.js's ExperimentalWarning for node:sqlite is dropped: the CLI picks that driver on
 * purpose where better-sqlite3 is missing (sqlite-open.ts), and it is no news to the operator.
 */
import { jsonLine } from "./output";

type EmitWarning = (warning: string | Error, ...rest: unknown[]) => void;

export function routeWarnings(proc: NodeJS.Process, stderr: { isTTY?: boolean; write(s: string): unknown }): void {
  const original = proc.emitWarning.bind(proc) as EmitWarning;
  const routed: EmitWarning = (warning, ...rest) => {
    const options = rest[0];
    const name =
      typeof warning !== "string"
        ? warning.name
        : typeof options === "string"
          ? options
          : ((options as { type?: string } | undefined)?.type ?? "Warning");
    const message = typeof warning === "string" ? warning : warning.message;
    if (name === "ExperimentalWarning" && /\bSQLite\b/i.test(message)) return;
    if (!stderr.isTTY) {
      stderr.write(jsonLine({ at: new Date().toISOString(), type: "warning", name, message }));
      return;
    }
    original(warning, ...rest);
  };
  proc.emitWarning = routed;
}
