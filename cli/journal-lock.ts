/**
 * One job at a time on one SQLite journal (B-rules: never throttled). Each CLI process paces its
 * requests alone, so two jobs on one journal and key together exceed the key's window (HTTP 429) and
 * one reconciles what the other is still sending (`unknown` rows). A job (renew, register, check,
 * recover) therefore holds `<journal>.lock` — created exclusively, holding its pid and host — while it
 * runs; a second job on the same journal is refused before anything is sent. A lock whose process is
 * gone (kill -9, a reboot) is taken over. PostgreSQL journals (several machines) lock per key: pg-job-lock.ts.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { SetupError } from "./errors";

export interface JournalLock {
  release(): void;
}

interface Holder {
  pid: number;
  host: string;
  startedAt: string;
}

function readHolder(path: string): Holder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<Holder>;
    return typeof parsed.pid === "number" && typeof parsed.host === "string"
      ? { pid: parsed.pid, host: parsed.host, startedAt: typeof parsed.startedAt === "string" ? parsed.startedAt : "" }
      : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Its job may still run: on this host its pid is alive; on another host we cannot tell, so yes. */
function stillRuns(holder: Holder): boolean {
  return holder.host !== hostname() || alive(holder.pid);
}

/** How a refused job or a dry run names the holder: pid, host when another, and when it started. */
function describeHolder(holder: Holder): string {
  return `pid ${holder.pid}${holder.host !== hostname() ? ` on ${holder.host}` : ""}, started ${holder.startedAt}`;
}

/**
 * The job that holds `${journalFile}.lock` and still runs (or runs on another host), or undefined:
 * a dry run takes no lock and is not refused, but says so (its requests share the key's window, C3).
 */
export function journalLockHolder(journalFile: string): string | undefined {
  const holder = readHolder(`${journalFile}.lock`);
  return holder && stillRuns(holder) ? describeHolder(holder) : undefined;
}

/** Takes `${journalFile}.lock`, or throws a SetupError naming the job that holds it. */
export function lockJournal(
  journalFile: string,
  proc: Pick<NodeJS.Process, "once" | "removeListener"> = process,
): JournalLock {
  const path = `${journalFile}.lock`;
  const me: Holder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, "wx", 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 2) throw error;
      const holder = readHolder(path);
      // Half-written by a process starting this very moment: look again.
      if (!holder && attempt < 2) continue;
      if (holder && stillRuns(holder))
        throw new SetupError(
          `Another reseller job (${describeHolder(holder)}) is using the journal ${journalFile}; two jobs on one journal share one key's rate limit without pacing together (HTTP 429) and settle each other's commands. Wait for it to finish and re-run, or stop it (Ctrl-C) first. Nothing was sent. If no such job runs, delete ${path}.`,
        );
      // Its process is gone (kill -9, OOM, reboot): the lock is stale.
      try {
        unlinkSync(path);
      } catch {
        // another process took it over first: try again
      }
      continue;
    }
    try {
      writeSync(fd, JSON.stringify(me));
    } finally {
      closeSync(fd);
    }
    break;
  }
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    proc.removeListener("exit", release);
    try {
      if (readHolder(path)?.pid === me.pid) unlinkSync(path);
    } catch {
      // already gone
    }
  };
  proc.once("exit", release);
  return { release };
}
