/**
 * In-process WindowStore (I1: enough when one process owns the API key). The state transitions are
 * exported as pure functions so that the Redis Lua port (stores/redis-window-store.ts) can be
 * tested against exactly the same semantics. See window-store.ts for the model.
 */
import type { ObserveParams, ReserveDecision, ReserveParams, WindowSnapshot, WindowStore } from "./window-store";

/** The full per-key record (what the Redis version keeps in one hash). */
export interface WindowRecord {
  /** Monotonic window counter; the windowId is its decimal string. */
  seq: number;
  open: boolean;
  windowStart: number;
  windowEnd: number | null;
  count: number;
  limit: number;
  /** windowMs and guardMs the open window was opened with (for confirmWindowStart). */
  windowMs: number;
  guardMs: number;
  nextSlotAt: number;
  pausedUntil: number;
}

export function emptyRecord(): WindowRecord {
  return {
    seq: 0,
    open: false,
    windowStart: 0,
    windowEnd: null,
    count: 0,
    limit: 0,
    windowMs: 0,
    guardMs: 0,
    nextSlotAt: 0,
    pausedUntil: 0,
  };
}

export function toSnapshot(r: WindowRecord, now: number): WindowSnapshot {
  return {
    windowId: r.open ? String(r.seq) : null,
    windowStart: r.open ? r.windowStart : null,
    windowEnd: r.open ? r.windowEnd : null,
    count: r.open ? r.count : 0,
    limit: r.limit,
    nextSlotAt: r.nextSlotAt,
    pausedUntil: r.pausedUntil > 0 && r.pausedUntil > now ? r.pausedUntil : null,
  };
}

/** Longest a window's end may stay unconfirmed before it is given up (window-store.ts, step 3). */
function unconfirmedDeadline(r: WindowRecord): number {
  return r.windowStart + 2 * r.windowMs + r.guardMs;
}

/** Poll interval while a full window waits for its first response (its end is unknown). */
function pollMs(spacingMs: number): number {
  return Math.max(1, Math.min(spacingMs, 250));
}

/** WindowStore.reserve, as a pure transition. Mutates and returns `r`. */
export function applyReserve(r: WindowRecord, p: ReserveParams): ReserveDecision {
  const { now } = p;
  // 1. C12: a 429 pause refuses every send of the key.
  if (now < r.pausedUntil) {
    return { granted: false, retryAt: r.pausedUntil, state: toSnapshot(r, now) };
  }
  // 2. C8: even spacing.
  const t = Math.max(now, r.nextSlotAt);
  // 3. C4: the window resets when it ends — but only at its CONFIRMED end (I3).
  if (r.open) {
    const over = r.windowEnd !== null ? t >= r.windowEnd : t >= unconfirmedDeadline(r);
    if (over) r.open = false;
  }
  // 4. C3: the first send opens the window.
  if (!r.open) {
    r.seq += 1;
    r.open = true;
    r.windowStart = t;
    r.windowEnd = null;
    r.count = 1;
    r.limit = p.limit;
    r.windowMs = p.windowMs;
    r.guardMs = p.guardMs;
    r.nextSlotAt = t + p.spacingMs;
    return { granted: true, sendAt: t, windowId: String(r.seq), state: toSnapshot(r, now) };
  }
  // 5. Room in the window, and the send still lands inside the server's window.
  r.limit = p.limit;
  if (r.count < p.limit && t < r.windowStart + r.windowMs - r.guardMs) {
    r.count += 1;
    r.nextSlotAt = t + p.spacingMs;
    return { granted: true, sendAt: t, windowId: String(r.seq), state: toSnapshot(r, now) };
  }
  // 6. Full (or past the safe send interval): wait for the confirmed end, or poll for it.
  const retryAt =
    r.windowEnd !== null ? Math.max(r.windowEnd, now) : Math.min(now + pollMs(p.spacingMs), unconfirmedDeadline(r));
  return { granted: false, retryAt: Math.max(retryAt, now), state: toSnapshot(r, now) };
}

function isCurrent(r: WindowRecord, windowId: string): boolean {
  return r.open && String(r.seq) === windowId;
}

/** WindowStore.refund as a pure transition. */
export function applyRefund(r: WindowRecord, windowId: string): void {
  if (isCurrent(r, windowId)) r.count = Math.max(0, r.count - 1);
}

