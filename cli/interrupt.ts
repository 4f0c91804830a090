/**
 * Ctrl-C: the first SIGINT stops starting new rows and lets the ones in flight settle (their journal
 * entries and the server agree); the second exits at once — still safe, because every write was
 * journalled before it was sent and the next run's recover() settles it.
 */
export interface Interrupt {
  /** Aborted on the first Ctrl-C (or SIGTERM). */
  readonly signal: AbortSignal;
  readonly interrupted: boolean;
  dispose(): void;
}

export function watchInterrupts(proc: NodeJS.Process, onFirst: () => void, onSecond: () => void): Interrupt {
  const controller = new AbortController();
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
  return {
    signal: controller.signal,
    get interrupted() {
      return count > 0;
    },
    dispose() {
      proc.off("SIGINT", handler);
      proc.off("SIGTERM", handler);
    },
  };
}
