/**
 * In-memory Journal: the same semantics as the durable stores (state machine, Idempotency-Key
 * uniqueness per API key, the I6 per-domain lock, leases, redaction) without durability. For tests
 * and single-process tools; a crash loses everything, so production uses SQLite or PostgreSQL.
 */
import { assertAttemptMove, assertTransition, holdsLock, isTerminal, TERMINAL_STATES } from "../journal";
import {
  DomainLockedError,
  InvalidTransitionError,
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
  type StatePage,
} from "../journal";
import {
  applyPatch,
  claimable,
  cleanAttempt,
  cloneRecord,
  copyBytes,
  defaultJournalClock,
  isSensitiveRequest,
  resolutionPatch,
  screenLease,
  screenListFilter,
  screenStatePage,
  screenNewCommand,
  screenPrune,
  screenResolution,
  type JournalClock,
  newestFirst,
  guardClosed,
} from "./journal-common";
import { checkOptionNames, type OptionNames } from "./store-options";

export interface MemoryJournalOptions {
  /** Source of updatedAt and of lease times (default Date.now). */
  clock?: JournalClock | undefined;
}

const OPTION_NAMES: OptionNames<MemoryJournalOptions> = { clock: true };

/**
 * A journal in memory: the same rules as the durable stores (state machine, domain lock, no secrets)
 * but lost with the process. For tests and tools; production uses SQLite or PostgreSQL.
 */
