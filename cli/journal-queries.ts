/**
 * What the CLI asks the journal, one row at a time (never the whole history): the newest command for
 * a domain's lock key, a command by id or Idempotency-Key, a page of commands, closing a manual check,
 * pruning old bodies. Each is one indexed Journal query (latestByLockKey, findByIdempotencyKey,
 * listCommands, resolveManualCheck, prune), so a run's cost grows with the job, not with a year of journalled commands.
 */
import {
  TERMINAL_STATES,
  type CommandRecord,
  type CommandState,
  type Journal,
  type ManualResolution,
} from "../src/index";

/** Rows per page when streaming the journal (memory stays bounded by one page). */
const PAGE = 500;
/** The most rows one listCommands() call returns. */
const MAX_PAGE = 1000;

export class JournalQueries {
  constructor(private readonly j: Journal) {}

  /** The newest command (any client) this key made for `lockKey`, e.g. `domain:<uuid>`. */
  latestByLockKey(apiKeyId: string, lockKey: string): Promise<CommandRecord | undefined> {
    return this.j.latestByLockKey(apiKeyId, lockKey);
  }

  /**
   * Commands newest first, streamed page by page (`pageSize` rows per query, at most the journal's
   * 1,000); with `before`, only the ones older than that position (a command's createdAt and id).
   */
  async *stream(
    filter: { apiKeyId?: string; states?: readonly CommandState[]; before?: { createdAt: number; id: string } },
    pageSize = PAGE,
  ): AsyncGenerator<CommandRecord> {
    const { before: start, ...rest } = filter;
    const limit = Math.max(1, Math.min(MAX_PAGE, pageSize));
    let before = start;
    for (;;) {
      const page = await this.j.listCommands({ ...rest, limit, before });
      yield* page;
      if (page.length < limit) return;
      const last = page[page.length - 1];
      before = { createdAt: last.createdAt, id: last.id };
    }
  }

  /**
   * A command by its id, else by its Idempotency-Key: with the key id known (the token is set) one
   * indexed lookup; else the journal is streamed page by page (bounded memory) until the key is found.
   */
  async find(idOrKey: string, apiKeyId: string | undefined): Promise<CommandRecord | undefined> {
    const byId = await this.j.get(idOrKey);
    if (byId) return byId;
    if (apiKeyId) return this.j.findByIdempotencyKey(apiKeyId, idOrKey);
    for await (const r of this.stream({})) if (r.idempotencyKey === idOrKey) return r;
    return undefined;
  }

  /**
   * H2 retention: the settled commands `prune(settledBefore)` would empty — still holding a body,
   * last updated before `settledBefore` — streamed; only commands created before it can qualify.
   */
  async *prunable(settledBefore: number): AsyncGenerator<CommandRecord> {
    let before = { createdAt: settledBefore, id: "" };
    for (;;) {
      const page = await this.j.listCommands({ states: TERMINAL_STATES, limit: PAGE, before });
      for (const r of page) if (r.updatedAt < settledBefore && (!r.bodyPruned || r.response?.body != null)) yield r;
      if (page.length < PAGE) return;
      const last = page[page.length - 1];
      before = { createdAt: last.createdAt, id: last.id };
    }
  }

  /** Drops the bodies of settled commands last updated before `settledBefore` (never an unsettled one). */
  prune(settledBefore: number): Promise<{ pruned: number }> {
    return this.j.prune({ settledBefore });
  }

  /** Commands in each state, or in each of `states` only (one COUNT … GROUP BY). */
  countByState(states?: readonly CommandState[]): Promise<Partial<Record<CommandState, number>>> {
    return this.j.countByState(states ? { states } : undefined);
  }

  /** Closes a needs_manual_check command with the operator's words (journalled; sends nothing). */
  resolveManualCheck(id: string, resolution: ManualResolution): Promise<CommandRecord> {
    return this.j.resolveManualCheck(id, resolution);
  }
}
