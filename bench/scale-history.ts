// Issue 27's journals with a year of history, filled through the public Journal API: renewals the
// way the client writes them (record, then one attempt that settles), spread over 365 days by the
// journal's injected clock, so prune({ settledBefore: now − 30 d }) leaves what a 30-day retention
// leaves. Plus the two journal costs measured at each size: µs per new command and recover() of
// 1,000 unsettled commands (the shape of bench/journal.ts's recovery bench).
import { createHash } from "node:crypto";
import { performance } from "node:perf_hooks";
import { createEmulator } from "../emulator/public";
import { VirtualClock, createResellerClient, type Journal, type NewCommand } from "../src/index";

const DAY = 86_400_000;
const YEAR = 365 * DAY;
const enc = new TextEncoder();
const RENEW_BODY = enc.encode('{"period":1}');

/** A clock the fill moves through the past year; `null` follows the wall clock. */
export interface HistoryClock {
  at: number | null;
  now(): number;
}

export function historyClock(): HistoryClock {
  return {
    at: null,
    now() {
      return this.at ?? Date.now();
    },
  };
}

function fingerprint(method: string, path: string, body: Uint8Array | null): string {
  return createHash("sha256")
    .update(`${method}\n${path}\n`)
    .update(body ?? new Uint8Array())
    .digest("hex");
}

/** A renewal of `domainUuid` as the CLI journals it: key, lock key and body of a real renewal. */
export function renewalCommand(apiKeyId: string, domainUuid: string, createdAt: number, term: string): NewCommand {
  const path = `/domains/${domainUuid}/renew`;
  return {
    id: crypto.randomUUID(),
    environment: "test",
    apiKeyId,
    operationId: "domains.renew",
    method: "POST",
    path,
    query: "",
    body: RENEW_BODY,
    fingerprint: fingerprint("POST", path, RENEW_BODY),
    idempotencyKey: `rsl-cli:renew:${domainUuid}:1y:${term}:${crypto.randomUUID().slice(0, 8)}`,
    externalId: null,
    lockKey: `domain:${domainUuid}`,
    createdAt,
  };
}

/** What the client writes after a 202: one attempt that moves recorded → sending → accepted → settled. */
async function settle(journal: Journal, c: NewCommand, at: number): Promise<void> {
  const operationUuid = crypto.randomUUID();
  const domainUuid = c.path.split("/")[2];
  await journal.addAttempt(
    c.id,
    { at, delayMs: 0, status: 202, requestId: crypto.randomUUID() },
    {
      to: "succeeded",
      patch: {
        response: {
          status: 202,
          body: {
            data: {
              uuid: operationUuid,
              type: "domain.renew",
              status: "pending",
              domain_uuid: domainUuid,
              next_check_at: new Date(at + 60_000).toISOString(),
              created_at: new Date(at).toISOString(),
            },
          },
        },
        resources: { operationUuid, domainUuid },
      },
    },
  );
}

/**
 * Appends settled renewals until the journal holds `to` history rows (from `from`), oldest first over
 * the year before `endAt`; stops early at `deadline` (performance.now()) and returns the count reached.
 * The first `jobDomains` rows renew the CLI job's own domains 11 months ago (so its per-row look-ups
 * find a row); the rest renew other domains of the account.
 */
export async function fillHistory(
  journal: Journal,
  clock: HistoryClock,
  o: {
    apiKeyId: string;
    from: number;
    to: number;
    total: number;
    endAt: number;
    jobDomains: string[];
    deadline: number;
  },
): Promise<number> {
  let next = o.from;
  const lanes = 16;
  const step = YEAR / o.total;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < o.to && performance.now() < o.deadline) {
        const i = next++;
        const job = o.jobDomains[i];
        const at = job ? o.endAt - 335 * DAY + i : o.endAt - YEAR + i * step;
        clock.at = at;
        const c = renewalCommand(o.apiKeyId, job ?? crypto.randomUUID(), at, "2025-01-01");
        await journal.record(c);
        clock.at = at + 1000;
        await settle(journal, c, at + 1000);
      }
    }),
  );
  clock.at = null;
  return Math.min(next, o.to);
}

/**
 * µs per new command (record + the settling attempt), one at a time, after `warmup` commands: every
 * sample, so a caller can pool rounds taken in turn with another journal.
 */
export async function commandTimesUs(journal: Journal, apiKeyId: string, n: number, warmup = 50): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n + warmup; i++) {
    const now = Date.now();
    const c = renewalCommand(apiKeyId, crypto.randomUUID(), now, "2026-12-31");
    const t = performance.now();
    await journal.record(c);
    await settle(journal, c, now);
    if (i >= warmup) times.push((performance.now() - t) * 1000);
  }
  return times;
}

/**
 * recover() of 1,000 unsettled commands in this journal, next to its history: renewals of fresh
 * domains that the server accepted (the operation completed meanwhile) but whose settle was lost.
 * Returns recover()'s wall time and how many it settled.
 */
export async function recoverThousand(journal: Journal, n = 1000): Promise<{ ms: number; resolved: number }> {
  const clock = new VirtualClock();
  const emulator = createEmulator({
    clock,
    defaultRateLimit: 10_000,
    operationPolicy: { pendingMs: 100, processingMs: 100 },
  });
  const key = emulator.control.createKey({ environment: "test", rate_limit_per_minute: 10_000 });
  emulator.control.deposit(key.public_key_id, n * 10_000_00);
  const base = "http://127.0.0.1/api/reseller/v1";
  try {
    for (let i = 0; i < n; i++) {
      const domain = emulator.control.createDomain({ token: key.token, name: `rec-${i}.kz` });
      const c = renewalCommand(key.public_key_id, domain.uuid, Date.now(), "2027-01-01");
      await journal.record(c);
      const res = await emulator.fetch(`${base}${c.path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key.token}`,
          "idempotency-key": c.idempotencyKey,
          "content-type": "application/json",
        },
        body: '{"period":1}',
      });
      const data = (await res.json()) as { data: { uuid: string } };
      if (res.status !== 202) throw new Error(`recover setup: ${res.status} ${JSON.stringify(data)}`);
      await journal.addAttempt(
        c.id,
        { at: Date.now(), delayMs: 0, status: 202, requestId: `r${i}` },
        {
          to: "accepted",
          patch: { resources: { operationUuid: data.data.uuid, domainUuid: domain.uuid } },
        },
      );
    }
    clock.advance(10_000);
    const client = createResellerClient({
      baseUrl: base,
      token: key.token,
      journal,
      clock,
      pacing: { initialLimit: 10_000 }, // C1: the highest limit a key can have
      fetch: (request) => emulator.fetch(request),
    });
    const t = performance.now();
    const summary = await client.recover({ concurrency: 8 });
    const ms = performance.now() - t;
    await client.close();
    return { ms, resolved: summary.resolved.length };
  } finally {
    await emulator.close();
  }
}
