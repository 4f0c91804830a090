/**
 * The SQLite journal on whatever runtime runs the CLI: that runtime's own SQLite where it has one —
 * bun:sqlite in Bun, node:sqlite in Deno; in Node.js better-sqlite3 when it is installed, else the
 * built-in node:sqlite (Node.js ≥ 22.5) — and, when none of them loads or the file cannot be opened,
 * advice that works on this runtime (a missing driver is not fixed by another --journal FILE).
 */
import { dirname } from "node:path";
import { InvalidOptionsError, isMissingDependencyError, type Journal } from "../src/index";
import { SetupError } from "./errors";
// Types only: the module loads on demand (stores.ts).
import type * as SqliteStore from "../stores/sqlite-journal";

export type SqliteDriverName = "better-sqlite3" | "node:sqlite" | "bun:sqlite";

export interface CliRuntime {
  name: "node" | "bun" | "deno";
  version: string;
}

/** The runtime the CLI runs on. */
function cliRuntime(): CliRuntime {
  const g = globalThis as { Bun?: { version: string }; Deno?: { version: { deno: string } } };
  if (g.Bun) return { name: "bun", version: g.Bun.version };
  if (g.Deno) return { name: "deno", version: g.Deno.version.deno };
  return { name: "node", version: process.versions.node };
}

/** The drivers to try on `rt`, best first: better-sqlite3 is a Node.js addon Bun and Deno cannot load. */
function driversFor(rt: CliRuntime): SqliteDriverName[] {
  if (rt.name === "bun") return ["bun:sqlite"];
  if (rt.name === "deno") return ["node:sqlite"];
  return ["better-sqlite3", "node:sqlite"];
}

function atLeast(version: string, major: number, minor: number): boolean {
  const [a = 0, b = 0] = version.split(".").map(Number);
  return a > major || (a === major && b >= minor);
}

const POSTGRES = "or a PostgreSQL journal: --journal postgres://…";

/** No SQLite loads here: what does, on this runtime. */
function noDriver(rt: CliRuntime): string {
  const on = `${rt.name === "node" ? "Node.js" : rt.name === "bun" ? "Bun" : "Deno"} ${rt.version}`;
  if (rt.name === "bun") return `bun:sqlite did not load in ${on}. Upgrade Bun (bun upgrade), ${POSTGRES}.`;
  if (rt.name === "deno")
    return `node:sqlite is not available in ${on} (Deno ≥ 2.2 has it). Upgrade Deno (deno upgrade), ${POSTGRES}.`;
  if (atLeast(rt.version, 22, 5))
    return (
      `better-sqlite3 is not installed and ${on} keeps its built-in node:sqlite behind a flag. Run ` +
      `NODE_OPTIONS=--experimental-sqlite reseller …, or install it next to reseller-api: npm install ` +
      `better-sqlite3 (or use Node.js ≥ 22.13, Bun or Deno, whose SQLite needs nothing), ${POSTGRES}.`
    );
  return (
    `better-sqlite3 is not installed and ${on} has no built-in SQLite. Install it next to reseller-api: ` +
    `npm install better-sqlite3 — or run the CLI on Node.js ≥ 22.5 (node:sqlite), Bun (bun:sqlite) or ` +
    `Deno (node:sqlite), which need nothing more, ${POSTGRES}.`
  );
}

/**
 * Deno refuses a file the process was not allowed (NotCapable, --allow-read/--allow-write): its own
 * error, or the store's InvalidOptionsError that already says so.
 */
function denyByDeno(error: unknown): boolean {
  const e = error as { name?: string; message?: string };
  return (
    e?.name === "NotCapable" ||
    e?.name === "PermissionDenied" ||
    (e?.message ?? "").includes("run again with the --allow-") ||
    (e?.message ?? "").includes("Deno was not given access")
  );
}

