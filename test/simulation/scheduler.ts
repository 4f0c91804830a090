/**
 * The simulation's scheduler: every seam (fetch, journal, window store) stops at a *point* and waits
 * until the driver releases it, so the order in which pending promises settle is decided by the
 * schedule (a list of choices drawn by fast-check), not by the event loop. Time moves only when the
 * driver says so (a tick to the earliest timer, or a scenario's jump), through the shared VirtualClock.
 */
import { VirtualClock } from "../../runtime/clock";
import type { Clock } from "../../runtime/clock";

export type Role = "call" | "wait" | "recover" | "background" | "setup";

/** Who is running: the async context every seam reads (AsyncLocalStorage). */
export interface Activity {
  id: number;
  worker: string;
  role: Role;
  /** The business command's idempotency key (calls) or command id (waits). */
  key?: string;
  commandId?: string;
  startedAt: number;
  /** Non-GET requests this activity put on the wire (the emulator saw them). */
  sends: number;
  done: boolean;
}

export interface Point {
  seq: number;
  worker: string;
  label: string;
  activity: Activity | undefined;
  release(): void;
}

export class Scheduler {
  pending: Point[] = [];
  readonly dead = new Set<string>();
  /** Labels of released points and ticks, in order: two runs of one schedule give the same trace. */
  readonly trace: string[] = [];
  private seq = 0;

  /** A point `worker` stops at; rejects with the signal's reason when it aborts first. */
  point(worker: string, label: string, activity: Activity | undefined, signal?: AbortSignal): Promise<void> {
    // A crashed worker's memory is gone: nothing it started ever runs again.
    if (this.dead.has(worker)) return new Promise<void>(() => undefined);
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return void reject(signal.reason);
      const p: Point = {
        seq: this.seq++,
        worker,
        label,
        activity,
        release: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.pending = this.pending.filter((q) => q !== p);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.pending.push(p);
    });
  }

  release(index: number): Point {
    const [p] = this.pending.splice(index, 1);
    const a = p.activity;
    // Which activity stopped here (call, wait, recovery round) and on what: a failure's trace reads on its own.
    this.trace.push(`${p.worker}:${p.label}${a ? ` [${a.role}#${a.id}${a.key ? ` ${a.key}` : ""}]` : ""}`);
    p.release();
    return p;
  }

  /** Drops a worker: its pending points never settle, and it never gets another one. */
  kill(worker: string): Point[] {
    this.dead.add(worker);
    const lost = this.pending.filter((p) => p.worker === worker);
    this.pending = this.pending.filter((p) => p.worker !== worker);
    return lost;
  }

  /** Journal calls out to a real server (the PostgreSQL tier) that have not answered yet. */
  private io = 0;
  private ioDone: (() => void)[] = [];

  /** Runs `fn` (I/O to a real server) as part of the current step: settle() waits for it. */
  async withIo<T>(fn: () => Promise<T>): Promise<T> {
    this.io += 1;
    try {
      return await fn();
    } finally {
      this.io -= 1;
      if (this.io === 0) for (const done of this.ioDone.splice(0)) done();
    }
  }

  /** Lets every promise chain run until it stops at a point or a timer. */
  async settle(): Promise<void> {
    // Apart from the PostgreSQL tier's journal calls (awaited here: one released point at a time, so
    // they run one after another) no I/O runs, so the event loop's order is itself deterministic:
    // this waits until a turn of it adds no new point, so each step starts from a quiet world.
    for (let turn = 0; turn < 50; turn++) {
      if (this.io > 0) {
        await new Promise<void>((r) => this.ioDone.push(r));
        turn = 0;
        continue;
      }
      const before = this.seq * 1000 + this.pending.length;
      await new Promise<void>((r) => setImmediate(r));
      if (this.io === 0 && this.seq * 1000 + this.pending.length === before) return;
    }
  }
}

/** The shared VirtualClock, moved only by the driver; it also knows when its next timer is due. */
export class SimClock implements Clock {
  readonly virtual = new VirtualClock({ autoAdvance: false });
  private due: number[] = [];
  jumps: { at: number; ms: number }[] = [];

  now(): number {
    return this.virtual.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    const at = this.virtual.now() + Math.max(0, ms);
    this.due.push(at);
    const done = () => {
      const i = this.due.indexOf(at);
      if (i >= 0) this.due.splice(i, 1);
    };
    const p = this.virtual.sleep(ms, signal);
    p.then(done, done);
    return p;
  }

  nextTimer(): number | undefined {
    return this.due.length === 0 ? undefined : Math.min(...this.due);
  }

  tick(): void {
    const at = this.nextTimer();
    if (at !== undefined) this.virtual.advanceTo(at);
  }

  jump(ms: number): void {
    this.jumps.push({ at: this.now(), ms });
    this.virtual.advance(ms);
  }
}
