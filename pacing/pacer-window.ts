/**
 * The window-accounting side of the pacer: per-key state, the guard in force, learning the limit,
 * and what a released ticket tells the window store (C3, C6, C10, C12, I3). The pump and the
 * queue (pacer.ts, pacer-queue.ts) decide who sends; this decides what each answer proves.
 */
import type { PacingEvent } from "../core";
import type { Clock } from "../runtime/clock";
import type { MemoryWindowStore } from "./memory-window-store";
import type { WaitEnds, WaitQueue } from "./pacer-queue";
import type { PacerOptions, PacerWaitReason, PacingTicket, ReleaseResult } from "./pacer-types";
import { parseRetryAfter, pauseAfter429 } from "./retry-timing";
import type { ObserveParams, ReserveDecision, WindowSnapshot, WindowStore } from "./window-store";

/** What a ticket remembers of its grant. */
export type Grant = Pick<Extract<ReserveDecision, { granted: true }>, "windowId" | "ord" | "sendAt">;

const MAX_LIMIT = 10_000; // C1

export interface KeyState {
  queue: WaitQueue;
  inFlight: number;
  pumping: boolean;
  limit: number;
  /** `limit` came from the server (A5, C10, or another pacer of the key through the store), not initialLimit. */
  limitLearned: boolean;
  view: WindowSnapshot | null;
  /** Local mirror of the pause, so a grant sleeping towards its sendAt notices a fresh 429. */
  pausedUntil: number;
  /** Round-trip times of the last attempts (ms), newest last; they raise the guard. */
  rtts: number[];
  /** Ends the pump's current sleep early (a release, an abort or a new limit changed something). */
  wakers: Set<() => void>;
  waitEnds: WaitEnds;
  /** While the store refuses sends: when the key can send again, and why (for deadlines). */
  blockedUntil: number;
  blockedBy: "pause" | "window";
  /** The grant the pump holds while it sleeps towards its sendAt (granted, not sent yet); null: none. */
  held: Grant | null;
}

/** 1 when the pump holds a grant of the same window made after `grant` (granted, not sent yet). */
function laterUnsent(held: Grant | null, grant: Grant): number {
  if (held?.windowId !== grant.windowId) return 0;
  return held.ord !== undefined && grant.ord !== undefined && held.ord > grant.ord ? 1 : 0;
}

export function wake(s: KeyState): void {
  if (s.wakers.size === 0) return;
  const wakers = [...s.wakers];
  s.wakers.clear();
  for (const w of wakers) w();
}

export interface WindowAccountingDeps {
  store: WindowStore;
  /** The in-process store, when it is the store: its synchronous transitions skip a promise each. */
  memory: MemoryWindowStore | null;
  clock: Clock;
  windowMs: number;
  guardMs: number;
  random: () => number;
  pause: PacerOptions["pause"];
  emit: (e: PacingEvent) => void;
}

