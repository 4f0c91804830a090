/**
 * The pacer: one shared FIFO queue per API key (G2, I1) that fits sends into the server's FIXED
 * window (C3, I3), spreads them evenly (C8), caps parallelism (C8) and pauses the whole key after
 * a 429 (C12). The client middleware calls acquire() before every HTTP attempt and
 * ticket.release() when the attempt ends. All waiting goes through the injected Clock.
 */
import { DEFAULT_PACING, DeadlineExceededError, type PacingEvent, type WaitKind } from "../core";
import { systemClock, type Clock } from "../runtime/clock";
import { createMemoryWindowStore, MemoryWindowStore } from "./memory-window-store";
import { parseRetryAfter, pauseAfter429, type PauseOptions } from "./retry-timing";
import type { ReserveDecision, WindowSnapshot, WindowStore } from "./window-store";

export interface PacerOptions {
  /** Shared window state (default: in-process memory store; Redis across processes, I1). */
  store?: WindowStore;
  /**
   * The server's fixed window length, ms (C3: one counter per key per fixed window).
   * @default DEFAULT_PACING.windowMs (60 000)
   */
  windowMs?: number;
  /**
   * Requests per window assumed until the key's limit is learned (C1).
   * @default DEFAULT_PACING.initialLimit (120)
   */
  initialLimit?: number;
  /**
   * Requests of one key in flight at once in this process (C8).
   * @default DEFAULT_PACING.maxConcurrency (4)
   */
  maxConcurrency?: number;
  clock?: Clock;
  /** Uniform in [0, 1), for the 429 margin and backoff jitter (default Math.random). */
  random?: () => number;
  /**
   * Latency/granularity margin (default clamp(windowMs / 200, 25, 1000) ms): the last send of a
   * window goes out ≥ guardMs before its earliest possible server end, and the next window opens
   * guardMs after its latest possible server end. The guard in force is raised to the slowest of
   * the key's last 16 round trips (capped at windowMs / 40), because the model holds only while
   * one-way latency stays below the guard.
   */
  guardMs?: number;
  /** Floors and margins of the pause after a 429 (see `pauseAfter429`). */
  pause?: Omit<PauseOptions, "random">;
  onEvent?: (e: PacingEvent) => void;
}

export interface PacingSnapshot {
  limit: number;
  /** Sends left in the open window by our count (null when no window is open). */
  remaining: number | null;
  pausedUntil: number | null;
  /** Confirmed end of the open window, when known. */
  windowEndsAt: number | null;
}

export interface Pacer {
  /**
   * Waits (honouring signal) for this key's next send slot: pause after 429, fixed-window fit, even
   * spacing, concurrency cap. With `deadlineAt` (ms since the epoch on the pacer's clock) it never
   * waits past it: as soon as the slot is known to come later, it rejects with a
   * DeadlineExceededError that says when the key may send again — instead of sleeping.
   */
  acquire(apiKeyId: string, signal?: AbortSignal, deadlineAt?: number): Promise<PacingTicket>;
  /** Limit learned from GET /context (data.credential.rate_limit_per_minute) or X-RateLimit-Limit. */
  learnLimit(apiKeyId: string, limit: number): void;
  snapshot(apiKeyId: string): PacingSnapshot;
}

export interface ReleaseResult {
  /** When the attempt ended (response headers arrived, or the transport failed), from the Clock. */
  receivedAt: number;
  /** HTTP status; absent when no response came (network error, timeout). */
  status?: number;
  /** X-RateLimit-Limit, parsed. */
  limit?: number | null;
  /** X-RateLimit-Remaining, parsed. */
  remaining?: number | null;
  /** Raw Retry-After header. */
  retryAfter?: string | null;
  /** A 429, the API's own or a proxy's (C11, C12). */
  isRateLimit?: boolean;
  /** How many times this command was already retried (0 for its first attempt). */
  attempt?: number;
}

