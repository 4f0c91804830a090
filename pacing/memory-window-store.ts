/**
 * In-process WindowStore (I1: enough when one process owns the API key). The state transitions are
 * exported as pure functions so that the Redis store's Lua port can be tested against exactly the
 * same semantics. `WindowStore` describes the model.
 */
import type { ObserveParams, ReserveDecision, ReserveParams, WindowSnapshot, WindowStore } from "./window-store";
import { applyObserve, isCurrent, resetPeaks } from "./window-observe";

/** The full per-key record (what the Redis version keeps in one hash). */
export interface WindowRecord {
  /** Monotonic window counter; the windowId is its decimal string. */
  seq: number;
  open: boolean;
  windowStart: number;
  windowEnd: number | null;
  count: number;
  limit: number;
  /** `limit` was learned from the server by some pacer of the key (ReserveParams.limitAssumed). */
  limitLearned: boolean;
  /** windowMs and guardMs the open window was opened with (for confirmWindowStart). */
  windowMs: number;
  guardMs: number;
  /** The margin past the server's latest possible end (ReserveParams.endGuardMs) of the open window. */
  endGuardMs: number;
  nextSlotAt: number;
  pausedUntil: number;
  /** Grants ever made on this key (monotonic); each grant's ordinal is the value after it. */
  ord: number;
  /** Ordinal of the request the open window is dated from (its opener, or the one that re-dated it). */
  firstOrd: number;
  /**
   * The server's count is known to be ours from the window's first send: it opened at the confirmed
   * end of our previous window or after a 429 pause. While closed: what the next window inherits.
   */
  trusted: boolean;
  /**
   * C3, C10: the highest used count (limit − Remaining) an answer in the open window reported, when
   * that answer arrived and when its request was sent; `prior*` is the highest before that one.
   * The server's count only grows within its window, so a later request that reports no more is
   * proof that the window reset in between. used −1 = none yet.
   */
  peakUsed: number;
  peakAt: number;
  peakSentAt: number;
  priorUsed: number;
  priorAt: number;
  priorSentAt: number;
  /**
   * I3, C8: the confirmed end of the window before, when this window was opened by a send in that
   * window's last guard (a straddler, which may land in either server window); 0 when it was not.
   * A grant made before it is a straddler too: it counts here AND in the window before.
   */
  straddleUntil: number;
  /** Sends the window before can still take: its limit − its count − the straddlers granted. */
  straddleRoom: number;
}

export function emptyRecord(): WindowRecord {
  return {
    seq: 0,
    open: false,
    windowStart: 0,
    windowEnd: null,
    count: 0,
    limit: 0,
    limitLearned: false,
    windowMs: 0,
    guardMs: 0,
    endGuardMs: 0,
    nextSlotAt: 0,
    pausedUntil: 0,
    ord: 0,
    firstOrd: 0,
    trusted: false,
    peakUsed: -1,
    peakAt: 0,
    peakSentAt: 0,
    priorUsed: -1,
    priorAt: 0,
    priorSentAt: 0,
    straddleUntil: 0,
    straddleRoom: 0,
  };
}

