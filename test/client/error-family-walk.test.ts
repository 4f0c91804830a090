/**
 * One error family, walked: each entry's factories given bad options throw a ResellerClientError
 * with a stable code and a message that names the fix — never a TypeError/RangeError/plain Error.
 */
import { describe, expect, it } from "vitest";
import * as api from "../../src/index";
import { createMemoryJournal } from "../../stores/memory-journal";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import { createPgJournal } from "../../stores/pg-journal";
import { createRedisWindowStore } from "../../stores/redis-window-store";

const TOKEN = `rsl_test_${"A".repeat(24)}.${"b".repeat(64)}`;

async function thrown(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

const cases: [string, () => unknown, string, RegExp][] = [
  [
    "reseller-api: retry.budget.capacity = -1",
    () => api.createResellerClient({ token: TOKEN, retry: { budget: { capacity: -1 } } } as never),
    "invalid_options",
    /retry\.budget\.capacity must be a finite number ≥ 0/,
  ],
  [
    "stores/sqlite: synchronous = 'bogus'",
    () => createSqliteJournal({ filename: ":memory:", synchronous: "bogus" as "full" }),
    "invalid_options",
    /"full".*or "normal"/,
  ],
  ["stores/sqlite: no filename", () => createSqliteJournal({} as never), "invalid_options", /filename must be a path/],
  [
    "stores/sqlite: filePermissions = 'maybe'",
    () => createSqliteJournal({ filename: ":memory:", filePermissions: "maybe" as "warn" }),
    "invalid_options",
    /"warn".*"refuse".*"ignore"/,
  ],
  ["stores/postgres: {}", () => createPgJournal({}), "invalid_options", /connectionString.*or \{ pool/],
  [
    "stores/postgres: a bad schema name",
    () => createPgJournal({ connectionString: "postgres://127.0.0.1:1/x", schema: "a b" }),
    "invalid_options",
    /schema must be a plain identifier/,
  ],
  ["stores/redis: {}", () => createRedisWindowStore({} as never), "invalid_options", /needs \{ redis:/],
  [
    "stores/redis: failover.share = 2",
    () => createRedisWindowStore({ redis: "redis://127.0.0.1:1", failover: { share: 2 } }),
    "invalid_options",
    /failover\.share must be in \(0, 1\]/,
  ],
  [
    "stores/redis: an http:// URL",
    () => createRedisWindowStore({ redis: "http://127.0.0.1:1" }),
    "invalid_options",
    /must be redis:\/\//,
  ],
  [
    "stores/memory: a call after close()",
    async () => {
      const j = createMemoryJournal();
      await j.close();
      await j.get("x");
    },
    "journal_closed",
    /create a new one/,
  ],
  [
    "stores/memory: malformed record()",
    () => createMemoryJournal().record({ id: "x" } as never),
    "invalid_argument",
    /must be a non-empty string/,
  ],
  [
    "stores/memory: prune({})",
    () => createMemoryJournal().prune({} as never),
    "invalid_argument",
    /settledBefore: <ms since epoch>/,
  ],
];

describe("error family: every entry's factories with bad options", () => {
  it.each(cases)("%s → ResellerClientError with a stable code and the fix", async (_name, fn, code, fix) => {
    const err = await thrown(fn);
    expect(err).toBeInstanceOf(api.ResellerClientError);
    expect(api.isResellerClientError(err)).toBe(true);
    expect((err as api.ResellerClientError).code).toBe(code);
    expect((err as Error).message).toMatch(fix);
    expect((err as Error).message).not.toContain(TOKEN.split(".")[1]);
  });
});
