/**
 * Time source shared by the client and the emulator. Every time-dependent piece of logic takes a
 * Clock so tests never sleep through a real 60 s window (C3) or a real Retry-After (C12).
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Resolves after `ms` of this clock's time; rejects with the signal's reason when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

/** The real clock: Date.now() and setTimeout. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep(ms, signal) {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return void reject(abortReason(signal));
      const timer = setTimeout(
        () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      const onAbort = () => {
        clearTimeout(timer);
        reject(abortReason(signal!));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  },
};

interface Timer {
  at: number;
  seq: number;
  resolve: () => void;
}

export interface VirtualClockOptions {
  /** Start time in ms since the epoch (default 2026-10-05T09:00:00Z, the guide's example day). */
  start?: number | undefined;
  /**
   * When true (default) the clock jumps to the next pending timer as soon as the event loop has
   * nothing else to do (checked with setImmediate), so a test with a 60 s window runs in
   * milliseconds. When false, time moves only through advance().
   */
  autoAdvance?: boolean | undefined;
}

/**
 * A deterministic clock for tests. Shared by the emulator and the client in one test, it makes
 * "wait for the window to reset" instant while keeping the ordering of every timer exact.
 */
export class VirtualClock implements Clock {
  private current: number;
  private timers: Timer[] = [];
  private seq = 0;
  private scheduled = false;
  readonly autoAdvance: boolean;

  constructor(options: VirtualClockOptions = {}) {
    this.current = options.start ?? Date.UTC(2026, 9, 5, 9, 0, 0);
    this.autoAdvance = options.autoAdvance ?? true;
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return void reject(abortReason(signal));
      const timer: Timer = {
        at: this.current + Math.max(0, ms),
        seq: this.seq++,
        resolve: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.timers = this.timers.filter((t) => t !== timer);
        reject(abortReason(signal!));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.timers.push(timer);
      this.schedule();
    });
  }

  /** Moves time forward by `ms`, firing every timer that falls due, in order. */
  advance(ms: number): void {
    this.advanceTo(this.current + Math.max(0, ms));
  }

  /** Moves time to `at` (never backwards), firing due timers in order. */
  advanceTo(at: number): void {
    for (;;) {
      const next = this.earliest();
      if (!next || next.at > at) break;
      this.current = Math.max(this.current, next.at);
      this.timers = this.timers.filter((t) => t !== next);
      next.resolve();
    }
    this.current = Math.max(this.current, at);
  }

  /** Number of sleepers still waiting. */
  get pending(): number {
    return this.timers.length;
  }

  private earliest(): Timer | undefined {
    let best: Timer | undefined;
    for (const t of this.timers) {
      if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    }
    return best;
  }

  private schedule(): void {
    if (!this.autoAdvance || this.scheduled) return;
    this.scheduled = true;
    // Two turns of setImmediate let in-flight promise chains (an in-process fetch) settle first.
    setImmediate(() =>
      setImmediate(() => {
        this.scheduled = false;
        const next = this.earliest();
        if (!next) return;
        this.advanceTo(next.at);
        if (this.timers.length > 0) this.schedule();
      }),
    );
  }
}
