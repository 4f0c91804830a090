/**
 * What a renewal is, for the journal and the key: the target term, the Idempotency-Key derived from
 * the job's own inputs (D2, D4), and the newest journalled renewal of each domain (the re-run guard).
 */
import { COMMAND_STATES, InvalidArgumentError, type CommandRecord, type CommandState } from "../src/index";
import type { JobEnv } from "./job-session";
import { listedDomainOf } from "./shape";

export interface DomainRef {
  uuid: string;
  name: string;
  expires_at: string;
}

const ALL_STATES: readonly CommandState[] = COMMAND_STATES;

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

function domainOfPath(path: string): string | undefined {
  return /^\/domains\/([0-9a-f-]{36})\/renew$/i.exec(path)?.[1]?.toLowerCase();
}

/** The newest renewal command per domain in this journal for this key (any client, not only the CLI). */
export async function renewalIndex(env: JobEnv): Promise<Map<string, CommandRecord>> {
  const index = new Map<string, CommandRecord>();
  for (const record of await env.session.journal.listByState(ALL_STATES)) {
    if (record.operationId !== "domains.renew" || record.apiKeyId !== env.session.apiKeyId) continue;
    const uuid = domainOfPath(record.path);
    if (!uuid) continue;
    const previous = index.get(uuid);
    if (!previous || previous.createdAt <= record.createdAt) index.set(uuid, record);
  }
  return index;
}

/** Every listed domain; an item without a uuid, a name or a readable expires_at is skipped and counted (E5). */
export async function* listDomains(env: JobEnv, onSkipped?: (item: unknown) => void): AsyncGenerator<DomainRef> {
  for await (const item of env.session.client.domains.list({ query: { per_page: 100 } })) {
    const d = listedDomainOf(item);
    if (d) yield d;
    else onSkipped?.(item);
  }
}
