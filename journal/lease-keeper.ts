/**
 * The worker side of leases (fleet mode): which journalled commands this client instance is working
 * on, one batched heartbeat (`renewLeases`) for all of them, and the checks the runner makes before
 * it sends a command again — so a worker that paused past its lease (GC, a partition to the
 * database) finds out before it sends or writes, and never moves a command another worker now owns.
 * The heartbeat runs only while something is held, so an idle client keeps no timer alive.
 */
import type { Clock } from "../runtime/clock";
import { LOCK_HOLDING_STATES } from "./command-state";
import { LeaseLostError } from "./errors";
import type { CommandRecord, Journal, Lease } from "./journal";

export interface LeaseKeeperOptions {
  journal: Journal;
  lease: Lease;
  clock: Clock;
  /** Time between heartbeats, ms (< lease.leaseMs). */
  heartbeatMs: number;
  /** A command this worker held was taken over by another worker. */
  onLost?: (commandId: string, currentOwner: string | null) => void;
  /** A heartbeat failed (the journal is unreachable); the next one retries. */
  onRenewError?: (error: unknown, commands: number) => void;
}

export interface LeaseKeeper {
  readonly lease: Lease;
  /** record() has just written `id` with this lease: the next acquire() needs no claim. */
  recorded(id: string): void;
  /**
   * The runner starts working on `id`: held from now until release(). A command this worker did
   * not just record or claim is claimed first; throws LeaseLostError when another worker holds it.
   */
  acquire(id: string): Promise<void>;
  /**
   * A call is about to send `id` again (a same-key call of a command journalled earlier): claims it
   * by id — ours already, or its lease expired — and keeps it ready for the runner's acquire().
   * undefined: another live worker holds it (nothing was written).
   */
  claimForCall(id: string): Promise<CommandRecord | undefined>;
  /** The call that claimed `id` answered without sending: drop the claim's readiness. */
  forget(id: string): void;
  /** recover() claimed `id` (the claim wrote the lease): held until release(). */
  adopt(id: string): void;
  /** Before sending `id` again: throws LeaseLostError if it was lost; renews first when the lease is getting old. */
  ensure(id: string): Promise<void>;
  /** Marks `id` as lost after a fenced write refused it. */
  lost(id: string, currentOwner: string | null): void;
  release(id: string): void;
  /** Ids currently held (the heartbeat renews these). */
  held(): string[];
  /** Ids this worker's own calls are working on (held, or just recorded): recovery leaves them alone. */
  busy(): string[];
  /** Stops the heartbeat; held commands keep their lease until it runs out. */
  stop(): void;
}

export function createLeaseKeeper(options: LeaseKeeperOptions): LeaseKeeper {
  const { journal, lease, clock, heartbeatMs } = options;
  const holds = new Map<string, { count: number; renewedAt: number }>();
  const fresh = new Map<string, number>(); // id → when record() wrote it
  const gone = new Map<string, string | null>(); // lost ids → who owns them now
  let beat: AbortController | undefined;

  const markLost = (id: string, currentOwner: string | null) => {
    if (gone.has(id)) return;
    gone.set(id, currentOwner);
    holds.delete(id);
    options.onLost?.(id, currentOwner);
  };

  const renew = async (ids: string[]) => {
    const started = clock.now(); // the lease runs from (no earlier than) when the renewal started
    const lostIds = await journal.renewLeases(lease, ids);
    const lostSet = new Set(lostIds);
    for (const id of ids) {
      const h = holds.get(id);
      if (h && !lostSet.has(id)) h.renewedAt = started;
    }
    if (lostIds.length > 0) {
      for (const id of lostIds) markLost(id, (await journal.get(id).catch(() => undefined))?.owner ?? null);
    }
    return lostSet;
  };

  const heartbeat = async (signal: AbortSignal) => {
    while (holds.size > 0 && !signal.aborted) {
      try {
        await clock.sleep(heartbeatMs, signal);
      } catch {
        return;
      }
      const ids = [...holds.keys()];
      if (ids.length === 0) break;
      try {
        await renew(ids);
      } catch (error) {
        options.onRenewError?.(error, ids.length);
      }
    }
    if (beat?.signal === signal) beat = undefined;
  };

  const hold = (id: string, renewedAt: number) => {
    const h = holds.get(id);
    if (h) h.count += 1;
    else holds.set(id, { count: 1, renewedAt });
    gone.delete(id);
    if (!beat) {
      beat = new AbortController();
      void heartbeat(beat.signal);
    }
  };

  return {
    lease,
    recorded(id) {
      fresh.set(id, clock.now());
      if (fresh.size > 10_000) fresh.delete(fresh.keys().next().value!); // a call that never reached the runner
    },
    async acquire(id) {
      const h = holds.get(id);
      if (h) {
        h.count += 1;
        return this.ensure(id);
      }
      const at = fresh.get(id);
      if (at !== undefined) {
        fresh.delete(id);
        hold(id, at);
        return;
      }
      const now = clock.now();
      const [rec] = await journal.claim({ ...lease, ids: [id], states: LOCK_HOLDING_STATES, limit: 1 });
      if (!rec) {
        const current = await journal.get(id);
        throw new LeaseLostError(id, lease.owner, current?.owner ?? null);
      }
      hold(id, now);
    },
    async claimForCall(id) {
      if (holds.has(id)) return journal.get(id); // held in this process already: acquire() counts it
      const now = clock.now();
      const [rec] = await journal.claim({ ...lease, ids: [id], states: LOCK_HOLDING_STATES, limit: 1 });
      if (!rec) return undefined;
      fresh.set(id, now);
      gone.delete(id);
      return rec;
    },
    forget(id) {
      fresh.delete(id);
    },
    adopt(id) {
      hold(id, clock.now());
    },
    async ensure(id) {
      if (gone.has(id)) throw new LeaseLostError(id, lease.owner, gone.get(id) ?? null);
      const h = holds.get(id);
      if (!h || clock.now() - h.renewedAt < lease.leaseMs - heartbeatMs) return;
      // The heartbeat is late (a pause, an unreachable journal): renew this one before it is sent again.
      const lostSet = await renew([id]);
      if (lostSet.has(id)) throw new LeaseLostError(id, lease.owner, gone.get(id) ?? null);
    },
    lost(id, currentOwner) {
      markLost(id, currentOwner);
    },
    release(id) {
      const h = holds.get(id);
      if (!h) return;
      if (--h.count <= 0) holds.delete(id);
      if (holds.size === 0) {
        beat?.abort();
        beat = undefined;
      }
    },
    held: () => [...holds.keys()],
    // A recorded id whose call never reached the runner stops counting once its lease could have run out.
    busy: () => [...holds.keys(), ...[...fresh].filter(([, at]) => clock.now() - at < lease.leaseMs).map(([id]) => id)],
    stop() {
      beat?.abort();
      beat = undefined;
      holds.clear();
    },
  };
}
