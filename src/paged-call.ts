/**
 * H1 cursor pagination. A list call returns a PagedCall: awaiting it gives the first page's
 * Outcome; iterating it yields every item across pages, passing `meta.next_cursor` back unchanged
 * (the query serializer URL-encodes it) and stopping at `next_cursor: null`. A page that does not
 * succeed ends the iteration with a PaginationError carrying that page's Outcome.
 */
import { PaginationError } from "../core";
import type { Outcome } from "../core";

export interface PagedCall<Item, Page> extends PromiseLike<Outcome<Page>>, AsyncIterable<Item> {
  /** Every page's Outcome in order; the first non-succeeded one is yielded last. */
  pages(): AsyncIterableIterator<Outcome<Page>>;
}

/** The cursor of the next page: undefined/null both end the list (only null is the documented end). */
function nextCursorOf(page: unknown): string | null {
  const meta = (page as { meta?: { next_cursor?: unknown } } | undefined)?.meta;
  return typeof meta?.next_cursor === "string" ? meta.next_cursor : null;
}

export function createPagedCall<Item, Page>(
  fetchPage: (cursor: string | undefined) => Promise<Outcome<Page>>,
  firstCursor: string | undefined,
): PagedCall<Item, Page> {
  let first: Promise<Outcome<Page>> | undefined;
  const firstPage = () => (first ??= fetchPage(firstCursor));

  async function* pages(): AsyncIterableIterator<Outcome<Page>> {
    let outcome = await firstPage();
    const seen = new Set<string>();
    for (;;) {
      yield outcome;
      if (outcome.kind !== "succeeded") return;
      const cursor = nextCursorOf(outcome.data);
      // A server that hands back a cursor we already followed would loop forever.
      if (cursor === null || seen.has(cursor)) return;
      seen.add(cursor);
      outcome = await fetchPage(cursor);
    }
  }

  async function* items(): AsyncIterableIterator<Item> {
    let index = 0;
    for await (const page of pages()) {
      if (page.kind !== "succeeded") throw new PaginationError(page, index);
      const list = (page.data as { data?: unknown } | undefined)?.data;
      if (Array.isArray(list)) yield* list as Item[];
      index += 1;
    }
  }

  return {
    then(onFulfilled, onRejected) {
      return firstPage().then(onFulfilled, onRejected);
    },
    pages,
    [Symbol.asyncIterator]: items,
  };
}
