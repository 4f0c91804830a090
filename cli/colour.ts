/**
 * Colours on a terminal only, never in a pipe, a file or JSON: off with NO_COLOR (any value,
 * no-color.org), --no-color or TERM=dumb. One switch for the process, set once from the flags.
 */
import type { ResultKind } from "./exit-codes";

let allowed = true;

/** Called once per invocation with the flags and the environment. */
export function configureColour(flag: boolean, env: NodeJS.ProcessEnv): void {
  allowed = flag && !env.NO_COLOR && env.TERM !== "dumb";
}

/** Whether text written to `stream` may carry colour. */
export function colourOn(stream: object): boolean {
  return allowed && (stream as { isTTY?: boolean }).isTTY === true;
}

const CODES = { red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, dim: 2, bold: 1 } as const;
type Hue = keyof typeof CODES;

function paint(on: boolean, hue: Hue, text: string): string {
  return on ? `\u001b[${CODES[hue]}m${text}\u001b[${hue === "bold" || hue === "dim" ? 22 : 39}m` : text;
}

const KIND_HUE: Record<ResultKind, Hue> = {
  done: "green",
  already_done: "green",
  accepted: "cyan",
  dry_run: "cyan",
  rejected: "red",
  invalid: "red",
  unknown: "yellow",
  manual: "magenta",
  pending: "yellow",
};

export function paintKind(on: boolean, kind: ResultKind): string {
  return paint(on, KIND_HUE[kind], kind);
}

// eslint-disable-next-line no-control-regex -- matching the SGR escapes this module writes
const ANSI_RE = /\u001b\[[0-9;]*m/g;

/** Visible length (escapes removed). */
export function visibleLength(text: string): number {
  return text.replace(ANSI_RE, "").length;
}
