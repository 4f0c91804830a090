/**
 * H2: the SQLite journal's files are private. The main file is created 0600 before SQLite opens it;
 * SQLite gives the -wal and -shm files the main file's mode, and any left from before are narrowed
 * to it. An existing main file readable by group or others is reported (or refused): the journal
 * holds request bodies and outcomes. Also where prune() gives the freed pages back.
 */
import { chmodSync, closeSync, existsSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { createRedactor, InvalidOptionsError } from "../core";
import type { SqliteDatabase } from "./sqlite-migrate";

type Policy = "warn" | "refuse" | "ignore";

/** Checks createSqliteJournal()'s options up front, each error naming the fix. */
export function screenSqliteOptions(
  options: { filename?: unknown; busyTimeoutMs?: unknown; filePermissions?: unknown } | null | undefined,
  synchronous: unknown,
): void {
  if (options === null || typeof options !== "object") {
    throw new InvalidOptionsError('createSqliteJournal() needs options: { filename: "./journal.sqlite" }.', "options");
  }
  if (typeof options.filename !== "string" || options.filename.length === 0) {
    throw new InvalidOptionsError(
      'SqliteJournalOptions.filename must be a path, e.g. { filename: "./journal.sqlite" } (":memory:" for a throwaway one).',
      "filename",
    );
  }
  if (looksLikeDatabaseUrl(options.filename)) {
    const scheme = /^([a-z][a-z0-9+.-]+):\//i.exec(options.filename)?.[1];
    throw new InvalidOptionsError(
      `SqliteJournalOptions.filename is not a file path${scheme ? ` (it starts with ${scheme.toLowerCase()}:/)` : ""}: ` +
        'this looks like a database URL: use createPgJournal for PostgreSQL; for SQLite pass a file path, e.g. { filename: "./journal.sqlite" }. ' +
        "Nothing was created.",
      "filename",
    );
  }
  if (synchronous !== "full" && synchronous !== "normal") {
    throw new InvalidOptionsError(
      `SqliteJournalOptions.synchronous must be "full" (default: survives a power cut) or "normal", got ${JSON.stringify(synchronous)}.`,
      "synchronous",
    );
  }
  const t = options.busyTimeoutMs;
  if (t !== undefined && !(typeof t === "number" && Number.isFinite(t) && t >= 0)) {
    throw new InvalidOptionsError(
      "SqliteJournalOptions.busyTimeoutMs must be a number of ms ≥ 0 (default 5000).",
      "busyTimeoutMs",
    );
  }
  const p = options.filePermissions;
  if (p !== undefined && p !== "warn" && p !== "refuse" && p !== "ignore") {
    throw new InvalidOptionsError(
      `SqliteJournalOptions.filePermissions must be "warn" (default), "refuse" or "ignore", got ${JSON.stringify(p)}.`,
      "filePermissions",
    );
  }
}

/**
 * A database URL or connection string given where a path is expected: `postgres://…` (any scheme
 * followed by `:/`, but not SQLite's own `file:` URIs nor a Windows drive `C:/`), `user:password@host…`,
 * or libpq's `host=… password=…`. Opened as a path it would become folders named after it — and the
 * error naming that path would print the password.
 */
function looksLikeDatabaseUrl(filename: string): boolean {
  const scheme = /^([a-z][a-z0-9+.-]+):\//i.exec(filename)?.[1];
  if (scheme !== undefined && scheme.toLowerCase() !== "file") return true;
  if (/^[^/\\\s@:]+:[^/\\\s@]*@[^/\\\s]/.test(filename)) return true;
  return /(?:^|\s)(?:host|hostaddr|port|dbname|user|password|sslmode)\s*=/i.test(filename);
}

/**
 * A path as the journal's errors print it (H2): credentials in it (`user:password@`, `password=…`,
 * a URL's password or secret-looking query values, a token) become [REDACTED].
 */
function shownPath(path: string): string {
  return createRedactor()
    .text(path)
    .replace(/([^/\\\s:@]+):[^/\\\s@]+@/g, "$1:[REDACTED]@")
    .replace(/\b(password|passwd|pwd)\s*=\s*[^\s/]+/gi, "$1=[REDACTED]");
}

const isOnDisk = (filename: string) => filename !== ":memory:" && filename !== "" && !filename.startsWith("file:");

/**
 * Creates the journal file 0600 when it does not exist yet (whatever the umask and whether or not
 * the folder existed), and checks an existing one. Returns whether the journal lives in a file.
 */
export function preparePrivateFile(filename: string, policy: Policy): boolean {
  if (!isOnDisk(filename)) return false;
  try {
    closeSync(openSync(filename, "wx", 0o600));
    return true;
  } catch (e) {
    if ((e as { code?: string }).code !== "EEXIST") throw openFailure(filename, e);
  }
  const stat = statSync(filename);
  if (stat.isDirectory()) throw openFailure(filename, { code: "EISDIR" });
  const mode = stat.mode & 0o777;
  if ((mode & 0o077) !== 0 && policy !== "ignore") {
    const shown = shownPath(filename);
    const message =
      `The journal ${shown} is readable by other local users (mode ${mode.toString(8).padStart(4, "0")}); it holds ` +
      `request bodies and outcomes. Run: chmod 600 ${shown} (and its -wal/-shm files).`;
    if (policy === "refuse") throw new InvalidOptionsError(message, "filePermissions");
    process.emitWarning(message, { code: "RESELLER_JOURNAL_PERMISSIONS" });
  }
  return true;
}

/** -wal/-shm files left from before (e.g. from a 0644 era) get no more access than the main file. */
export function privateSidecars(filename: string): void {
  const main = statSync(filename).mode & 0o777;
  for (const suffix of ["-wal", "-shm"]) {
    const f = `${filename}${suffix}`;
    if (!existsSync(f)) continue;
    const mode = statSync(f).mode & 0o777;
    if ((mode & ~main) !== 0) chmodSync(f, mode & main);
  }
}

/**
 * After a prune: gives the pages left entirely free back to the file system (auto_vacuum =
 * INCREMENTAL; space freed inside pages that keep rows is reused, and only `VACUUM` shrinks the file
 * by it — data-at-rest guide) and checkpoints the WAL with TRUNCATE, so
 * the pruned bodies' old page images leave the -wal too. Best effort: a reader still holding an old
 * snapshot makes the checkpoint stop early; the next prune or close finishes it.
 */
export function reclaim(db: SqliteDatabase): void {
  db.pragma("incremental_vacuum");
  db.pragma("wal_checkpoint(TRUNCATE)");
}

/**
 * The file system's or SQLite's refusal to open the journal, as the package's error naming the fix
 * (a missing folder is the usual deployment mistake); anything else is rethrown as it is.
 */
export function openFailure(filename: string, error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const shown = shownPath(filename);
  const folder = shownPath(dirname(filename));
  const fix: Record<string, string> = {
    ENOENT: `its folder ${folder} does not exist: create it (mkdir -p ${folder}) or pass another filename`,
    ENOTDIR: `a part of its path is a file, not a folder: pass another filename`,
    EISDIR: `it is a folder: pass a file path inside it, e.g. ${shown.replace(/\/+$/, "")}/journal.sqlite`,
    EACCES: `permission denied: run as a user that may read and write it and its folder, or pass another filename`,
    EPERM: `permission denied: run as a user that may read and write it and its folder, or pass another filename`,
    EROFS: `the file system is read-only: pass a filename on a writable one`,
    SQLITE_NOTADB: `it is not a SQLite database (another file?): pass the journal's own file, or a new filename`,
    SQLITE_CANTOPEN: `SQLite cannot open it (a missing folder or no permission): check the path and its folder`,
  };
  // Deno without --allow-read/--allow-write for the folder (Deno.errors.NotCapable; PermissionDenied before Deno 2).
  const name = (error as { name?: unknown } | null)?.name;
  if (name === "NotCapable" || name === "PermissionDenied") {
    const dir = folder;
    return new InvalidOptionsError(
      `The journal ${shown} cannot be opened: Deno was not given access to its folder. Run with --allow-read=${dir} --allow-write=${dir} (SQLite also writes the -wal and -shm files beside it), or pass a filename in a folder it may use.`,
      "filename",
    );
  }
  if (typeof code !== "string" || !Object.hasOwn(fix, code)) return error;
  return new InvalidOptionsError(`The journal ${shown} cannot be opened (${code}): ${fix[code]}.`, "filename");
}
