/**
 * In-memory Journal: the same semantics as the durable stores (state machine, Idempotency-Key
 * uniqueness per API key, the I6 per-domain lock, redaction) without durability. For tests and
 * single-process tools; a crash loses everything, so production uses SQLite or PostgreSQL.
 */
import { assertTransition, holdsLock } from "../journal";
import {
  DomainLockedError,
  DuplicateCommandError,
  UnknownCommandError,
  type AttemptRecord,
  type CommandPatch,
  type CommandRecord,
  type CommandState,
  type Journal,
  type NewCommand,
} from "../journal";
import {
  applyPatch,
  cleanAttempt,
  cloneRecord,
  copyBytes,
  defaultJournalClock,
  screenNewCommand,
  type JournalClock,
} from "./journal-common";

export interface MemoryJournalOptions {
  /** Source of updatedAt (default Date.now). */
  clock?: JournalClock;
}

/**
 * A journal in memory: the same rules as the durable stores (state machine, domain lock, no secrets)
 * but lost with the process. For tests and tools; production uses SQLite or PostgreSQL.
 */
export function createMemoryJournal(options: MemoryJournalOptions = {}): Journal {
  const clock = options.clock ?? defaultJournalClock;
  const byId = new Map<string, CommandRecord>(); // insertion order = tie-break for equal createdAt
  const byKey = new Map<string, string>(); // apiKeyId \0 idempotencyKey → id
  const locks = new Map<string, string>(); // environment \0 lockKey → id
  let closed = false;

  const keyOf = (apiKeyId: string, idem: string) => `${apiKeyId}\0${idem}`;
  const lockOf = (env: string, lockKey: string) => `${env}\0${lockKey}`;
  const check = () => {
    if (closed) throw new Error("The journal is closed.");
  };
  const must = (id: string) => {
    const r = byId.get(id);
    if (!r) throw new UnknownCommandError(id);
    return r;
  };

  return {
    async record(command: NewCommand) {
      check();
      screenNewCommand(command);
      const existing = byKey.get(keyOf(command.apiKeyId, command.idempotencyKey));
      if (existing !== undefined || byId.has(command.id)) {
        throw new DuplicateCommandError(command.apiKeyId, command.idempotencyKey, existing ?? command.id);
      }
      if (command.lockKey !== null) {
        const holder = locks.get(lockOf(command.environment, command.lockKey));
        if (holder !== undefined) throw new DomainLockedError(command.lockKey, holder);
        locks.set(lockOf(command.environment, command.lockKey), command.id);
      }
      const rec: CommandRecord = {
        ...command,
        body: copyBytes(command.body),
        state: "recorded",
        updatedAt: command.createdAt,
        attempts: [],
        resources: {},
        response: null,
        reconciliation: null,
        manualCheck: null,
      };
      byId.set(rec.id, rec);
      byKey.set(keyOf(rec.apiKeyId, rec.idempotencyKey), rec.id);
      return cloneRecord(rec);
    },

    async addAttempt(id: string, attempt: AttemptRecord) {
      check();
      const rec = must(id);
      rec.attempts.push(cleanAttempt(attempt));
      rec.updatedAt = clock.now();
    },

    async transition(id: string, to: CommandState, patch?: CommandPatch) {
      check();
      const rec = must(id);
      assertTransition(rec.state, to);
      const next = applyPatch(rec, patch); // computed fully before mutating: all or nothing (G3)
      Object.assign(rec, next, { state: to, updatedAt: clock.now() });
      if (!holdsLock(to) && rec.lockKey !== null) {
        const k = lockOf(rec.environment, rec.lockKey);
        if (locks.get(k) === rec.id) locks.delete(k);
      }
      return cloneRecord(rec);
    },

    async get(id: string) {
      check();
      const r = byId.get(id);
      return r && cloneRecord(r);
    },

    async findByIdempotencyKey(apiKeyId: string, idempotencyKey: string) {
      check();
      const id = byKey.get(keyOf(apiKeyId, idempotencyKey));
      return id === undefined ? undefined : cloneRecord(byId.get(id)!);
    },

    async listByState(states: readonly CommandState[]) {
      check();
      const list = [...byId.values()].filter((r) => states.includes(r.state));
      // Array.prototype.sort is stable: equal createdAt keeps insertion order.
      return list.sort((a, b) => a.createdAt - b.createdAt).map(cloneRecord);
    },

    async close() {
      closed = true;
    },
  };
}
