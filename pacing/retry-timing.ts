/**
 * Pure retry timing (C12, I2): Retry-After parsing, exponential backoff with jitter, and the pause
 * after a 429. No clock, no I/O: `now` and `random` are passed in so every branch is testable.
 */
import { DEFAULT_RETRY } from "../core";

/** Longest wait we ever honour from a Retry-After header (1 hour). Larger values are clamped. */
export const MAX_RETRY_AFTER_MS = 3_600_000;

export interface RetryAfter {
  /** Milliseconds to wait from `nowMs`, 0..MAX_RETRY_AFTER_MS. */
  readonly ms: number;
  /** "seconds": delta-seconds (the API's own limiter, C11); "http-date": a proxy's date (C12). */
  readonly source: "seconds" | "http-date";
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAYS_SHORT = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
const DAYS_LONG = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];

// RFC 9110 §5.6.7: IMF-fixdate, and the obsolete rfc850-date and asctime-date a recipient must accept.
const IMF_FIXDATE = /^([A-Za-z]{3}), (\d{2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC850_DATE = /^([A-Za-z]{6,9}), (\d{2})-([A-Za-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME_DATE = /^([A-Za-z]{3}) ([A-Za-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

function clampMs(ms: number): number {
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}

/** Date.UTC with range checks, so "Feb 30" or "25:00:00" is rejected instead of rolled over. */
function utc(year: number, monthName: string, day: number, h: number, m: number, s: number): number | null {
  const month = MONTHS.indexOf(monthName.toLowerCase());
  if (month < 0 || h > 23 || m > 59 || s > 60) return null; // s = 60: leap second, allowed by RFC 5322
  const t = Date.UTC(year, month, day, h, m, Math.min(s, 59));
  const d = new Date(t);
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month || d.getUTCDate() !== day) return null;
  return t;
}

/** Parses an HTTP-date (any of the three RFC 9110 forms) to ms since the epoch, or null. */
export function parseHttpDate(value: string, nowMs: number): number | null {
  let m = IMF_FIXDATE.exec(value);
  if (m) {
    if (!DAYS_SHORT.includes(m[1].toLowerCase())) return null;
    return utc(Number(m[4]), m[3], Number(m[2]), Number(m[5]), Number(m[6]), Number(m[7]));
  }
  m = RFC850_DATE.exec(value);
  if (m) {
    if (!DAYS_LONG.includes(m[1].toLowerCase())) return null;
    // RFC 9110: a two-digit year more than 50 years in the future means the most recent past
    // year with the same last two digits.
    const nowYear = new Date(nowMs).getUTCFullYear();
    let year = Math.floor(nowYear / 100) * 100 + Number(m[4]);
    if (year > nowYear + 50) year -= 100;
    return utc(year, m[3], Number(m[2]), Number(m[5]), Number(m[6]), Number(m[7]));
  }
  m = ASCTIME_DATE.exec(value);
  if (m) {
    if (!DAYS_SHORT.includes(m[1].toLowerCase())) return null;
    return utc(Number(m[7]), m[2], Number(m[3].trim()), Number(m[4]), Number(m[5]), Number(m[6]));
  }
  return null;
}

/**
 * Parses a Retry-After value (RFC 9110 §10.2.3): `1*DIGIT` delta-seconds or an HTTP-date.
 * Negative, fractional, empty or unparseable values give null (the caller falls back to backoff).
 * A date in the past gives 0. Anything above MAX_RETRY_AFTER_MS is clamped to it — a hostile or
 * broken proxy cannot stall the queue for days or overflow a timer. Never throws.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): RetryAfter | null {
  if (typeof value !== "string") return null;
  const v = value.trim(); // OWS around a field value is not part of it
  if (v.length === 0 || v.length > 64) return null;
  if (/^\d+$/.test(v)) {
    // Huge digit strings become Infinity or lose precision; both clamp to the maximum.
    const seconds = Number(v);
    return { ms: clampMs(seconds * 1000), source: "seconds" };
  }
  const at = parseHttpDate(v, Number.isFinite(nowMs) ? nowMs : 0);
  if (at === null) return null;
  return { ms: clampMs(at - nowMs), source: "http-date" };
}

export interface BackoffOptions {
  /**
   * Delay before jitter for attempt 0, ms.
   * @default DEFAULT_RETRY.baseMs (1000)
   */
  baseMs?: number | undefined;
  /**
   * The delay never exceeds this, jitter included, ms.
   * @default DEFAULT_RETRY.capMs (32 000)
   */
  capMs?: number | undefined;
  /** Uniform in [0, 1) (default Math.random). Out-of-range results are clamped. */
  random?: (() => number) | undefined;
}

function unit(random: () => number): number {
  const r = random();
  return Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0.5;
}

/**
 * I2 (bounded exponential backoff with jitter): `delay = min(cap, base·2^attempt) · random(0.5, 1.5)`,
 * with the cap applied AFTER the jitter too, so the delay never exceeds capMs. Instead of clipping (which would pile half of all late retries onto
 * exactly capMs and resynchronise them — the herd the jitter exists to break), the jitter range
 * [0.5·d, 1.5·d] is clipped to [0.5·d, min(1.5·d, cap)] and drawn uniformly from that.
 * While 1.5·base·2^attempt ≤ cap this is exactly the formula above.
 * `attempt` is 0 for the first retry; negative/NaN counts as 0.
 */
export function backoffDelay(attempt: number, opts: BackoffOptions = {}): number {
  const baseMs = Math.max(0, opts.baseMs ?? DEFAULT_RETRY.baseMs);
  const capMs = Math.max(0, opts.capMs ?? DEFAULT_RETRY.capMs);
  const a = Number.isFinite(attempt) && attempt > 0 ? Math.floor(attempt) : 0;
  // 2^1024 = Infinity: still capped (and 0 · Infinity would be NaN, hence the baseMs test).
  const d = baseMs === 0 ? 0 : Math.min(capMs, baseMs * 2 ** Math.min(a, 1024));
  const lo = 0.5 * d;
  const hi = Math.min(1.5 * d, capMs);
  return Math.min(capMs, lo + unit(opts.random ?? Math.random) * (hi - lo));
}

export interface PauseOptions extends BackoffOptions {
  /** Shortest pause after any 429 (default 250 ms): `Retry-After: 0` never becomes a busy loop. */
  floorMs?: number | undefined;
  /** Fixed part of the random margin added to a Retry-After (default 250 ms). */
  jitterMs?: number | undefined;
  /** Proportional part of the margin, as a fraction of Retry-After (default 0.05 = 5 %). */
  jitterRatio?: number | undefined;
}

/**
 * How long to pause the whole key after a 429 (C12). `attempt` = how many times this command has
 * already been retried (0 on its first 429).
 * - Retry-After N > 0 → N + margin, margin uniform in [0, jitterMs + jitterRatio·N): the server's
 *   window has reset by then, and clients sharing a key do not all come back in the same ms.
 * - Retry-After 0 → floorMs + margin on the first 429; from the second 429 in a row on it is
 *   treated as no information: max(floorMs, backoffDelay(attempt − 1)) + margin.
 * - No usable header → max(floorMs, backoffDelay(attempt)) (bounded exponential backoff, I2).
 * The result is always ≥ floorMs and finite.
 */
export function pauseAfter429(retryAfter: { ms: number } | null, attempt: number, opts: PauseOptions = {}): number {
  const floorMs = Math.max(0, opts.floorMs ?? 250);
  const jitterMs = Math.max(0, opts.jitterMs ?? 250);
  const ratio = Math.max(0, opts.jitterRatio ?? 0.05);
  const random = opts.random ?? Math.random;
  const a = Number.isFinite(attempt) && attempt > 0 ? Math.floor(attempt) : 0;
  const ms = retryAfter && Number.isFinite(retryAfter.ms) ? clampMs(retryAfter.ms) : null;
  if (ms === null) return Math.max(floorMs, backoffDelay(a, opts));
  if (ms === 0) {
    const base = a === 0 ? floorMs : Math.max(floorMs, backoffDelay(a - 1, opts));
    return base + unit(random) * jitterMs;
  }
  return Math.max(floorMs, ms + unit(random) * (jitterMs + ratio * ms));
}
