/**
 * A closed stdout (`reseller renew list.txt | head -2`: the reader exited) is not a crash. The first
 * EPIPE marks stdout closed: later writes are dropped (their callbacks still run), nobody waits for
 * a drain that cannot come, and the job is told as on SIGTERM — no new rows start, the ones in flight
 * settle, the summary still goes to stderr, and the CLI exits 130 (re-run to resume). No stack trace.
 */
import type { Writable } from "node:stream";

/** Emitted on the process when stdout closed: interrupt.ts treats it as the first Ctrl-C. */
export const STDOUT_CLOSED = "reseller:stdout-closed";

export function guardClosedStdout<S extends Writable>(stream: S, proc: NodeJS.EventEmitter): S {
  let closed = false;
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (closed) return;
    if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
    closed = true;
    proc.emit(STDOUT_CLOSED);
    // Whoever waits for a drain goes on (and then writes nothing).
    stream.emit("drain");
  });
  const write = (chunk: unknown, ...rest: unknown[]): boolean => {
    if (closed) {
      const callback = rest.find((r): r is () => void => typeof r === "function");
      if (callback) queueMicrotask(callback);
      return true;
    }
    return (stream.write as (c: unknown, ...r: unknown[]) => boolean)(chunk, ...rest);
  };
  return new Proxy(stream, {
    get(target, prop) {
      if (prop === "write") return write;
      if (prop === "writableNeedDrain" && closed) return false;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
