/**
 * Durable commits for the SQLite journal with "full" synchronous, grouped: a write commits to the
 * WAL (no fsync in the commit itself), and its promise resolves only after an fdatasync of the WAL
 * file that STARTED after that commit — so it is on disk before the caller goes on, and record() is
 * durable before a byte is sent (G1). The fdatasync runs on libuv's thread pool. Writes that arrive
 * while one is in flight could not resolve before the next one anyway, so they are queued and
 * committed together in ONE transaction (a savepoint each) the moment it finishes, then share the
 * next fdatasync: N commands in flight cost one commit and one fsync per round, not N of each, and
 * no write waits longer than it would alone. One command at a time still costs one fsync per write.
 * Redoable writes (recover()'s settles, lease renewals) are committed without waiting for the disk,
 * those issued together in one transaction; the next fdatasync covers them.
 */
import { fdatasync, openSync, closeSync } from "node:fs";
import type Database from "better-sqlite3";

interface CommitOptions {
  /** `fn` is one statement, which SQLite commits on its own (no BEGIN/COMMIT round). */
  single?: boolean;
  /** Resolve once committed, without waiting for the disk (a write its caller redoes if lost). */
  redoable?: boolean;
}

export interface Committer {
  /** Runs `fn` in a transaction; resolves with its result once the commit is durable (see CommitOptions). */
  <T>(fn: () => T, options?: CommitOptions): Promise<T>;
  /** Resolves once every commit made so far is durable (close() waits for it). */
  drain(): Promise<void>;
  close(): void;
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface Queued {
  run: () => unknown;
  single: boolean;
  resolveWith: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * `durable` false: the commit is all ("normal": survives a killed process, not a power cut).
 * `walPath`: the database's `-wal` file (WAL mode), fdatasync'ed for "full".
 * `onRollback`: a grouped transaction failed as a whole — the writes in it left no trace.
 */
export function createCommitter(
  db: Database.Database,
  durable: boolean,
  walPath: string,
  onRollback: () => void,
): Committer {
  // One wrapper for every transaction (better-sqlite3 builds several closures per db.transaction());
  // called inside another transaction it becomes a savepoint.
  const inTx = db.transaction((run: () => unknown) => run());
  let fd: number | undefined;
  let syncing = false;
  let unsynced = false; // a redoable commit since the last fdatasync started
  let waiting: Waiter[] = []; // committed, waiting for an fdatasync that starts after their commit
  let queued: Queued[] = []; // arrived while an fdatasync ran: committed together when it ends

  const kick = () => {
    if (syncing || waiting.length === 0) return;
    const batch = waiting;
    waiting = [];
    syncing = true;
    unsynced = false;
    try {
      fd ??= openSync(walPath, "r");
    } catch (error) {
      syncing = false;
      for (const w of batch) w.reject(error);
      return;
    }
    fdatasync(fd, (error) => {
      syncing = false;
      for (const w of batch) {
        if (error) w.reject(error);
        else w.resolve();
      }
      flush();
      kick(); // the writes just committed: one more fdatasync for all of them
    });
  };

  /**
   * Commits `batch` in one transaction; each write's failure rejects it and rolls back only its
   * savepoint. Returns the writes that committed, with their results.
   */
  const runBatch = (batch: Queued[]): [Queued, unknown][] => {
    const done: [Queued, unknown][] = [];
    try {
      inTx.immediate(() => {
        for (const q of batch) {
          try {
            done.push([q, q.single ? q.run() : inTx(q.run)]);
          } catch (error) {
            q.reject(error);
          }
        }
      });
    } catch (error) {
      onRollback();
      for (const [q] of done) q.reject(error);
      return [];
    }
    return done;
  };
  /** The writes that arrived during an fdatasync: one commit now, durable with the next one. */
  const flush = () => {
    if (queued.length === 0) return;
    const batch = queued;
    queued = [];
    for (const [q, value] of runBatch(batch)) waiting.push({ resolve: () => q.resolveWith(value), reject: q.reject });
  };

  /**
   * Redoable writes made before the current microtasks have run, committed together right after
   * them (a microtask, not setImmediate: fake timers in a caller's tests must not stall a write).
   */
  let lazy: Queued[] = [];
  const flushLazy = () => {
    if (lazy.length === 0) return; // drain() got here first
    const batch = lazy;
    lazy = [];
    for (const [q, value] of runBatch(batch)) q.resolveWith(value);
    if (durable) unsynced = true;
  };

  const commit = <T>(fn: () => T, options: CommitOptions = {}): Promise<T> => {
    const single = options.single ?? false;
    if (options.redoable || (durable && syncing)) {
      return new Promise<T>((resolve, reject) => {
        const q: Queued = { run: fn, single, resolveWith: (v) => resolve(v as T), reject };
        if (!options.redoable) return void queued.push(q);
        if (lazy.push(q) === 1) queueMicrotask(flushLazy);
      });
    }
    let value: T;
    try {
      value = single ? fn() : (inTx(fn) as T);
    } catch (error) {
      return Promise.reject(error); // rolled back: nothing to make durable
    }
    if (!durable) return Promise.resolve(value);
    return new Promise<T>((resolve, reject) => {
      waiting.push({ resolve: () => resolve(value), reject });
      kick();
    });
  };
  return Object.assign(commit, {
    drain: () => {
      flushLazy();
      return durable && (syncing || unsynced || waiting.length > 0 || queued.length > 0)
        ? commit(() => undefined, { single: true })
        : Promise.resolve();
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  });
}