export function toSnapshot(r: WindowRecord, now: number): WindowSnapshot {
  return {
    windowId: r.open ? String(r.seq) : null,
    windowStart: r.open ? r.windowStart : null,
    windowEnd: r.open ? r.windowEnd : null,
    count: r.open ? r.count : 0,
    limit: r.limit,
    limitLearned: r.limitLearned,
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

/** What reserve() would grant: when, whether it opens a window, and whether it is a straddler. */
interface GrantPlan {
  t: number;
  opens: boolean;
  trusted: boolean;
  /** I3: it may land in the open window's server window or in the next one (WindowRecord.straddleUntil). */
  straddles: boolean;
}

/** The windowId of a straddler: never the current window's, so its answer confirms and observes nothing. */
export function straddlerWindowId(seq: number | string): string {
  return `${seq}s`;
}

/**
 * When `r` would grant a send asked for at `p.now`, and whether that opens a new window (no mutation).
 * null: refused. C8 with a burst allowance: the spacing cursor is a token bucket of `burst` sends
 * refilled at one per spacingMs (L per window) — a send may go up to (burst − 1) spacings ahead of the
 * cursor, but only in a window an answer has confirmed (its count is then the server's, not a guess).
 */
function grantAt(r: WindowRecord, p: ReserveParams): GrantPlan | null {
  const { now } = p;
  // C8: even spacing.
  const t0 = Math.max(now, r.nextSlotAt);
  // C4: the window resets when it ends — but only at its CONFIRMED end (I3).
  const over = r.open && (r.windowEnd !== null ? t0 >= r.windowEnd : t0 >= unconfirmedDeadline(r) || r.count === 0);
  // C3: the first send opens the window; it is trusted when the server's window is known to be over.
  // C6: an unconfirmed window whose every send was given back (uncounted 401s and 5xx, an outage
  // behind a proxy) holds nothing of ours on the server: it is as if it never opened — holding it
  // to its unconfirmed deadline would stall the key for a window.
  if (!r.open) return { t: t0, opens: true, trusted: r.trusted, straddles: false };
  if (over) {
    return { t: t0, opens: true, trusted: r.windowEnd !== null || (r.count === 0 && r.trusted), straddles: false };
  }
  const burst = Math.max(1, Math.floor(p.burst ?? 1));
  const t =
    burst > 1 && (r.windowEnd !== null || r.trusted)
      ? Math.max(now, r.windowStart, r.nextSlotAt - (burst - 1) * p.spacingMs)
      : t0;
  // Room in the window, and the send still lands inside the server's window.
  const lastSafe = r.windowStart + r.windowMs - r.guardMs;
  if (r.count < p.limit && t < lastSafe) {
    if (t >= r.straddleUntil) return { t, opens: false, trusted: r.trusted, straddles: false };
    // Before the window before has surely ended: a straddler, while that window has room too.
    if (r.straddleRoom > 0) return { t, opens: false, trusted: r.trusted, straddles: true };
    return r.straddleUntil < lastSafe
      ? { t: r.straddleUntil, opens: false, trusted: r.trusted, straddles: false }
      : null;
  }
  // I3, C8: past the safe send instant of a confirmed window with room, before its end: the send
  // may land in this server window or open the next one. It goes now (the allowance applies as in
  // the window) and opens our next window (dated from it: the next server window cannot start
  // earlier), counted in both — instead of a wait of guard + round trip an idle key does not need.
  // The same holds for a trusted window no answer confirmed (its only sends were straddlers, whose
  // answers confirm nothing): its server window began at or after our first send, so every send
  // before the safe instant is in it; it may last until the unconfirmed deadline — holding the key
  // until then would stall an idle key for a window.
  if ((r.windowEnd !== null || r.trusted) && r.count < p.limit && r.straddleUntil <= t) {
    return { t, opens: true, trusted: true, straddles: true };
  }
  return null;
}

/** The margin a window opened with these params keeps past its latest possible server end. */
function endGuardOf(p: ReserveParams): number {
  return p.endGuardMs !== undefined && Number.isFinite(p.endGuardMs) && p.endGuardMs >= 0 ? p.endGuardMs : p.guardMs;
}

/**
 * The params a reservation runs with (C1, A5): a pacer that only assumes its limit gets the one
 * another pacer of the key learned — the count cap and the spacing of the real limit, so a second
 * client or a restarted process on a low-limit key never sends past it.
 */
function inForce(r: WindowRecord, p: ReserveParams): ReserveParams {
  if (!p.limitAssumed || !r.limitLearned || r.limit < 1 || r.limit === p.limit) return p;
  const spacingMs = Math.max(0, Math.floor((p.windowMs - p.guardMs) / r.limit));
  return { ...p, limit: r.limit, spacingMs, burst: Math.min(p.burst ?? 1, r.limit) };
}

/** The limit the record keeps: a learned one always; an assumed one only until a learned one came. */
function keepLimit(r: WindowRecord, p: ReserveParams): void {
  if (!p.limitAssumed) {
    r.limit = p.limit;
    r.limitLearned = true;
  } else if (!r.limitLearned) r.limit = p.limit;
}

/** WindowStore.reserve, as a pure transition. Mutates and returns `r`. */
export function applyReserve(r: WindowRecord, asked: ReserveParams): ReserveDecision {
  const p = inForce(r, asked);
  const { now } = p;
  // 1. C12: a 429 pause refuses every send of the key.
  if (now < r.pausedUntil) {
    return { granted: false, retryAt: r.pausedUntil, state: toSnapshot(r, now) };
  }
  const g = grantAt(r, p);
  if (g !== null) return commitGrant(r, p, g);
  // 6. Full (or past the safe send interval): wait for the confirmed end, or poll for it.
  keepLimit(r, p);
  const retryAt =
    r.windowEnd !== null ? Math.max(r.windowEnd, now) : Math.min(now + pollMs(p.spacingMs), unconfirmedDeadline(r));
  return { granted: false, retryAt: Math.max(retryAt, now), state: toSnapshot(r, now) };
}

function commitGrant(r: WindowRecord, p: ReserveParams, g: GrantPlan): ReserveDecision {
  const { t } = g;
  r.ord += 1;
  if (g.opens) {
    // A straddler opens the next window while the one before may still count it (I3).
    r.straddleUntil = g.straddles ? (r.windowEnd ?? unconfirmedDeadline(r)) : 0;
    r.straddleRoom = g.straddles ? p.limit - r.count - 1 : 0;
    r.trusted = g.trusted;
    r.seq += 1;
    r.open = true;
    r.windowStart = t;
    r.windowEnd = null;
    r.count = 1;
    r.windowMs = p.windowMs;
    r.guardMs = p.guardMs;
    r.endGuardMs = endGuardOf(p);
    r.firstOrd = r.ord;
    resetPeaks(r);
  } else {
    r.count += 1;
    if (g.straddles) r.straddleRoom -= 1;
  }
  keepLimit(r, p);
  r.nextSlotAt = Math.max(r.nextSlotAt, t) + p.spacingMs;
  const windowId = g.straddles ? straddlerWindowId(r.seq) : String(r.seq);
  return { granted: true, sendAt: t, windowId, ord: r.ord, state: toSnapshot(r, p.now) };
}

/**
 * reserve() only when it would grant a send at `p.now` exactly (no pause, spacing or allowance due);
 * otherwise null and nothing changes. The in-process pacer's fast path.
 */
function applyReserveNow(r: WindowRecord, asked: ReserveParams): ReserveDecision | null {
  const p = inForce(r, asked);
  if (p.now < r.pausedUntil) return null;
  const g = grantAt(r, p);
  return g !== null && g.t === p.now ? commitGrant(r, p, g) : null;
}

/** WindowStore.refund as a pure transition. */
export function applyRefund(r: WindowRecord, windowId: string): void {
  if (isCurrent(r, windowId)) r.count = Math.max(0, r.count - 1);
}

/** WindowStore.confirmWindowStart as a pure transition. */
export function applyConfirm(r: WindowRecord, windowId: string, receivedAt: number): void {
  if (!isCurrent(r, windowId)) return;
  // The server cannot have started its window before our first send of it.
  const end = Math.max(receivedAt, r.windowStart) + r.windowMs + r.endGuardMs;
  r.windowEnd = r.windowEnd === null ? end : Math.min(r.windowEnd, end);
}

/** WindowStore.pauseUntil as a pure transition. */
export function applyPause(r: WindowRecord, until: number, windowId: string | null, closesWindow: boolean): void {
  if (Number.isFinite(until)) r.pausedUntil = Math.max(r.pausedUntil, until);
  r.nextSlotAt = Math.max(r.nextSlotAt, r.pausedUntil);
  // C12: the next window starts fresh after the pause; a late 429 of an old window leaves it be,
  // and so does one that proves no window over (C11).
  if (
    closesWindow &&
    (windowId === null || isCurrent(r, windowId) || (r.open && windowId === straddlerWindowId(r.seq)))
  ) {
    r.open = false;
    r.trusted = true; // the server's window has reset by the pause's end (C11's Retry-After)
  }
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
    return applyReserveNow(this.record(key), params);
  }

  /** A pacer learned the key's limit (A5, C10): pacers that only assume one reserve with it (ReserveParams.limitAssumed). */
  learnLimitSync(key: string, limit: number): void {
    const r = this.record(key);
    r.limit = limit;
    r.limitLearned = true;
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

  pauseUntilSync(key: string, until: number, windowId: string | null, closesWindow: boolean): WindowSnapshot {
    const r = this.record(key);
    applyPause(r, until, windowId, closesWindow);
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

  async pauseUntil(
    key: string,
    until: number,
    windowId: string | null,
    closesWindow: boolean,
  ): Promise<WindowSnapshot> {
    return this.pauseUntilSync(key, until, windowId, closesWindow);
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
