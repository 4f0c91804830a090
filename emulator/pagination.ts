// H1: cursor pagination. Cursors are opaque base64url; per_page 1..100, default 25. Lists with
// `links` vs the webhook list's meta-only shape come from the operation's x-pagination.
import type { PaginationKind } from "../generated/operations";
import { validationError, type FieldErrors } from "./errors";
import type { Translate } from "./i18n";
import { firstAfter } from "./indexes";
import { base64urlDecode, base64urlEncode } from "./util";

export interface PageRequest {
  perPage: number;
  /** Items with seq greater than this come next (0 = first page). */
  after: number;
}

/** Reads and checks cursor/per_page; bad values → 422 {per_page:[…]} / {cursor:[…]}. */
export function readPage(query: URLSearchParams, tr: Translate): PageRequest {
  const errors: FieldErrors = {};
  let perPage = 25;
  const rawPer = query.get("per_page");
  if (rawPer !== null) {
    if (!/^\d+$/.test(rawPer.trim())) {
      errors.per_page = [tr("v.integer", { field: "per page" })];
    } else {
      perPage = Number(rawPer.trim());
      if (perPage < 1 || perPage > 100) errors.per_page = [tr("v.between", { field: "per page", min: 1, max: 100 })];
    }
  }
  let after = 0;
  const rawCursor = query.get("cursor");
  if (rawCursor !== null) {
    const decoded = decodeCursor(rawCursor);
    if (decoded === null) errors.cursor = [tr("v.cursor", { field: "cursor" })];
    else after = decoded;
  }
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return { perPage, after };
}

function encodeCursor(after: number): string {
  return base64urlEncode(JSON.stringify({ v: 1, after }));
}

function decodeCursor(cursor: string): number | null {
  const text = base64urlDecode(cursor);
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as { v?: unknown; after?: unknown };
    if (value?.v !== 1 || typeof value.after !== "number" || !Number.isInteger(value.after) || value.after < 0)
      return null;
    return value.after;
  } catch {
    return null;
  }
}

/**
 * Builds the list body; `items` must be sorted by seq and already scoped to the caller (A8). The
 * cursor is found by binary search and only the page (plus one look-ahead match) is visited, so a
 * page costs the same at 100k items as at 1k; `keep` filters while scanning forward.
 */
export function paginate<T extends { seq: number }>(
  items: readonly T[],
  page: PageRequest,
  kind: PaginationKind,
  url: URL,
  present: (item: T) => unknown,
  keep?: (item: T) => boolean,
): unknown {
  const slice: T[] = [];
  let more = false;
  for (let i = firstAfter(items, page.after); i < items.length; i++) {
    if (keep && !keep(items[i])) continue;
    if (slice.length === page.perPage) {
      more = true;
      break;
    }
    slice.push(items[i]);
  }
  const nextCursor = more ? encodeCursor(slice[slice.length - 1].seq) : null;
  const data = slice.map(present);
  const meta = { next_cursor: nextCursor, per_page: page.perPage };
  if (kind === "meta-only") return { data, meta };
  const base = new URL(url.pathname, url.origin);
  for (const [name, value] of url.searchParams) if (name !== "cursor") base.searchParams.append(name, value);
  const first = base.toString();
  let next: string | null = null;
  if (nextCursor) {
    const n = new URL(first);
    n.searchParams.set("cursor", nextCursor);
    next = n.toString();
  }
  return { data, links: { first, next }, meta };
}
