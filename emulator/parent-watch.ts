// Stops the CLI when the process that started it goes away. `npx reseller-emulator &` then `kill $!`
// signals npx (or the `sh -c` npm runs it under), not this process, and a test runner that dies
// never sends a signal at all: without this the server would keep the port forever.
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

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The processes whose exit should stop us: the parent, and — when the parent is a shell that npm or
 * npx started (`npm_command` is set) — that shell's parent, the npm process itself.
 */
function watchedAncestors(): number[] {
  const parent = process.ppid;
  const watched = [parent];
  const stat = procStat(parent);
  if (stat && SHELLS.has(stat.comm) && process.env.npm_command !== undefined && stat.ppid > 1) watched.push(stat.ppid);
  return watched;
}

/** Who started this process: read as early as possible, before the parent has had a chance to exit. */
export interface Parentage {
  parent: number;
  watched: number[];
}

export function currentParentage(): Parentage {
  return { parent: process.ppid, watched: watchedAncestors() };
}

/**
 * Calls `onGone` once when the parent (or npm above a shell) has exited, including when it exited
 * between `parentage` being read and this call. The timer never keeps the process alive.
 */
export function onParentExit(
  onGone: (pid: number) => void,
  parentage = currentParentage(),
  intervalMs = 250,
): () => void {
  const { parent: startParent, watched } = parentage;
  const timer = setInterval(() => {
    // Re-parenting (ppid changes to init or a subreaper) is how the parent's death shows on every OS.
    const gone = process.ppid !== startParent ? startParent : watched.find((pid) => !alive(pid));
    if (gone === undefined) return;
    clearInterval(timer);
    onGone(gone);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