/** WindowStore.confirmWindowStart as a pure transition. */
export function applyConfirm(r: WindowRecord, windowId: string, receivedAt: number): void {
  if (!isCurrent(r, windowId)) return;
  // The server cannot have started its window before our first send of it.
  const end = Math.max(receivedAt, r.windowStart) + r.windowMs + r.guardMs;
  r.windowEnd = r.windowEnd === null ? end : Math.min(r.windowEnd, end);
}

/** WindowStore.observe as a pure transition. */
export function applyObserve(r: WindowRecord, p: ObserveParams): void {
  if (!isCurrent(r, p.windowId)) return;
  if (!Number.isFinite(p.remaining) || !Number.isFinite(p.limit)) return;
  // C10: a snapshot raises the known used count, never lowers it.
  const used = Math.max(0, p.limit - p.remaining);
  r.count = Math.max(r.count, used);
}

/** WindowStore.pauseUntil as a pure transition. */
export function applyPause(r: WindowRecord, until: number, windowId: string | null): void {
  if (Number.isFinite(until)) r.pausedUntil = Math.max(r.pausedUntil, until);
  r.nextSlotAt = Math.max(r.nextSlotAt, r.pausedUntil);
  // C12: the next window starts fresh after the pause; a late 429 of an old window leaves it be.
  if (windowId === null || isCurrent(r, windowId)) r.open = false;
}

/**
 * The in-process store. Every method runs synchronously under the hood, so each is atomic. The
 * `…Sync` methods are the same transitions without the Promise: the pacer calls them directly when
 * its store is this one (no microtask hop and no promise per send on the hot path); the async
 * WindowStore methods wrap them for every other caller.
 */
export class MemoryWindowStore implements WindowStore {
  private readonly records = new Map<string, WindowRecord>();

  private record(key: string): WindowRecord {
    let r = this.records.get(key);
    if (!r) {
      r = emptyRecord();
      this.records.set(key, r);
    }
    return r;
  }

  reserveSync(key: string, params: ReserveParams): ReserveDecision {
    return applyReserve(this.record(key), params);
  }

  /**
   * reserve() only when it would grant a send at `params.now` exactly (no pause, spacing due);
   * otherwise null and nothing changes (the pacer then queues as usual).
   */
  reserveNowSync(key: string, params: ReserveParams): ReserveDecision | null {
    const r = this.record(key);
    if (params.now < r.pausedUntil || r.nextSlotAt > params.now) return null;
    const d = applyReserve(r, params);
    return d.granted ? d : null; // a refusal mutates nothing (applyReserve steps 1 and 6)
  }

  refundSync(key: string, windowId: string): WindowSnapshot {
    const r = this.record(key);
    applyRefund(r, windowId);
    return toSnapshot(r, Number.NEGATIVE_INFINITY);
  }

  confirmWindowStartSync(key: string, windowId: string, receivedAt: number): WindowSnapshot {
    const r = this.record(key);
    applyConfirm(r, windowId, receivedAt);
    return toSnapshot(r, receivedAt);
  }

  observeSync(key: string, params: ObserveParams): WindowSnapshot {
    const r = this.record(key);
    applyObserve(r, params);
    return toSnapshot(r, params.now);
  }

  pauseUntilSync(key: string, until: number, windowId: string | null): WindowSnapshot {
    const r = this.record(key);
    applyPause(r, until, windowId);
    return toSnapshot(r, Number.NEGATIVE_INFINITY);
  }

  async reserve(key: string, params: ReserveParams): Promise<ReserveDecision> {
    return this.reserveSync(key, params);
  }

  async refund(key: string, windowId: string): Promise<WindowSnapshot> {
    return this.refundSync(key, windowId);
  }

  async confirmWindowStart(key: string, windowId: string, receivedAt: number): Promise<WindowSnapshot> {
    return this.confirmWindowStartSync(key, windowId, receivedAt);
  }

  async observe(key: string, params: ObserveParams): Promise<WindowSnapshot> {
    return this.observeSync(key, params);
  }

  async pauseUntil(key: string, until: number, windowId: string | null): Promise<WindowSnapshot> {
    return this.pauseUntilSync(key, until, windowId);
  }

  async peek(key: string, now: number): Promise<WindowSnapshot> {
    return toSnapshot(this.records.get(key) ?? emptyRecord(), now);
  }

  async close(): Promise<void> {
    this.records.clear();
  }
}

/** Factory (style: one exported factory per module; the class is exported for instanceof checks). */
export function createMemoryWindowStore(): WindowStore {
  return new MemoryWindowStore();
}