export interface PacingTicket {
  readonly waitedMs: number; // time spent waiting for the slot
  /** The strongest reason the slot was not free at once (a 429 pause over a full window over spacing). */
  readonly waitReason?: PacerWaitReason;
  /** Must be called exactly once when the attempt ends. Later calls are ignored. */
  release(result: ReleaseResult): void;
}

/** Why a send waited in the pacer, for telemetry (a subset of core's WaitKind). */
type PacerWaitReason = Extract<WaitKind, "retry_after" | "window_full" | "spacing" | "concurrency">;

const REASON_RANK: Record<PacerWaitReason, number> = { concurrency: 1, spacing: 2, window_full: 3, retry_after: 4 };
const WAIT_REASONS = Object.keys(REASON_RANK) as PacerWaitReason[];

interface Waiter {
  enqueuedAt: number;
  /** +Infinity when the caller set no deadline. */
  deadlineAt: number;
  resolve(t: PacingTicket): void;
  reject(e: unknown): void;
  cleanup(): void;
}

interface KeyState {
  queue: Waiter[];
  inFlight: number;
  pumping: boolean;
  limit: number;
  view: WindowSnapshot | null;
  /** Local mirror of the pause, so a grant sleeping towards its sendAt notices a fresh 429. */
  pausedUntil: number;
  /** Round-trip times of the last attempts (ms), newest last; they raise the guard. */
  rtts: number[];
  /** Ends the pump's current sleep early (a release, an abort or a new limit changed something). */
  wakers: Set<() => void>;
  /** When the pump last finished sleeping for each reason (telemetry's wait reason, C8/C12). */
  waitEnds: Record<PacerWaitReason, number>;
  /** While the store refuses sends: when the key can send again, and why (for deadlines). */
  blockedUntil: number;
  blockedBy: "pause" | "window";
}

const MAX_LIMIT = 10_000; // C1

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

