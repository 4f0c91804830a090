// Stops the CLI when the process that started it goes away. `npx reseller-emulator &` then `kill $!`
// signals npx (or the `sh -c` npm runs it under), not this process, and a test runner that dies
// never sends a signal at all: without this the server would keep the port forever.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const SHELLS = new Set(["sh", "dash", "bash", "zsh", "ash", "ksh"]);

/** The parent pid and command name of `pid`, from /proc (Linux); undefined elsewhere. */
function procStat(pid: number): { ppid: number; comm: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid …": comm may itself contain spaces or parentheses.
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const ppid = Number(stat.slice(close + 2).split(" ")[1]);
    return Number.isInteger(ppid) ? { ppid, comm } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * procStat(), or on other Unix systems (macOS, the BSDs) what `ps` says. Only read once at start-up:
 * the 250 ms checks never start a process.
 */
function ancestorStat(pid: number): { ppid: number; comm: string } | undefined {
  const stat = procStat(pid);
  if (stat !== undefined || process.platform === "win32" || process.platform === "linux") return stat;
  try {
    const out = execFileSync("ps", ["-o", "ppid=", "-o", "comm=", "-p", String(pid)], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 2_000,
    });
    const m = /^\s*(\d+)\s+(.*?)\s*$/.exec(out);
    // `comm` is the executable's path there (`/bin/sh`, `-zsh` for a login shell).
    return m ? { ppid: Number(m[1]), comm: m[2].replace(/^-/, "").split("/").pop()! } : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** npm titles its process `npm exec <bin>` / `npm run <script>` (npx included); comm keeps 15 characters. */
function isNpm(comm: string): boolean {
  return /^(?:npm|npx)(?: |$)/.test(comm);
}

/**
 * The processes whose exit should stop us: the parent; when the parent is a shell that npm started,
 * npm itself; and when npm is between us and the starter (`npx`, `npm exec`, `npm run`), whoever
 * started npm — a script that ran `npx reseller-emulator &`, or a Node process that spawned `npx`.
 * npm waits for its child, so when the starter exits npm is re-parented and lives on; watching only
 * npm would keep the server running. Ancestors are read from /proc on Linux and
 * from `ps` on other Unix systems; on Windows only the parent is watched.
 */
function watchedAncestors(): number[] {
  const parent = process.ppid;
  const watched = [parent];
  let pid = parent;
  let stat = ancestorStat(parent);
  let npm = stat !== undefined && isNpm(stat.comm);
  if (stat && !npm && SHELLS.has(stat.comm) && stat.ppid > 1) {
    const above = ancestorStat(stat.ppid);
    // `npm_command` is set in everything npm runs; the title says so even when the variable was inherited.
    if (process.env.npm_command !== undefined || (above !== undefined && isNpm(above.comm))) {
      pid = stat.ppid;
      watched.push(pid);
      stat = above;
      npm = true;
    }
  }
  if (npm && stat && stat.ppid > 1 && stat.ppid !== pid) watched.push(stat.ppid);
  return watched;
}

/** Who started this process: read as early as possible, before the parent has had a chance to exit. */
export interface Parentage {
  parent: number;
  /** The parent first, then each watched ancestor in order (each the parent of the one before). */
  watched: number[];
}

export function currentParentage(): Parentage {
  return { parent: process.ppid, watched: watchedAncestors() };
}

/**
 * True when `pid` has exited, or — on Linux, where `child` (the process below it in the chain) can be
 * read — when `child` was re-parented away from it: that is how its exit shows even if the pid is reused.
 */
function gone(pid: number, child: number): boolean {
  if (!alive(pid)) return true;
  if (child === process.pid) return false;
  const stat = procStat(child);
  return stat !== undefined && stat.ppid !== pid;
}

/**
 * Calls `onGone` once when the parent, or another watched ancestor (npm, whoever started npm), has
 * exited, including when it exited between `parentage` being read and this call. The timer never
 * keeps the process alive.
 */
export function onParentExit(
  onGone: (pid: number) => void,
  parentage = currentParentage(),
  intervalMs = 250,
): () => void {
  const { parent: startParent, watched } = parentage;
  const timer = setInterval(() => {
    // Re-parenting (ppid changes to init or a subreaper) is how the parent's death shows on every OS.
    const exited =
      process.ppid !== startParent
        ? startParent
        : watched.find((pid, i) => gone(pid, i === 0 ? process.pid : watched[i - 1]));
    if (exited === undefined) return;
    clearInterval(timer);
    onGone(exited);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
