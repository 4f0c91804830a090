/**
 * The pacer: one shared queue per API key (G2, I1; a recovery lane before the normal one, see
 * pacer-queue.ts) that fits sends into the server's FIXED window (C3, I3), spreads them evenly (C8),
 * caps parallelism (C8) and pauses the whole key after a 429 (C12). The client middleware calls
 * acquire() before every HTTP attempt and ticket.release() when the attempt ends. All waiting goes
 * through the injected Clock.
 */
import { DEFAULT_PACING, DeadlineExceededError, type PacingEvent } from "../core";
import { systemClock } from "../runtime/clock";
import { createMemoryWindowStore, MemoryWindowStore } from "./memory-window-store";
import { screenPacerOptions } from "./pacer-options";
import { noWaitEnds, reasonFor, WaitQueue, type Waiter } from "./pacer-queue";
import type { Pacer, PacerOptions, PacingPriority, PacingTicket } from "./pacer-types";
import { createWindowAccounting, wake, type KeyState } from "./pacer-window";
import type { ReserveDecision, ReserveParams } from "./window-store";

export type { Pacer, PacerOptions, PacingPriority, PacingSnapshot, PacingTicket, ReleaseResult } from "./pacer-types";

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

export function createPacer(options: PacerOptions = {}): Pacer {
  screenPacerOptions(options);
  const store = options.store ?? createMemoryWindowStore();
  // The in-process store needs no promise per operation: use its synchronous transitions directly.
  const memory = store instanceof MemoryWindowStore ? store : null;
  const clock = options.clock ?? systemClock;
  const windowMs = options.windowMs ?? DEFAULT_PACING.windowMs;
  const initialLimit = options.initialLimit ?? DEFAULT_PACING.initialLimit;
  const maxConcurrency = Math.max(1, options.maxConcurrency ?? DEFAULT_PACING.maxConcurrency);
  // C8: an idle key may send up to `burst` calls at once (never more than can be in flight anyway).
  const burst = Math.max(1, Math.floor(options.burst ?? maxConcurrency));
  const guardMs = options.guardMs ?? Math.min(1000, Math.max(25, windowMs / 200));
  // I3: the next window opens this far past the server's latest possible end (the first confirmed
  // answer + windowMs). The server counted that request before it answered, so latency needs no
  // margin here — only whole-ms clocks (2 ms) and the drift of two clocks over one window (NTP slews
  // at most 500 ppm: windowMs / 2000). Latency is the send side's guard (`guardMs`, raised by RTTs).
  const endGuardMs = Math.min(guardMs, 2 + Math.ceil(windowMs / 2000));
  const random = options.random ?? Math.random;
  const emit = (e: PacingEvent) => {
    try {
      options.onEvent?.(e);
    } catch {
      // I7: logging must never stall the queue
    }
  };
  const keys = new Map<string, KeyState>();
  const { guardFor, learn, adopt, storeFailed, makeTicket } = createWindowAccounting({
    store,
    memory,
    clock,
    windowMs,
    guardMs,
    random,
    pause: options.pause,
    emit,
  });

  function state(apiKeyId: string): KeyState {
    let s = keys.get(apiKeyId);
    if (!s) {
      s = {
        queue: new WaitQueue(),
        inFlight: 0,
        pumping: false,
        limit: initialLimit,
        limitLearned: false,
        view: null,
        pausedUntil: 0,
        rtts: [],
        wakers: new Set(),
        waitEnds: noWaitEnds(),
        blockedUntil: 0,
        blockedBy: "window",
        held: null,
      };
      keys.set(apiKeyId, s);
    }
    return s;
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

  /** The allowance is never more than the window holds (a limit-3 key bursts at most 3). */
  function burstFor(s: KeyState): number {
    return Math.min(burst, s.limit);
  }

  /** What one reservation for `s` asks the store, at `now`. */
  function paramsFor(s: KeyState, now: number): ReserveParams {
    const guard = guardFor(s);
    return {
      limit: s.limit,
      windowMs,
      // C8: spread evenly. Whole ms keep every time an integer (Date.now(), Redis numbers); the
      // per-window count, not the spacing, is what enforces the limit.
      spacingMs: Math.max(0, Math.floor((windowMs - guard) / s.limit)),
      guardMs: guard,
      burst: burstFor(s),
      endGuardMs,
      now,
      limitAssumed: !s.limitLearned, // A5: a limit another pacer of the key learned is used instead
    };
  }

  /** Last resort if the pump itself breaks: nobody may wait forever. */
  function failAll(s: KeyState, error: unknown): void {
    for (const w of s.queue.drain()) {
      w.cleanup();
      w.reject(error);
    }
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
          s.queue.expire(clock.now(), true, null, "queue");
          // Woken by a release or an abort, or at the next waiter's deadline (+∞: none).
          if (s.queue.length > 0) await sleepUntil(s, s.queue.earliestDeadline());
          s.waitEnds.concurrency = clock.now();
          continue;
        }
        if (clock.now() < s.pausedUntil) {
          // C12: a 429 paused the key and the store may not know yet (its pauseUntil is in flight):
          // ask it only after the pause — every grant refunded meanwhile would move the spacing on.
          s.queue.expire(s.pausedUntil, false, s.pausedUntil, "pause");
          if (s.queue.length === 0) continue;
          emit({ type: "window-wait", apiKeyId, waitMs: s.pausedUntil - clock.now() });
          await sleepUntil(s, s.pausedUntil);
          s.waitEnds.retry_after = clock.now();
          continue;
        }
        const params = paramsFor(s, clock.now());
        const guard = params.guardMs;
        let d: ReserveDecision;
        try {
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
        adopt(apiKeyId, s, d.state);
        if (!d.granted) {
          const at = sendableAt(d);
          s.blockedUntil = at;
          s.blockedBy = d.state.pausedUntil !== null ? "pause" : "window";
          s.queue.expire(at, false, at, s.blockedBy);
          if (s.queue.length === 0) continue;
          const waitMs = d.retryAt - clock.now();
          const paused = s.pausedUntil > clock.now() || (d.state.pausedUntil ?? 0) > clock.now();
          if (waitMs > 0) emit({ type: "window-wait", apiKeyId, waitMs });
          await sleepUntil(s, d.retryAt);
          if (waitMs > 0) s.waitEnds[paused ? "retry_after" : "window_full"] = clock.now();
          continue;
        }
        s.blockedUntil = 0;
        const first = s.queue.head();
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
        // Hold the slot until its time; wake-ups (aborts, a 429 elsewhere) do not move it. Answers
        // that arrive meanwhile know it is granted but not sent (ObserveParams.unsent, C10).
        s.held = d;
        while (clock.now() < d.sendAt && clock.now() >= s.pausedUntil && s.queue.length > 0) {
          await sleepUntil(s, d.sendAt);
          s.waitEnds.spacing = clock.now();
        }
        s.held = null;
        const head = s.queue.head();
        // I3: a slot handed out past the window's last safe send instant (a slow store round trip,
        // a stalled event loop) could land in the server's next window, uncounted by ours.
        const start = d.state.windowStart;
        const late = start !== null && clock.now() > d.sendAt && clock.now() >= start + windowMs - guard;
        if (clock.now() < s.pausedUntil || !head || late) {
          // A 429 arrived meanwhile (the pause closed this window), nobody wants the slot, or it is too late.
          store.refund(apiKeyId, d.windowId).then(
            (v) => (s.view = v),
            (e: unknown) => storeFailed(apiKeyId, s, e),
          );
          continue;
        }
        s.queue.shift();
        head.cleanup();
        s.inFlight += 1;
        head.resolve(makeTicket(apiKeyId, s, d, clock.now() - head.enqueuedAt, reasonFor(s.waitEnds, head.enqueuedAt)));
      }
    } finally {
      s.pumping = false;
    }
  }

  return {
    acquire(apiKeyId, signal, deadlineAt = Number.POSITIVE_INFINITY, priority: PacingPriority = "normal") {
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
          const d = memory.reserveNowSync(apiKeyId, paramsFor(s, now));
          if (d?.granted) {
            s.view = d.state;
            adopt(apiKeyId, s, d.state);
            s.inFlight += 1;
            return Promise.resolve(makeTicket(apiKeyId, s, d, 0));
          }
        }
      }
      return new Promise<PacingTicket>((resolve, reject) => {
        const onAbort = () => {
          s.queue.remove(waiter);
          reject(abortError(signal!));
          wake(s);
        };
        const waiter: Waiter = {
          enqueuedAt: clock.now(),
          deadlineAt,
          priority,
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
