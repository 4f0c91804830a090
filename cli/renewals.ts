/**
 * What a renewal is, for the journal and the key: the target term, the Idempotency-Key derived from
 * the job's own inputs (D2, D4), and the newest journalled renewal of each domain (the re-run guard).
 */
import { InvalidArgumentError, operationRoles, operationTable, type CommandRecord } from "../src/index";
import type { JobEnv } from "./job-session";
import type { JournalQueries } from "./journal-queries";
import { dataRecordOf, listedDomainOf } from "./shape";

export interface DomainRef {
  uuid: string;
  name: string;
  expires_at: string;
}

const RENEW_KEY_PREFIX = "rsl-cli:renew:";

/** The term end a renewal of `period` years produces, as a UTC date. */
export function targetTerm(expiresAt: string, period: number): string {
  const d = new Date(expiresAt);
  if (Number.isNaN(d.getTime()))
    throw new InvalidArgumentError(`expires_at ${JSON.stringify(expiresAt)} is not a date.`, "expires_at");
  d.setUTCFullYear(d.getUTCFullYear() + period);
  return d.toISOString().slice(0, 10);
}

/** D2: the job's own inputs, no personal data (the UUID, not the name), well under 160 characters. */
export function renewKey(domainUuid: string, period: number, target: string, attempt: number): string {
  return `${RENEW_KEY_PREFIX}${domainUuid.toLowerCase()}:${period}y:${target}${attempt > 1 ? `:a${attempt}` : ""}`;
}

/** I6: the lock key the client gives a renewal of this domain (its journal rows are found by it). */
function renewLockKey(domainUuid: string): string {
  return `domain:${domainUuid.toLowerCase()}`;
}

/**
 * The terms a journalled renewal went from and to, from a CLI key (`:<period>y:<target>`): what its
 * row reports on a re-run, when the domain's expiry already shows the renewed term.
 */
export function termsOfKey(idempotencyKey: string): { from: string; target: string } | undefined {
  if (!idempotencyKey.startsWith(RENEW_KEY_PREFIX)) return undefined;
  const match = /:(\d+)y:(\d{4}-\d{2}-\d{2})(?::a\d+)?$/.exec(idempotencyKey);
  if (!match) return undefined;
  const target = match[2];
  return { from: targetTerm(target, -Number(match[1])), target };
}

/**
 * The newest renewal command of this domain in this journal for this key (any client, not only the
 * CLI): one indexed lookup per row (I6 lock key), never a listing of the journal.
 */
export async function latestRenewal(
  queries: JournalQueries,
  apiKeyId: string,
  domainUuid: string,
): Promise<CommandRecord | undefined> {
  const record = await queries.latestByLockKey(apiKeyId, renewLockKey(domainUuid));
  return record?.operationId === operationRoles.domainRenewal ? record : undefined;
}

/** Every listed domain; an item without a uuid, a name or a readable expires_at is skipped and counted (E5). */
export async function* listDomains(env: JobEnv, onSkipped?: (item: unknown) => void): AsyncGenerator<DomainRef> {
  for await (const item of env.session.client.domains.list({ query: { per_page: 100 } })) {
    const d = listedDomainOf(item);
    if (d) yield d;
    else onSkipped?.(item);
  }
}

/** The API filters domains.list by exact names, up to 100 per request (then a FILE job costs ⌈names/100⌉ GETs). */
const LIST_FILTERS_BY_NAME = (operationTable[operationRoles.domainList].queryParams as readonly string[]).includes(
  "name",
);

/** Names per filtered `GET /domains?name=…` (the filter's maxItems). */
export const NAMES_PER_LOOKUP = 100;

/**
 * Name or UUID → the domain, costing what the file names, not what the account holds: a UUID is one
 * `GET /domains/{uuid}`; up to 100 names are one filtered `GET /domains?name=…&name=…` when the API
 * has the filter; else (or when a server ignores the filter) the listing is streamed, shared by every
 * row, only as far as the names asked for so far.
 */
export class DomainResolver {
  private readonly listed = new Map<string, DomainRef>();
  private listing: AsyncGenerator<DomainRef> | undefined;
  private listingDone = false;
  private pulling: Promise<void> = Promise.resolve();
  private filter = LIST_FILTERS_BY_NAME;

  constructor(
    private readonly env: JobEnv,
    private readonly onSkipped?: (item: unknown) => void,
  ) {}

  async byUuid(uuid: string): Promise<DomainRef | undefined> {
    const outcome = await this.env.session.client.domains.get({ domainUuid: uuid });
    if (outcome.kind !== "succeeded") {
      if (outcome.kind === "rejected") return undefined; // 404 (not this key's) or 422
      throw new Error(`GET /domains/${uuid} ended ${outcome.kind}; re-run`);
    }
    return listedDomainOf(dataRecordOf(outcome.data));
  }

  /** Up to NAMES_PER_LOOKUP names at once; the map holds the ones this key owns. */
  async byNames(names: readonly string[]): Promise<Map<string, DomainRef>> {
    const found = new Map<string, DomainRef>();
    if (names.length === 0) return found;
    if (this.filter) {
      const wanted = new Set(names);
      let ignored = false;
      const query = { name: [...wanted], per_page: 100 };
      for await (const item of this.env.session.client.domains.list({ query })) {
        const d = listedDomainOf(item);
        if (!d) {
          this.onSkipped?.(item);
          continue;
        }
        if (!wanted.has(d.name)) {
          ignored = true; // a server without the filter answers with the whole account: stop reading it
          break;
        }
        found.set(d.name, d);
      }
      if (!ignored) return found;
      this.filter = false;
    }
    for (const name of names) {
      const d = await this.byListing(name);
      if (d) found.set(name, d);
    }
    return found;
  }

  private async byListing(name: string): Promise<DomainRef | undefined> {
    for (;;) {
      const hit = this.listed.get(name);
      if (hit || this.listingDone) return hit;
      await this.pullPage();
    }
  }

  /** One more page of the shared listing (one puller at a time; others wait for it). */
  private pullPage(): Promise<void> {
    const before = this.listed.size;
    this.pulling = this.pulling.then(async () => {
      if (this.listed.size !== before || this.listingDone) return; // another row's pull already added a page
      this.listing ??= listDomains(this.env, this.onSkipped);
      for (let i = 0; i < 100; i++) {
        const next = await this.listing.next();
        if (next.done) {
          this.listingDone = true;
          return;
        }
        this.listed.set(next.value.name, next.value);
      }
    });
    return this.pulling;
  }
}