/** What to do when the journal file (or its folder) cannot be opened, by the error's code, in CLI words. */
const OPEN_FIXES: Readonly<Record<string, (file: string) => string>> = {
  ENOENT: (f) =>
    `its folder ${dirname(f)} does not exist and could not be created: create it (mkdir -p ${dirname(f)}), or pass --journal FILE to put the journal elsewhere`,
  ENOTDIR: () => "a part of its path is a file, not a folder: pass --journal with another path",
  EEXIST: () => "a part of its path is a file, not a folder: pass --journal with another path",
  EISDIR: (f) => `it is a folder: pass a file inside it, e.g. --journal ${f.replace(/\/+$/, "")}/journal.sqlite`,
  EACCES: () =>
    "permission denied: run as a user that may read and write the file and its folder, or pass --journal with another path",
  EPERM: () =>
    "permission denied: run as a user that may read and write the file and its folder, or pass --journal with another path",
  EROFS: () => "the file system is read-only: pass --journal with a path on a writable one",
  SQLITE_NOTADB: () =>
    "it is not a SQLite database (another file?): pass the journal's own file with --journal, or a new path",
  SQLITE_CANTOPEN: () =>
    "SQLite cannot open it (a missing folder or no permission): check the path and its folder, or pass --journal with another path",
};

/** The error code of a refusal: the errno or SQLite code, or the one the store named in its message. */
function openErrorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && Object.hasOwn(OPEN_FIXES, code)) return code;
  // The store's InvalidOptionsError ("… cannot be opened (EISDIR): …") keeps only the code's name.
  const named = error instanceof Error ? /\((E[A-Z]+|SQLITE_[A-Z]+)\)/.exec(error.message)?.[1] : undefined;
  return named && Object.hasOwn(OPEN_FIXES, named) ? named : undefined;
}

/**
 * The file could not be opened (or its folder made): one SetupError (exit code 4) that names the file,
 * the cause and one fix, in the CLI's terms (--journal) — the store's own error, which names its fix
 * in the SDK's terms (`filename`), is not quoted on top of it.
 */
export function openFailure(error: unknown, file: string, rt: CliRuntime = cliRuntime()): SetupError {
  const message = (error instanceof Error ? error.message : String(error)).replace(/[.\s]+$/, "");
  if (rt.name === "deno" && denyByDeno(error)) {
    // Deno's message ("run again with the --allow-… flag") and the store's name a fix of their own:
    // the one stated here is the exact flags for this folder.
    const dir = dirname(file);
    return new SetupError(
      `Cannot open the SQLite journal ${file}: Deno was not allowed to read and write the journal's folder (the file, its -wal and -shm): add --allow-read=${dir} --allow-write=${dir} (or run with -A).`,
    );
  }
  const code = openErrorCode(error);
  if (code) return new SetupError(`Cannot open the SQLite journal ${file} (${code}): ${OPEN_FIXES[code](file)}.`);
  if (error instanceof InvalidOptionsError)
    // Another refusal of the store: its message already names the file and the fix.
    return new SetupError(`${message}.`);
  return new SetupError(
    `Cannot open the SQLite journal ${file}: ${message}. Check that its folder can be created and written, or pass --journal FILE to put it elsewhere.`,
  );
}

/** Opens `file` with the first driver this runtime has; says which one it is. */
export function openSqliteJournal(
  mod: typeof SqliteStore,
  file: string,
  synchronous: "full" | "normal",
  rt: CliRuntime = cliRuntime(),
): { journal: Journal; driver: SqliteDriverName } {
  for (const driver of driversFor(rt)) {
    try {
      return { journal: mod.createSqliteJournal({ filename: file, synchronous, driver }), driver };
    } catch (error) {
      // A driver this runtime lacks is refused before any file is created: try the next one.
      if (isMissingDependencyError(error)) continue;
      throw openFailure(error, file, rt);
    }
  }
  throw new SetupError(`No SQLite for the journal ${file}: ${noDriver(rt)}`);
}
