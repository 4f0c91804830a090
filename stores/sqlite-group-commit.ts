/**
 * Durable commits for the SQLite journal with "full" synchronous, grouped: each write commits at
 * once (WAL, no fsync in the commit itself), and its promise resolves only after an fdatasync of
 * the WAL file that STARTED after that commit — so it is on disk before the caller goes on, and
 * record() is durable before a byte is sent (G1). The fdatasync runs on libuv's thread pool: while
 * one is in flight the process keeps working, and every commit made meanwhile shares the next one.
 * One command at a time still costs one fsync per write; N commands in flight share them.
 */
import { fdatasync, openSync, closeSync } from "node:fs";
import type Database from "better-sqlite3";

export interface Committer {
  /**
   * Runs `fn` in a transaction now (`single`: fn is one statement, which SQLite commits on its own —
   * no BEGIN/COMMIT round); resolves with its result once the commit is durable.
   */
  <T>(fn: () => T, single?: boolean): Promise<T>;
  /** Resolves once every commit made so far is durable (close() waits for it). */
  drain(): Promise<void>;
  close(): void;
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * `durable` false: the commit is all ("normal": survives a killed process, not a power cut).
 * `walPath`: the database's `-wal` file (WAL mode), fdatasync'ed for "full".
 */
export function createCommitter(db: Database.Database, durable: boolean, walPath: string): Committer {
  let fd: number | undefined;
  let syncing = false;
  let waiting: Waiter[] = [];

  const kick = () => {
    if (syncing || waiting.length === 0) return;
    const batch = waiting;
    waiting = [];
    syncing = true;
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
      kick(); // commits made while this fsync ran: one more for all of them
    });
  };
  const synced = () =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ resolve, reject });
      kick();
    });

  const commit = <T>(fn: () => T, single = false): Promise<T> => {
    let value: T;
    try {
      value = single ? fn() : db.transaction(fn)();
    } catch (error) {
      return Promise.reject(error); // rolled back: nothing to make durable
    }
    return durable ? synced().then(() => value) : Promise.resolve(value);
  };
  return Object.assign(commit, {
    drain: () => (durable && (syncing || waiting.length > 0) ? synced() : Promise.resolve()),
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  });
}
