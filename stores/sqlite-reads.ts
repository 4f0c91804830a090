/**
 * The SQLite journal's history reads (issue: costs follow the job, not the history): counts by
 * state, the latest command for a lock key, pages of commands newest first (per key, merged across
 * keys) — indexed queries plus one query for the rows' attempts.
 */
import type { CommandRecord, CommandState, ListCommandsFilter } from "../journal";
import { newestFirst } from "./journal-common";
import { rowToRecord, type AttemptRow, type CommandRow } from "./journal-rows";
import type { SqliteStatements } from "./sqlite-statements";

export function createSqliteReads(s: SqliteStatements) {
  const withAttempts = (rows: CommandRow[]): CommandRecord[] => {
    if (rows.length === 0) return [];
    const byCommand = new Map<string, AttemptRow[]>(rows.map((r) => [r.id, []]));
    for (const a of s.attemptsOf.all(JSON.stringify(rows.map((r) => r.id)))) byCommand.get(a.command_id)?.push(a);
    return rows.map((r) => rowToRecord(r, byCommand.get(r.id) ?? [], true));
  };
  return {
    countByState(filter?: { states?: readonly CommandState[] }): Partial<Record<CommandState, number>> {
      const out: Partial<Record<CommandState, number>> = {};
      for (const r of s.countFor(filter?.states ?? null).all()) out[r.state as CommandState] = r.n;
      return out;
    },
    latestByLockKey(apiKeyId: string, lockKey: string, since: number | undefined): CommandRecord | undefined {
      const row = s.latestByLock.get(apiKeyId, lockKey, since ?? Number.MIN_SAFE_INTEGER);
      return row ? withAttempts([row])[0] : undefined;
    },
    listCommands(filter: ListCommandsFilter): CommandRecord[] {
      if (filter.states?.length === 0) return [];
      const stmt = s.listCommandsFor({ states: filter.states ?? null, before: filter.before !== undefined });
      const params: Record<string, unknown> = { limit: filter.limit };
      if (filter.before) Object.assign(params, { beforeAt: filter.before.createdAt, beforeId: filter.before.id });
      const page = (apiKeyId: string) => stmt.all({ ...params, apiKeyId }) as CommandRow[];
      if (filter.apiKeyId !== undefined) return withAttempts(page(filter.apiKeyId));
      // Every key: each key's newest page, merged — the newest `limit` of all are among them.
      const rows: CommandRow[] = [];
      for (let k = s.firstKey.get()?.k; k != null; k = s.keyAfter.get(k)?.k) rows.push(...page(k));
      rows.sort((a, b) => newestFirst(Number(a.created_at), a.id, Number(b.created_at), b.id));
      return withAttempts(rows.slice(0, filter.limit));
    },
  };
}
