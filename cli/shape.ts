/**
 * Total readers for what the CLI looks at inside a succeeded Outcome's body. A 2xx body is whatever
 * the server or a proxy sent (`null`, an array, a number, an object without `data`), so the commands
 * read through these and get `undefined` — never a TypeError — for anything of the wrong shape (E5).
 */

/** A plain JSON object (not null, not an array), else undefined. */
export function recordOf(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** `body.data` when it is an object. */
export function dataRecordOf(body: unknown): Record<string, unknown> | undefined {
  return recordOf(recordOf(body)?.data);
}

/** `body.data` when it is a list. */
export function dataListOf(body: unknown): unknown[] | undefined {
  const data = recordOf(body)?.data;
  return Array.isArray(data) ? data : undefined;
}

/** An ISO time for a journal timestamp, or "(invalid time)": a row another tool wrote badly must not crash a listing. */
export function isoOf(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? "(invalid time)" : d.toISOString();
}

export const stringOf = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** A price object `{ amount: "4500.00", currency: "KZT" }` with both fields strings. */
export function priceOf(value: unknown): { amount: string; currency: string } | undefined {
  const p = recordOf(value);
  const amount = stringOf(p?.amount);
  const currency = stringOf(p?.currency);
  return amount !== undefined && currency !== undefined ? { amount, currency } : undefined;
}

export interface ListedDomain {
  uuid: string;
  name: string;
  status: string;
  expires_at: string;
  auto_renew: boolean;
}

/** A listed domain with the fields the CLI uses (uuid, name and a parseable expires_at), else undefined. */
export function listedDomainOf(item: unknown): ListedDomain | undefined {
  const d = recordOf(item);
  const uuid = stringOf(d?.uuid);
  const name = stringOf(d?.name);
  const expiresAt = stringOf(d?.expires_at);
  if (!d || uuid === undefined || name === undefined || expiresAt === undefined) return undefined;
  if (Number.isNaN(Date.parse(expiresAt))) return undefined;
  return {
    uuid,
    name,
    status: stringOf(d.status) ?? "unknown",
    expires_at: expiresAt,
    auto_renew: d.auto_renew === true,
  };
}
