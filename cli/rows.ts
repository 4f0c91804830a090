/**
 * Validation of input rows, before anything is sent for them: domain names and zones, periods,
 * external_id, and duplicates within one input (the same row twice, or one external_id for two
 * different orders). Each problem is an `invalid` result carrying the row's line number.
 */
import { createHash } from "node:crypto";

const LABEL = /^(?!-)[a-z0-9\u0400-\u04ff-]{1,63}(?<!-)$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** The longest configured zone the name ends with, or null. */
export function zoneOf(name: string, zones: readonly string[]): string | null {
  const labels = name.split(".");
  for (let i = 1; i < labels.length; i++) {
    const zone = labels.slice(i).join(".");
    if (zones.includes(zone)) return zone;
  }
  return null;
}

/** A lower-cased domain name in a sold zone, or the reason it is not one. */
export function checkDomainName(raw: string, zones: readonly string[]): { name: string } | { error: string } {
  const name = raw.trim().toLowerCase().replace(/\.$/, "");
  if (name === "") return { error: "empty domain name" };
  if (name.length > 253 || !name.includes(".") || !name.split(".").every((l) => LABEL.test(l))) {
    return { error: `${JSON.stringify(raw)} is not a domain name (labels of a–z, 0–9 and -, separated by dots)` };
  }
  if (zoneOf(name, zones) === null) {
    return {
      error: `${name}: unknown zone .${name.split(".").slice(1).join(".")}; sold zones: ${zones
        .map((z) => "." + z)
        .join(" ")} (--zones to change)`,
    };
  }
  return { name };
}

export function checkPeriod(raw: unknown, fallback: number): { period: number } | { error: string } {
  if (raw === undefined || raw === null || raw === "") return { period: fallback };
  const value =
    typeof raw === "number" ? raw : typeof raw === "string" && /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(value) || value < 1 || value > 10) {
    return { error: `period must be a whole number of years from 1 to 10, got ${JSON.stringify(raw)}` };
  }
  return { period: value };
}

/**
 * Remembers each key's first line and body digest (32 bytes a row, so 100,000 rows stay small):
 * the same key with the same body is a duplicate line; with another body, a reused key.
 */
export class DuplicateTracker {
  private readonly seen = new Map<string, { line: number; digest: string }>();

  /** null for a first sighting, else the problem in words. */
  check(key: string, body: string, line: number, what: string): string | null {
    const digest = createHash("sha256").update(body).digest("base64");
    const first = this.seen.get(key);
    if (!first) {
      this.seen.set(key, { line, digest });
      return null;
    }
    if (first.digest === digest) return `duplicate of line ${first.line}; sent once only`;
    return `${what} is already used on line ${first.line} for a different order; give each order its own ${what}`;
  }
}
