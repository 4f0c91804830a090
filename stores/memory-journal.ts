/**
 * In-memory Journal: the same semantics as the durable stores (state machine, Idempotency-Key
 * uniqueness per API key, the I6 per-domain lock, leases, redaction) without durability. For tests
 * and single-process tools; a crash loses everything, so production uses SQLite or PostgreSQL.
 */
import { assertAttemptMove, assertTransition, holdsLock, isTerminal } from "../journal";
import {
  DomainLockedError,
  DuplicateCommandError,
  LeaseLostError,
  UnknownCommandError,
  type AttemptRecord,
  type CommandPatch,
  type CommandRecord,
  type CommandState,
  type Journal,
  type Lease,
  type NewCommand,
} from "../journal";
import {
  applyPatch,
  claimable,
  cleanAttempt,
  cloneRecord,
  copyBytes,
  defaultJournalClock,
  screenLease,
  screenNewCommand,
  type JournalClock,
} from "./journal-common";

export interface MemoryJournalOptions {
  /** Source of updatedAt and of lease times (default Date.now). */
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
  /** Fencing: a leased write applies only while its owner still owns the command. */
  const fence = (rec: CommandRecord, lease: Lease | undefined) => {
    if (lease && rec.owner !== null && rec.owner !== lease.owner)
      throw new LeaseLostError(rec.id, lease.owner, rec.owner);
  };
  const stamp = (rec: CommandRecord, to: CommandState, lease: Lease | undefined, now: number) => {
    if (lease) rec.owner = lease.owner;
    if (isTerminal(to)) rec.leaseUntil = null;
    else if (lease) rec.leaseUntil = now + lease.leaseMs;
  };
  const release = (rec: CommandRecord) => {
    if (!holdsLock(rec.state) && rec.lockKey !== null) {
      const k = lockOf(rec.environment, rec.lockKey);
      if (locks.get(k) === rec.id) locks.delete(k);
    }
  };

  return {
    async record(command: NewCommand, lease?: Lease) {
      check();
      screenNewCommand(command);
      if (lease) screenLease(lease);
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
        owner: lease?.owner ?? null,
        leaseUntil: lease ? clock.now() + lease.leaseMs : null,
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

    async addAttempt(id: string, attempt: AttemptRecord, then, lease) {
      check();
      const rec = must(id);
      fence(rec, lease);
      const now = clock.now();
      if (then) {
        assertAttemptMove(rec.state, then.to);
        const next = applyPatch(rec, then.patch);
        Object.assign(rec, next, { state: then.to });
        stamp(rec, then.to, lease, now);
        release(rec);
      } else {
        stamp(rec, rec.state, lease, now);
      }
      rec.attempts.push(cleanAttempt(attempt));
      rec.updatedAt = now;
    },

    async transition(id: string, to: CommandState, patch?: CommandPatch, lease?: Lease) {
      check();
      const rec = must(id);
      fence(rec, lease);
      assertTransition(rec.state, to);
      const next = applyPatch(rec, patch); // computed fully before mutating: all or nothing (G3)
      const now = clock.now();
      Object.assign(rec, next, { state: to, updatedAt: now });
      stamp(rec, to, lease, now);
      release(rec);
      return cloneRecord(rec);
    },

    async renewLeases(lease: Lease, ids: readonly string[]) {
      check();
      screenLease(lease);
      const lost: string[] = [];
      const until = clock.now() + lease.leaseMs;
      for (const id of ids) {
        const rec = byId.get(id);
        if (rec?.owner !== lease.owner) lost.push(id);
        else if (rec.leaseUntil !== null) rec.leaseUntil = until;
      }
      return lost;
    },

    async claim(request) {
      check();
      screenLease(request);
      const now = clock.now();
      const out: CommandRecord[] = [];
      const list = [...byId.values()].sort((a, b) => a.createdAt - b.createdAt);
      for (const rec of list) {
        if (out.length >= request.limit) break;
        if (!claimable(rec, request, now)) continue;
        rec.owner = request.owner;
        rec.leaseUntil = now + request.leaseMs;
        out.push(cloneRecord(rec));
      }
      return out;
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
