/**
 * The waiting side of the pacer: one key's waiters in two lanes (recovery before normal, FIFO in
 * each), with deadlines. The pacer's pump takes the head, grants it a slot or rejects waiters whose
 * deadline comes before the key can send; nothing here touches the window.
 */
import { DeadlineExceededError } from "../core";
import type { PacerWaitReason, PacingPriority, PacingTicket } from "./pacer-types";

export interface Waiter {
  enqueuedAt: number;
  /** +Infinity when the caller set no deadline. */
  deadlineAt: number;
  priority: PacingPriority;
  resolve(t: PacingTicket): void;
  reject(e: unknown): void;
  cleanup(): void;
}

export class WaitQueue {
  private readonly recovery: Waiter[] = [];
  private readonly normal: Waiter[] = [];

  get length(): number {
    return this.recovery.length + this.normal.length;
  }

  push(w: Waiter): void {
    (w.priority === "recovery" ? this.recovery : this.normal).push(w);
  }

  /** The next waiter to be served: the oldest recovery waiter, else the oldest normal one. */
  head(): Waiter | undefined {
    return this.recovery[0] ?? this.normal[0];
  }

  shift(): Waiter | undefined {
    return this.recovery.length > 0 ? this.recovery.shift() : this.normal.shift();
  }

  remove(w: Waiter): void {
    const lane = w.priority === "recovery" ? this.recovery : this.normal;
    const i = lane.indexOf(w);
    if (i >= 0) lane.splice(i, 1);
  }

  /** Removes and returns every waiter (last resort when the pump itself breaks). */
  drain(): Waiter[] {
    return [...this.recovery.splice(0), ...this.normal.splice(0)];
  }

  earliestDeadline(): number {
    let at = Number.POSITIVE_INFINITY;
    for (const lane of [this.recovery, this.normal]) for (const w of lane) if (w.deadlineAt < at) at = w.deadlineAt;
    return at;
  }

  /** Rejects the waiters whose deadline comes before `before` (at or before it when `inclusive`). */
  expire(before: number, inclusive: boolean, retryAt: number | null, waitingFor: "pause" | "window" | "queue"): void {
    for (const lane of [this.recovery, this.normal]) {
      for (let i = lane.length - 1; i >= 0; i--) {
        const w = lane[i];
        if (w.deadlineAt < before || (inclusive && w.deadlineAt === before)) {
          lane.splice(i, 1);
          w.cleanup();
          w.reject(new DeadlineExceededError(retryAt, waitingFor));
        }
      }
    }
  }
}

const REASON_RANK: Record<PacerWaitReason, number> = { concurrency: 1, spacing: 2, window_full: 3, retry_after: 4 };
const WAIT_REASONS = Object.keys(REASON_RANK) as PacerWaitReason[];

/** When the pump last finished sleeping for each reason (telemetry's wait reason, C8/C12). */
export type WaitEnds = Record<PacerWaitReason, number>;

export function noWaitEnds(): WaitEnds {
  return { concurrency: -Infinity, spacing: -Infinity, window_full: -Infinity, retry_after: -Infinity };
}

/** The strongest reason whose sleep ended after `since` (a waiter queued behind the head waited for it too). */
export function reasonFor(ends: WaitEnds, since: number): PacerWaitReason | undefined {
  let best: PacerWaitReason | undefined;
  for (const r of WAIT_REASONS) if (ends[r] > since && (!best || REASON_RANK[r] > REASON_RANK[best])) best = r;
  return best;
}
