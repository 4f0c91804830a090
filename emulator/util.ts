// Small pure helpers: ids from the injected random source, RFC 3339 times, money in minor units.
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const B64URL = ALNUM + "-_";

export type Random = () => number;

function pick(random: Random, alphabet: string, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++)
    out += alphabet[Math.min(alphabet.length - 1, Math.floor(random() * alphabet.length))];
  return out;
}

/** Lowercase v4 UUID drawn from `random`, so a seeded emulator is reproducible. */
export function uuidV4(random: Random): string {
  const bytes: number[] = [];
  for (let i = 0; i < 16; i++) bytes.push(Math.min(255, Math.floor(random() * 256)));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A3: 24 ASCII letters/digits. */
export function publicKeyId(random: Random): string {
  return pick(random, ALNUM, 24);
}

/** A3: 64 base64url characters. */
export function keySecret(random: Random): string {
  return pick(random, B64URL, 64);
}

/** shapes.md: "whsec_" + 43 base64url characters. */
export function signingSecret(random: Random): string {
  return "whsec_" + pick(random, B64URL, 43);
}

export function authCode(random: Random): string {
  return pick(random, ALNUM, 12) + "!" + pick(random, ALNUM, 3);
}

/** RFC 3339 with an explicit +00:00 offset, as the guide's examples show (F2). */
export function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "+00:00");
}

export function parseTime(value: string | null | undefined): number | null {
  if (value == null) return null;
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : t;
}

/** Adds whole calendar years in UTC. */
export function addYears(ms: number, years: number): number {
  const d = new Date(ms);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.getTime();
}

export interface Money {
  amount: string;
  currency: string;
}

/** Minor units (tiyn) → {"amount":"4500.00","currency":"KZT"}. */
export function money(minor: number, currency = "KZT"): Money {
  const sign = minor < 0 ? "-" : "";
  const abs = Math.abs(minor);
  return { amount: `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`, currency };
}

export function base64urlEncode(text: string): string {
  return Buffer.from(text, "utf8").toString("base64url");
}

export function base64urlDecode(text: string): string | null {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return null;
  return Buffer.from(text, "base64url").toString("utf8");
}
