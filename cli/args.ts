/**
 * Argument helpers: values commander hands over as strings become typed values or a UsageError
 * that names the flag and an example. Also the A4 guard: a token on the command line is refused
 * before anything else runs, because shell history and `ps` are logs too.
 */
import { UsageError } from "./errors";

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** "30d", "12h", "90m", "45s", "1500ms", "2w" → milliseconds; a bare number is days. */
export function parseDuration(flag: string, raw: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)?\s*$/i.exec(raw);
  if (!m) throw new UsageError(`${flag} takes a duration such as 30d, 12h or 90s, got ${JSON.stringify(raw)}.`);
  return Math.round(Number(m[1]) * UNITS[(m[2] ?? "d").toLowerCase()]);
}

export function parseInteger(flag: string, raw: string, min: number, max: number): number {
  const value = /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`${flag} takes an integer from ${min} to ${max}, got ${JSON.stringify(raw)}.`);
  }
  return value;
}

export function parseChoice<T extends string>(flag: string, raw: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(raw)) {
    throw new UsageError(`${flag} takes one of ${choices.join(", ")}, got ${JSON.stringify(raw)}.`);
  }
  return raw as T;
}

/**
 * Anything that looks like a reseller token (A3), its secret part alone (64 base64url characters,
 * also as `--flag=value`), or a bearer header value.
 */
const TOKEN_SHAPED = /rsl_(?:test|live)_[A-Za-z0-9]{8,}|^bearer\s+\S{20,}|(?:^|=)[A-Za-z0-9_-]{64}$/i;

export const TOKEN_ADVICE =
  "Put the token in the RESELLER_API_TOKEN environment variable, or in a file only you can read and pass --token-file FILE.";

/**
 * A4: refuses `--token …` and any token-shaped argument. The message never repeats the value, only
 * its position, so the refusal itself cannot leak it.
 */
export function refuseTokenArguments(argv: readonly string[]): void {
  argv.forEach((arg, i) => {
    if (arg === "--token" || arg.startsWith("--token=") || arg === "--api-token" || arg.startsWith("--api-token=")) {
      throw new UsageError(
        `Tokens are never read from the command line (shell history and ps are logs too). ${TOKEN_ADVICE}`,
      );
    }
    if (TOKEN_SHAPED.test(arg)) {
      throw new UsageError(
        `Argument ${
          i + 1
        } looks like an API token or its secret part; tokens are never read from the command line (shell history and ps are logs too). ${TOKEN_ADVICE} Then revoke this token if it was typed into a shared shell.`,
      );
    }
  });
}

/** Milliseconds as "1h02m", "4m05s", "12s", "850ms". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return "?";
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}
