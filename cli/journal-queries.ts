/**
 * What the CLI asks the journal, one row at a time (never the whole history): the newest command for
 * a domain's lock key, a command by id or Idempotency-Key, a page of commands, closing a manual check.
 * The Journal methods behind these (latestByLockKey, listCommands, resolveManualCheck) are optional
 * here so that a journal of an older store still works: then the answer is found by streaming pages,
 * or — for a store without any of them — by one listing, built once per run.
 */
import { COMMAND_STATES, type CommandRecord, type CommandState, type Journal } from "../src/index";

interface PageFilter {
  apiKeyId?: string;
  states?: readonly CommandState[];
  limit: number;
  before?: { createdAt: number; id: string };
}

export interface ManualResolution {
  as: "completed" | "failed";
  note: string;
  reference?: string;
  at: number;
}

/** The Journal methods this file uses when the store has them. */
type QueryJournal = Journal &
  Partial<{
    latestByLockKey(
      apiKeyId: string,
      lockKey: string,
      options?: { since?: number },
    ): Promise<CommandRecord | undefined>;
    listCommands(filter: PageFilter): Promise<CommandRecord[]>;
    resolveManualCheck(id: string, resolution: ManualResolution): Promise<CommandRecord>;
  }>;

/** Rows per page when streaming the journal (memory stays bounded by one page). */
const PAGE = 500;

export class JournalQueries {
  private readonly j: QueryJournal;
  private fallbackIndex: Promise<Map<string, CommandRecord>> | undefined;

  constructor(journal: Journal) {
    this.j = journal;
  }

  /** The newest command (any client) this key made for `lockKey`, e.g. `domain:<uuid>`. */
  async latestByLockKey(apiKeyId: string, lockKey: string): Promise<CommandRecord | undefined> {
    if (this.j.latestByLockKey) return this.j.latestByLockKey(apiKeyId, lockKey);
    return (await this.fallback(apiKeyId)).get(lockKey);
  }

  /** Commands newest first, streamed page by page. */
  async *stream(filter: Omit<PageFilter, "limit" | "before">): AsyncGenerator<CommandRecord> {
    if (!this.j.listCommands) {
      const all = await this.j.listByState(filter.states ?? COMMAND_STATES);
      const mine = all.filter((r) => filter.apiKeyId === undefined || r.apiKeyId === filter.apiKeyId);
      mine.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
      yield* mine;
      return;
    }
    let before: PageFilter["before"];
    for (;;) {
      const page = await this.j.listCommands({ ...filter, limit: PAGE, before });
      yield* page;
      if (page.length < PAGE) return;
      const last = page[page.length - 1];
      before = { createdAt: last.createdAt, id: last.id };
    }
  }

  /** Up to `limit` commands in `states`, newest first. */
  async list(states: readonly CommandState[], limit: number): Promise<CommandRecord[]> {
    if (this.j.listCommands) return this.j.listCommands({ states, limit });
    const out: CommandRecord[] = [];
    for await (const r of this.stream({ states })) {
      out.push(r);
      if (out.length >= limit) break;
    }
    return out;
  }

  /**
   * A command by its id, else by its Idempotency-Key: with the key id known (the token is set) one
   * indexed lookup; else the journal is streamed page by page until the key is found.
   */
  async find(idOrKey: string, apiKeyId: string | undefined): Promise<CommandRecord | undefined> {
    const byId = await this.j.get(idOrKey);
    if (byId) return byId;
    if (apiKeyId) return this.j.findByIdempotencyKey(apiKeyId, idOrKey);
    for await (const r of this.stream({})) if (r.idempotencyKey === idOrKey) return r;
    return undefined;
  }

  /** Closes a needs_manual_check command with the operator's words (journalled; sends nothing). */
  async resolveManualCheck(id: string, resolution: ManualResolution): Promise<CommandRecord> {
    if (this.j.resolveManualCheck) return this.j.resolveManualCheck(id, resolution);
    const ref = resolution.reference ? ` (support reference ${resolution.reference})` : "";
    return this.j.transition(id, resolution.as, {
      reconciliation: `resolved by an operator as ${resolution.as} at ${new Date(resolution.at).toISOString()}${ref}: ${resolution.note}`,
    });
  }

  /** A store without latestByLockKey: one listing per run, newest command per lock key. */
  private fallback(apiKeyId: string): Promise<Map<string, CommandRecord>> {
    this.fallbackIndex ??= this.j.listByState(COMMAND_STATES).then((all) => {
      const index = new Map<string, CommandRecord>();
      for (const r of all) {
        if (r.apiKeyId !== apiKeyId || !r.lockKey) continue;
        const previous = index.get(r.lockKey);
        if (!previous || previous.createdAt <= r.createdAt) index.set(r.lockKey, r);
      }
      return index;
    });
    return this.fallbackIndex;
  }
}