export function createMemoryJournal(options: MemoryJournalOptions = {}): Journal {
  checkOptionNames(options, OPTION_NAMES, "createMemoryJournal()");
  const clock = options.clock ?? defaultJournalClock;
  const byId = new Map<string, CommandRecord>(); // insertion order = tie-break for equal createdAt
  const byKey = new Map<string, string>(); // apiKeyId \0 idempotencyKey → id
  const locks = new Map<string, string>(); // environment \0 lockKey → id
  // Indexes, so claim/listByState/countByState cost what the states hold, not the whole history.
  const byState = new Map<CommandState, Set<string>>();
  const seqOf = new Map<string, number>(); // insertion order: the tie-break for equal createdAt
  const byLockKey = new Map<string, string[]>(); // apiKeyId \0 lockKey → ids, in insertion order
  const sensitive = new Set<string>(); // H2: bodies dropped when the command settles
  let seq = 0;
  let closed = false;

  const stateSet = (state: CommandState) => {
    let set = byState.get(state);
    if (!set) byState.set(state, (set = new Set()));
    return set;
  };
  /** Moves `rec` to `to` in the state index; a settle drops a sensitive request body (H2). */
  const setState = (rec: CommandRecord, to: CommandState) => {
    if (rec.state !== to) {
      byState.get(rec.state)?.delete(rec.id);
      stateSet(to).add(rec.id);
    }
    rec.state = to;
    if (isTerminal(to) && sensitive.delete(rec.id)) {
      // H2: a sensitive command keeps no bodies once settled — neither its request nor its response.
      rec.body = null;
      rec.bodyPruned = true;
      if (rec.response) rec.response = { status: rec.response.status, body: null };
    }
  };
  const inStates = (states: readonly CommandState[]) => {
    const out: CommandRecord[] = [];
    for (const st of new Set(states)) for (const id of byState.get(st) ?? []) out.push(byId.get(id)!);
    return out.sort((a, b) => a.createdAt - b.createdAt || seqOf.get(a.id)! - seqOf.get(b.id)!);
  };

  const keyOf = (apiKeyId: string, idem: string) => `${apiKeyId}\0${idem}`;
  const lockOf = (env: string, lockKey: string) => `${env}\0${lockKey}`;
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

  return guardClosed(
    {
      async record(command: NewCommand, lease?: Lease) {
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
          bodyPruned: false,
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
        seqOf.set(rec.id, seq++);
        stateSet("recorded").add(rec.id);
        if (isSensitiveRequest(rec)) sensitive.add(rec.id);
        if (rec.lockKey !== null) {
          const k = keyOf(rec.apiKeyId, rec.lockKey);
          const list = byLockKey.get(k);
          if (list) list.push(rec.id);
          else byLockKey.set(k, [rec.id]);
        }
        return cloneRecord(rec);
      },

      async addAttempt(id: string, attempt: AttemptRecord, then, lease) {
        const rec = must(id);
        fence(rec, lease);
        const now = clock.now();
        if (then) {
          assertAttemptMove(rec.state, then.to);
          const next = applyPatch(rec, then.patch);
          Object.assign(rec, next);
          setState(rec, then.to);
          stamp(rec, then.to, lease, now);
          release(rec);
        } else {
          stamp(rec, rec.state, lease, now);
        }
        rec.attempts.push(cleanAttempt(attempt));
        rec.updatedAt = now;
      },

      async transition(id: string, to: CommandState, patch?: CommandPatch, lease?: Lease) {
        const rec = must(id);
        fence(rec, lease);
        assertTransition(rec.state, to);
        const next = applyPatch(rec, patch); // computed fully before mutating: all or nothing (G3)
        const now = clock.now();
        Object.assign(rec, next, { updatedAt: now });
        setState(rec, to);
        stamp(rec, to, lease, now);
        release(rec);
        return cloneRecord(rec);
      },

      async renewLeases(lease: Lease, ids: readonly string[]) {
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
        screenLease(request);
        const now = clock.now();
        const out: CommandRecord[] = [];
        for (const rec of inStates(request.states)) {
          if (out.length >= request.limit) break;
          if (!claimable(rec, request, now)) continue;
          rec.owner = request.owner;
          rec.leaseUntil = now + request.leaseMs;
          out.push(cloneRecord(rec));
        }
        return out;
      },

      async get(id: string) {
        const r = byId.get(id);
        return r && cloneRecord(r);
      },

      async findByIdempotencyKey(apiKeyId: string, idempotencyKey: string) {
        const id = byKey.get(keyOf(apiKeyId, idempotencyKey));
        return id === undefined ? undefined : cloneRecord(byId.get(id)!);
      },

      async listByState(states: readonly CommandState[], page?: StatePage) {
        screenStatePage(page);
        const all = inStates(states);
        if (!page) return all.map(cloneRecord);
        const after = page.after;
        const afterSeq = after ? (seqOf.get(after.id) ?? Infinity) : -Infinity;
        const from = after
          ? all.findIndex(
              (r) => r.createdAt > after.createdAt || (r.createdAt === after.createdAt && seqOf.get(r.id)! > afterSeq),
            )
          : 0;
        return from < 0 ? [] : all.slice(from, from + page.limit).map(cloneRecord); // only the page is copied
      },

      async prune(options) {
        const { settledBefore, limit } = screenPrune(options);
        const due = inStates(TERMINAL_STATES)
          .filter((r) => r.updatedAt < settledBefore && (!r.bodyPruned || (r.response?.body ?? null) !== null))
          .sort((a, b) => a.updatedAt - b.updatedAt);
        const batch = limit === null ? due : due.slice(0, limit);
        for (const rec of batch) {
          rec.body = null;
          rec.bodyPruned = true;
          sensitive.delete(rec.id);
          if (rec.response) rec.response = { status: rec.response.status, body: null };
        }
        return { pruned: batch.length };
      },

      async countByState(filter) {
        const out: Partial<Record<CommandState, number>> = {};
        for (const [state, ids] of byState) {
          if (ids.size > 0 && (filter?.states === undefined || filter.states.includes(state))) out[state] = ids.size;
        }
        return out;
      },

      async latestByLockKey(apiKeyId, lockKey, opts) {
        let best: CommandRecord | undefined;
        for (const id of byLockKey.get(keyOf(apiKeyId, lockKey)) ?? []) {
          const rec = byId.get(id)!;
          if (opts?.since !== undefined && rec.createdAt < opts.since) continue;
          if (!best || rec.createdAt >= best.createdAt) best = rec; // later insertion wins a tie
        }
        return best && cloneRecord(best);
      },

      async listCommands(filter) {
        screenListFilter(filter);
        const pool = filter.states ? inStates(filter.states) : [...byId.values()];
        const { before } = filter;
        return pool
          .filter(
            (r) =>
              (filter.apiKeyId === undefined || r.apiKeyId === filter.apiKeyId) &&
              (before === undefined ||
                r.createdAt < before.createdAt ||
                (r.createdAt === before.createdAt && r.id < before.id)),
          )
          .sort((a, b) => newestFirst(a.createdAt, a.id, b.createdAt, b.id))
          .slice(0, filter.limit)
          .map(cloneRecord);
      },

      async resolveManualCheck(id, resolution) {
        const r = screenResolution(resolution);
        const rec = must(id);
        if (rec.state !== "needs_manual_check") throw new InvalidTransitionError(rec.state, r.as);
        const next = applyPatch(rec, resolutionPatch(rec.manualCheck, r));
        Object.assign(rec, next, { updatedAt: clock.now() });
        setState(rec, r.as);
        stamp(rec, r.as, undefined, rec.updatedAt);
        release(rec);
        return cloneRecord(rec);
      },

      async withdraw(id, lease) {
        const rec = byId.get(id);
        if (rec?.state !== "recorded" || rec.attempts.length > 0) return false;
        if (lease && rec.owner !== null && rec.owner !== lease.owner) return false;
        byId.delete(id);
        byKey.delete(keyOf(rec.apiKeyId, rec.idempotencyKey));
        byState.get("recorded")?.delete(id);
        seqOf.delete(id);
        sensitive.delete(id);
        if (rec.lockKey !== null) {
          const k = lockOf(rec.environment, rec.lockKey);
          if (locks.get(k) === id) locks.delete(k);
          const ids = byLockKey.get(keyOf(rec.apiKeyId, rec.lockKey));
          const at = ids?.indexOf(id) ?? -1;
          if (at >= 0) ids!.splice(at, 1);
        }
        return true;
      },

      async close() {
        closed = true;
      },
    },
    () => closed,
  );
}