export function createPacer(options: PacerOptions = {}): Pacer {
  const store = options.store ?? createMemoryWindowStore();
  // The in-process store needs no promise per operation: use its synchronous transitions directly.
  const memory = store instanceof MemoryWindowStore ? store : null;
  const clock = options.clock ?? systemClock;
  const windowMs = options.windowMs ?? DEFAULT_PACING.windowMs;
  const initialLimit = options.initialLimit ?? DEFAULT_PACING.initialLimit;
  const maxConcurrency = Math.max(1, options.maxConcurrency ?? DEFAULT_PACING.maxConcurrency);
  const guardMs = options.guardMs ?? Math.min(1000, Math.max(25, windowMs / 200));
  const random = options.random ?? Math.random;
  const emit = (e: PacingEvent) => {
    try {
      options.onEvent?.(e);
    } catch {
      // I7: logging must never stall the queue
    }
  };
  const keys = new Map<string, KeyState>();

  function state(apiKeyId: string): KeyState {
    let s = keys.get(apiKeyId);
    if (!s) {
      s = {
        queue: [],
        inFlight: 0,
        pumping: false,
        limit: initialLimit,
        view: null,
        pausedUntil: 0,
        rtts: [],
        wakers: new Set(),
        waitEnds: { concurrency: -Infinity, spacing: -Infinity, window_full: -Infinity, retry_after: -Infinity },
        blockedUntil: 0,
        blockedBy: "window",
      };
      keys.set(apiKeyId, s);
    }
    return s;
  }

  /** The guard in force for `s`: configured, or the slowest recent round trip (bounded). */
  function guardFor(s: KeyState): number {
    const slowest = s.rtts.length > 0 ? Math.max(...s.rtts) : 0;
    return Math.ceil(Math.max(guardMs, Math.min(slowest, windowMs / 40)));
  }

  function wake(s: KeyState): void {
    if (s.wakers.size === 0) return;
    const wakers = [...s.wakers];
    s.wakers.clear();
    for (const w of wakers) w();
  }

  /**
   * Sleeps until `at` on the clock (or only until woken when `at` is +∞ — an unbounded wait must
   * never be a clock timer, or a VirtualClock would jump to infinity). Never throws.
   */
  function sleepUntil(s: KeyState, at: number): Promise<void> {
    const ms = at - clock.now();
    if (ms <= 0) return Promise.resolve();
    const ac = new AbortController();
    return new Promise<void>((resolve) => {
      const done = () => {
        s.wakers.delete(done);
        ac.abort(); // drops the clock timer when woken early
        resolve();
      };
      s.wakers.add(done);
      if (Number.isFinite(ms)) clock.sleep(ms, ac.signal).then(done, () => undefined);
    });
  }

  function learn(apiKeyId: string, s: KeyState, limit: number): void {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT || limit === s.limit) return;
    s.limit = limit;
    emit({ type: "limit-learned", apiKeyId, limit });
    wake(s); // a higher limit may free a slot now
  }

  function storeFailed(apiKeyId: string, s: KeyState, error: unknown): void {
    emit({ type: "store-error", apiKeyId, error });
    wake(s);
  }

  function makeTicket(
    apiKeyId: string,
    s: KeyState,
    windowId: string,
    waitedMs: number,
    waitReason?: PacerWaitReason,
  ): PacingTicket {
    let released = false;
    const sentAt = clock.now();
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
        onRelease(apiKeyId, s, windowId, result);
        wake(s);
      },
    };
  }

  function onRelease(apiKeyId: string, s: KeyState, windowId: string, r: ReleaseResult): void {
    if (r.limit != null) learn(apiKeyId, s, r.limit);
    const rateLimited = r.isRateLimit === true || r.status === 429;
    if (memory && !rateLimited) {
      // Hot path (in-process store): the same transitions as below, applied synchronously.
      if (r.status === 401) return;
      s.view = memory.confirmWindowStartSync(apiKeyId, windowId, r.receivedAt);
      if (r.remaining != null && Number.isFinite(r.remaining)) {
        const limit = r.limit != null && Number.isFinite(r.limit) ? r.limit : s.limit;
        s.view = memory.observeSync(apiKeyId, { windowId, remaining: r.remaining, limit, now: r.receivedAt });
      }
      return; // release() wakes the pump right after
    }
    const ops: Promise<WindowSnapshot>[] = [];
    if (rateLimited) {
      // C12: pause the whole key; C6: the 429 added no hit, and the next window starts fresh.
      const ra = parseRetryAfter(r.retryAfter, r.receivedAt);
      const ms = pauseAfter429(ra, r.attempt ?? 0, { ...options.pause, random });
      const until = r.receivedAt + ms;
      s.pausedUntil = Math.max(s.pausedUntil, until);
      const reason = ra === null ? "backoff" : ra.ms === 0 ? "retry-after-zero" : "retry-after";
      emit({ type: "pause", apiKeyId, untilMs: until, reason, retryAfterMs: ra?.ms ?? null });
      ops.push(store.pauseUntil(apiKeyId, until, windowId));
    } else if (r.status !== 401) {
      // I3: the server's window started no later than this answer (or the transport failure).
      // C6: a 401 is rejected before the limiter, so it says nothing about the window.
      ops.push(store.confirmWindowStart(apiKeyId, windowId, r.receivedAt));
      if (r.remaining != null && Number.isFinite(r.remaining)) {
        const limit = r.limit != null && Number.isFinite(r.limit) ? r.limit : s.limit;
        ops.push(store.observe(apiKeyId, { windowId, remaining: r.remaining, limit, now: r.receivedAt }));
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

  /** The strongest reason whose sleep ended after `since` (a waiter queued behind the head waited for it too). */
  function reasonFor(s: KeyState, since: number): PacerWaitReason | undefined {
    let best: PacerWaitReason | undefined;
    for (const r of WAIT_REASONS) if (s.waitEnds[r] > since && (!best || REASON_RANK[r] > REASON_RANK[best])) best = r;
    return best;
  }

  /** Last resort if the pump itself breaks: nobody may wait forever. */
  function failAll(s: KeyState, error: unknown): void {
    for (const w of s.queue.splice(0)) {
      w.cleanup();
      w.reject(error);
    }
  }

  /** Rejects the waiters whose deadline comes before `before` (at or before it when `inclusive`). */
  function expire(
    s: KeyState,
    before: number,
    inclusive: boolean,
    retryAt: number | null,
    waitingFor: "pause" | "window" | "queue",
  ): void {
    for (let i = s.queue.length - 1; i >= 0; i--) {
      const w = s.queue[i];
      if (w.deadlineAt < before || (inclusive && w.deadlineAt === before)) {
        s.queue.splice(i, 1);
        w.cleanup();
        w.reject(new DeadlineExceededError(retryAt, waitingFor));
      }
    }
  }

  function earliestDeadline(s: KeyState): number {
    let at = Number.POSITIVE_INFINITY;
    for (const w of s.queue) if (w.deadlineAt < at) at = w.deadlineAt;
    return at;
  }

  /**
   * When a refused key can really send again: the pause end or the confirmed window end; for a full
   * window whose end is not confirmed yet (retryAt is only a poll), its earliest possible end.
   */
  function sendableAt(d: Extract<ReserveDecision, { granted: false }>): number {
    const v = d.state;
    if (v.pausedUntil !== null || v.windowEnd !== null || v.windowStart === null) return d.retryAt;
    return Math.max(d.retryAt, v.windowStart + windowMs);
  }

  async function pump(apiKeyId: string, s: KeyState): Promise<void> {
    s.pumping = true;
    try {
      while (s.queue.length > 0) {
        if (s.inFlight >= maxConcurrency) {
          expire(s, clock.now(), true, null, "queue");
          // Woken by a release or an abort, or at the next waiter's deadline (+∞: none).
          if (s.queue.length > 0) await sleepUntil(s, earliestDeadline(s));
          s.waitEnds.concurrency = clock.now();
          continue;
        }
        const now = clock.now();
        // C8: spread evenly. Whole ms keep every time an integer (Date.now(), Redis numbers); the
        // per-window count, not the spacing, is what enforces the limit.
        const guard = guardFor(s);
        const spacingMs = Math.max(0, Math.floor((windowMs - guard) / s.limit));
        let d: ReserveDecision;
        try {
          const params = { limit: s.limit, windowMs, spacingMs, guardMs: guard, now };
          d = memory ? memory.reserveSync(apiKeyId, params) : await store.reserve(apiKeyId, params);
        } catch (e) {
          // The store is down: fail the head request rather than send unpaced.
          emit({ type: "store-error", apiKeyId, error: e });
          const head = s.queue.shift();
          head?.cleanup();
          head?.reject(e);
          continue;
        }
        s.view = d.state;
        if (!d.granted) {
          const at = sendableAt(d);
          s.blockedUntil = at;
          s.blockedBy = d.state.pausedUntil !== null ? "pause" : "window";
          expire(s, at, false, at, s.blockedBy);
          if (s.queue.length === 0) continue;
          const waitMs = d.retryAt - clock.now();
          const paused = s.pausedUntil > clock.now() || (d.state.pausedUntil ?? 0) > clock.now();
          if (waitMs > 0) emit({ type: "window-wait", apiKeyId, waitMs });
          await sleepUntil(s, d.retryAt);
          if (waitMs > 0) s.waitEnds[paused ? "retry_after" : "window_full"] = clock.now();
          continue;
        }
        s.blockedUntil = 0;
        const first = s.queue[0];
        if (first && first.deadlineAt <= d.sendAt) {
          // Its slot comes too late: give the slot back, tell the waiter when the key can send.
          store.refund(apiKeyId, d.windowId).then(
            (v) => (s.view = v),
            (e: unknown) => storeFailed(apiKeyId, s, e),
          );
          s.queue.shift();
          first.cleanup();
          first.reject(new DeadlineExceededError(d.sendAt, "window"));
          continue;
        }
        // Hold the slot until its time; wake-ups (aborts, a 429 elsewhere) do not move it.
        while (clock.now() < d.sendAt && clock.now() >= s.pausedUntil && s.queue.length > 0) {
          await sleepUntil(s, d.sendAt);
          s.waitEnds.spacing = clock.now();
        }
        const head = s.queue[0];
        if (clock.now() < s.pausedUntil || !head) {
          // A 429 arrived meanwhile (the pause closed this window) or nobody wants the slot.
          store.refund(apiKeyId, d.windowId).then(
            (v) => (s.view = v),
            (e: unknown) => storeFailed(apiKeyId, s, e),
          );
          continue;
        }
        s.queue.shift();
        head.cleanup();
        s.inFlight += 1;
        head.resolve(makeTicket(apiKeyId, s, d.windowId, clock.now() - head.enqueuedAt, reasonFor(s, head.enqueuedAt)));
      }
    } finally {
      s.pumping = false;
    }
  }

  return {
    acquire(apiKeyId, signal, deadlineAt = Number.POSITIVE_INFINITY) {
      if (signal?.aborted) return Promise.reject(abortError(signal));
      const s = state(apiKeyId);
      if (deadlineAt !== Number.POSITIVE_INFINITY) {
        // A pause already known to outlast the deadline (a proxy's Retry-After: 86400): say so at once.
        const paused = Math.max(s.pausedUntil, s.view?.pausedUntil ?? 0);
        if (paused > deadlineAt) return Promise.reject(new DeadlineExceededError(paused, "pause"));
        // The pump already knows the key cannot send before then (a full window, a pause elsewhere).
        if (s.queue.length > 0 && s.blockedUntil > deadlineAt) {
          return Promise.reject(new DeadlineExceededError(s.blockedUntil, s.blockedBy));
        }
        if (deadlineAt <= clock.now()) return Promise.reject(new DeadlineExceededError(null, "queue"));
      }
      if (memory && !s.pumping && s.queue.length === 0 && s.inFlight < maxConcurrency) {
        // Fast path: nobody queued, a free slot, and the store grants a send right now — exactly
        // what the pump would decide for a lone waiter, without the queue, the pump or a promise chain.
        const now = clock.now();
        if (now >= s.pausedUntil) {
          const guard = guardFor(s);
          const spacingMs = Math.max(0, Math.floor((windowMs - guard) / s.limit));
          const d = memory.reserveNowSync(apiKeyId, { limit: s.limit, windowMs, spacingMs, guardMs: guard, now });
          if (d?.granted) {
            s.view = d.state;
            s.inFlight += 1;
            return Promise.resolve(makeTicket(apiKeyId, s, d.windowId, 0));
          }
        }
      }
      return new Promise<PacingTicket>((resolve, reject) => {
        const onAbort = () => {
          const i = s.queue.indexOf(waiter);
          if (i >= 0) s.queue.splice(i, 1);
          reject(abortError(signal!));
          wake(s);
        };
        const waiter: Waiter = {
          enqueuedAt: clock.now(),
          deadlineAt,
          resolve,
          reject,
          cleanup: () => signal?.removeEventListener("abort", onAbort),
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        s.queue.push(waiter);
        if (!s.pumping) void pump(apiKeyId, s).catch((e: unknown) => failAll(s, e));
        // A pump waiting on the concurrency cap sleeps until the earliest deadline it knew of.
        else if (deadlineAt !== Number.POSITIVE_INFINITY && s.inFlight >= maxConcurrency) wake(s);
      });
    },

    learnLimit(apiKeyId, limit) {
      learn(apiKeyId, state(apiKeyId), limit);
    },

    snapshot(apiKeyId) {
      const s = state(apiKeyId);
      const v = s.view;
      const now = clock.now();
      const pausedUntil = Math.max(s.pausedUntil, v?.pausedUntil ?? 0);
      return {
        limit: s.limit,
        remaining: v && v.windowId !== null ? Math.max(0, s.limit - v.count) : null,
        pausedUntil: pausedUntil > now ? pausedUntil : null,
        windowEndsAt: v && v.windowId !== null ? v.windowEnd : null,
      };
    },
  };
}
