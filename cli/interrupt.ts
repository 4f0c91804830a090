/**
 * Ctrl-C: the first SIGINT stops starting new rows and lets the ones in flight settle (their journal
 * entries and the server agree); the second exits at once — still safe, because every write was
 * journalled before it was sent and the next run's recover() settles it.
 */
import { setMaxListeners } from "node:events";
import { STDOUT_CLOSED } from "./closed-stdout";
import { JOB_LOCK_LOST } from "./pg-job-lock";

/** Abort listeners one waiting row may hold at once (its wait, a poll's fetch, a pacer slot, a timer). */
const LISTENERS_PER_WAIT = 4;

export interface Interrupt {
  /** Aborted on the first Ctrl-C (or SIGTERM). */
  readonly signal: AbortSignal;
  readonly interrupted: boolean;
  dispose(): void;
}

/**
 * @param waiters how many rows may wait on the signal at once (the job's concurrency): each wait
 *   and its polls listen for the abort, and Node warns on stderr past 10 listeners — stderr carries
 *   only JSON events when piped, so the limit is raised to what the job really holds.
 */
export function watchInterrupts(
  proc: NodeJS.Process,
  onFirst: () => void,
  onSecond: () => void,
  waiters = 1,
): Interrupt {
  const controller = new AbortController();
  setMaxListeners(Math.max(10, waiters * LISTENERS_PER_WAIT), controller.signal);
  let count = 0;
  const handler = () => {
    count += 1;
    if (count === 1) {
      controller.abort(new Error("interrupted"));
      onFirst();
    } else {
      onSecond();
    }
  };
  proc.on("SIGINT", handler);
  proc.on("SIGTERM", handler);
  // stdout closed (`| head`), or another job took this job's key (pg-job-lock.ts): like the first
  // Ctrl-C, once; only a real second Ctrl-C exits at once.
  const onClosed = () => {
    if (count === 0) handler();
  };
  proc.on(STDOUT_CLOSED, onClosed);
  proc.on(JOB_LOCK_LOST, onClosed);
  return {
    signal: controller.signal,
    get interrupted() {
      return count > 0;
    },
    dispose() {
      proc.off("SIGINT", handler);
      proc.off("SIGTERM", handler);
      proc.off(STDOUT_CLOSED, onClosed);
      proc.off(JOB_LOCK_LOST, onClosed);
    },
  };
}
