/**
 * When continuous recovery may poll an accepted command's operation again (F1, F3): not before the
 * operation's `next_check_at`, and without one after a pause that doubles from `minIntervalMs` up
 * to `maxIntervalMs` while the operation keeps running. Commands not yet due are left out of the
 * next rounds' claims, so a backlog of long operations neither spends the key's window on the same
 * few polls every round nor keeps the rest of the backlog from being reached.
 */
import { DEFAULT_WAIT, operationResourceOf } from "../core";

export interface PollSchedule {
  /** Commands whose next poll is still ahead at `now` (to leave out of a claim). */
  notDue(now: number): string[];
  /** The operation of `id` was polled at `now` and is still running; `body` is the poll's answer. */
  stillRunning(id: string, body: unknown, now: number): void;
  /** `id` no longer waits on its operation (settled, or handed to a person). */
  done(id: string): void;
}

interface Entry {
  dueAt: number;
  /** Consecutive polls that found the operation running. */
  polls: number;
}

export function createPollSchedule(
  minIntervalMs: number = DEFAULT_WAIT.minIntervalMs,
  maxIntervalMs: number = DEFAULT_WAIT.maxIntervalMs,
): PollSchedule {
  const entries = new Map<string, Entry>();
  return {
    notDue(now) {
      const out: string[] = [];
      for (const [id, e] of entries) {
        if (e.dueAt > now) out.push(id);
        // Long overdue: another worker settled it, or it will be polled and entered again.
        else if (e.dueAt + 2 * maxIntervalMs < now) entries.delete(id);
      }
      return out;
    },
    stillRunning(id, body, now) {
      const polls = (entries.get(id)?.polls ?? 0) + 1;
      const pause = Math.min(maxIntervalMs, minIntervalMs * 2 ** Math.min(polls - 1, 20));
      const next = operationResourceOf(body)?.next_check_at;
      const nextAt = typeof next === "string" ? Date.parse(next) : Number.NaN;
      entries.set(id, {
        polls,
        dueAt: Number.isFinite(nextAt) && nextAt > now ? Math.max(nextAt, now + minIntervalMs) : now + pause,
      });
    },
    done(id) {
      entries.delete(id);
    },
  };
}