export function createWindowAccounting(deps: WindowAccountingDeps) {
  const { store, memory, clock, windowMs, guardMs, random, emit } = deps;

  /** The guard in force for `s`: configured, or the slowest recent round trip (bounded). */
  function guardFor(s: KeyState): number {
    const slowest = s.rtts.length > 0 ? Math.max(...s.rtts) : 0;
    return Math.ceil(Math.max(guardMs, Math.min(slowest, windowMs / 40)));
  }

  function learn(apiKeyId: string, s: KeyState, limit: number): void {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) return;
    const first = !s.limitLearned;
    s.limitLearned = true;
    // Other clients of the key in this process reserve with it from their next send on (C1, A5).
    if (memory && (first || limit !== s.limit)) memory.learnLimitSync(apiKeyId, limit);
    if (limit === s.limit) return;
    s.limit = limit;
    emit({ type: "limit-learned", apiKeyId, limit });
    wake(s); // a higher limit may free a slot now
  }

  /** A limit another pacer of the key learned, handed back by the store: ours while we only assume one. */
  function adopt(apiKeyId: string, s: KeyState, state: WindowSnapshot): void {
    if (!s.limitLearned && state.limitLearned === true && state.limit >= 1) learn(apiKeyId, s, state.limit);
  }

  function storeFailed(apiKeyId: string, s: KeyState, error: unknown): void {
    emit({ type: "store-error", apiKeyId, error });
    wake(s);
  }

  function makeTicket(
    apiKeyId: string,
    s: KeyState,
    grant: Grant,
    waitedMs: number,
    waitReason?: PacerWaitReason,
  ): PacingTicket {
    let released = false;
    const sentAt = clock.now();
    // C8: requests already in flight when this one left may reach the server after it.
    const inFlightBefore = s.inFlight - 1;
    return {
      waitedMs,
      waitReason,
      release(result) {
        if (released) return;
        released = true;
        s.inFlight -= 1;
        const rtt = result.receivedAt - sentAt;
        if (Number.isFinite(rtt) && rtt >= 0) {
          s.rtts.push(rtt);
          if (s.rtts.length > 16) s.rtts.shift();
        }
        onRelease(apiKeyId, s, grant, inFlightBefore, result);
        wake(s);
      },
    };
  }

  function onRelease(apiKeyId: string, s: KeyState, grant: Grant, inFlightBefore: number, r: ReleaseResult): void {
    const { windowId } = grant;
    /** C10, and C3's re-dating: the answer with what proves which server window it was counted in. */
    const observed = (remaining: number): ObserveParams => ({
      windowId,
      remaining,
      limit: r.limit != null && Number.isFinite(r.limit) ? r.limit : s.limit,
      now: r.receivedAt,
      ord: grant.ord,
      sentAt: grant.sendAt,
      slack: inFlightBefore,
      // C10: a later grant of ours still waiting for its slot is not in this answer's count.
      unsent: laterUnsent(s.held, grant),
    });
    if (r.limit != null) learn(apiKeyId, s, r.limit);
    const rateLimited = r.isRateLimit === true || r.status === 429;
    // C3 starts the server's window at the first COUNTED request, so only an answer known to have
    // passed the limiter bounds it: one with X-RateLimit-* (C10), or an API 2xx. A 401 (C6), a 503
    // or a reset may come from a request the server never counted, earlier than the first counted
    // one; confirming the window from it would end ours before the server's (a 429 next window).
    const passedLimiter = r.limit != null || r.remaining != null || (r.status !== undefined && r.status < 300);
    // C6, C10: a 401, or a 5xx without X-RateLimit-*, was answered before the limiter (auth, a
    // proxy, an overloaded front end): the server never counted it, so its slot goes back.
    const uncounted = !passedLimiter && (r.status === 401 || (r.status !== undefined && r.status >= 500));
    if (memory && !rateLimited) {
      // Hot path (in-process store): the same transitions as below, applied synchronously.
      if (uncounted) s.view = memory.refundSync(apiKeyId, windowId);
      if (!passedLimiter) return;
      s.view = memory.confirmWindowStartSync(apiKeyId, windowId, r.receivedAt);
      if (r.remaining != null && Number.isFinite(r.remaining)) {
        s.view = memory.observeSync(apiKeyId, observed(r.remaining));
      }
      return; // release() wakes the pump right after
    }
    const ops: Promise<WindowSnapshot>[] = [];
    if (rateLimited) {
      // C12: pause the whole key; C6: the 429 added no hit, and the next window starts fresh.
      const ra = parseRetryAfter(r.retryAfter, r.receivedAt);
      const ms = pauseAfter429(ra, r.attempt ?? 0, { ...deps.pause, random });
      const until = r.receivedAt + ms;
      s.pausedUntil = Math.max(s.pausedUntil, until);
      const reason = ra === null ? "backoff" : ra.ms === 0 ? "retry-after-zero" : "retry-after";
      emit({ type: "pause", apiKeyId, untilMs: until, reason, retryAfterMs: ra?.ms ?? null });
      // C11, C12: the pause proves the server's window over only when the API's limiter dated it
      // (Retry-After N > 0 seconds) or it lasts a whole window. After a `Retry-After: 0`, a 429 with no
      // usable header or a proxy's short date, the window stays open, less this uncounted send (C6):
      // its next sends wait for its confirmed end instead of a window the server has not opened.
      const provesReset = (ra?.source === "seconds" && ra.ms > 0) || ms >= windowMs;
      ops.push(store.pauseUntil(apiKeyId, until, windowId, provesReset));
      if (!provesReset) ops.push(store.refund(apiKeyId, windowId));
    } else if (uncounted) {
      ops.push(store.refund(apiKeyId, windowId));
    } else if (passedLimiter) {
      // I3: the server's window started no later than this answer.
      ops.push(store.confirmWindowStart(apiKeyId, windowId, r.receivedAt));
      if (r.remaining != null && Number.isFinite(r.remaining)) {
        ops.push(store.observe(apiKeyId, observed(r.remaining)));
      }
    }
    for (const op of ops) {
      op.then(
        (view) => {
          s.view = view;
          wake(s);
        },
        (e: unknown) => storeFailed(apiKeyId, s, e),
      );
    }
  }

  return { guardFor, learn, adopt, storeFailed, makeTicket };
}
