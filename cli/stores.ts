/**
 * Opens the journal the job writes through (G1): SQLite at a stated default path, a file given with
 * --journal, or PostgreSQL for fleets (a postgres:// URL). The store modules are loaded on demand so
 * that a missing optional driver (pg; for SQLite see sqlite-open.ts) is a clear message, not a crash.
 */
import { existsSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { redactUrl, type Journal } from "../src/index";
import { SetupError, UsageError } from "./errors";
import { openFailure, openSqliteJournal, type SqliteDriverName } from "./sqlite-open";
import { journalLockHolder, type JournalLock } from "./journal-lock";
import { lockPgJob, pgJobHolder, pgJournalExists } from "./pg-job-lock";
// Types only: the modules themselves load on demand, below.
import type * as PgStore from "../stores/pg-journal";
import type * as SqliteStore from "../stores/sqlite-journal";

export interface OpenedJournal {
  journal: Journal;
  /** What to print once: the file path, the PostgreSQL host/database (no password), or "memory". */
  label: string;
  kind: "sqlite" | "postgres" | "memory";
  /** SQLite only: the driver this runtime opened it with (bun:sqlite, node:sqlite, better-sqlite3). */
  driver?: SqliteDriverName;
  /** SQLite only: the file did not exist and this run created it (the notice says so). */
  created?: boolean;
  /** PostgreSQL only: takes the job's lock on this journal for one API key (pg-job-lock.ts). */
  lockJob?: (scope: { apiKeyId: string; environment: string }) => Promise<JournalLock>;
  /**
   * For a dry run, which takes no lock: the job that holds this journal's lock (SQLite) or the key's
   * (PostgreSQL) right now — who, and what it holds — or undefined.
   */
  jobHolder?: (scope: { apiKeyId: string; environment: string }) => Promise<JobHolder | undefined>;
}

export interface JobHolder {
  /** As a refused job names it: pid, host, start. */
  holder: string;
  /** What it holds: "the journal FILE", or "API key K (env) on the journal L". */
  holds: string;
  /** PostgreSQL locks per key: the job surely uses this key. A SQLite journal's job may use another. */
  sameKey: boolean;
}

function sqliteJobHolder(file: string): OpenedJournal["jobHolder"] {
  return async () => {
    const holder = journalLockHolder(file);
    return holder ? { holder, holds: `the journal ${file}`, sameKey: false } : undefined;
  };
}

/** The notice a run prints once: where the journal is, and with which SQLite driver. */
export function journalNotice(opened: OpenedJournal): string {
  return `journal: ${opened.label}${opened.driver ? ` (${opened.driver})` : ""}`;
}

/**
 * Said by a dry run while a job holds its journal or key (B1): not refused, as it changes nothing, but
 * its requests count against the key's window, which that job paces alone (C3).
 */
export function dryRunBesideJobNotice({ holder, holds, sameKey }: JobHolder): string {
  const shared = sameKey
    ? "its requests count against the same key's rate limit"
    : "if that job uses the same API key, this dry run's requests count against its rate limit";
  return `Another reseller job (${holder}) is using ${holds}. This dry run is not refused, but ${shared}, which that job paces alone: the job may meet HTTP 429 and wait (nothing is lost). To leave its window alone, run the dry run once the job is done.`;
}

/** Said once when a run created its SQLite journal: a job that ran before did not write here. */
export function newJournalNotice(opened: OpenedJournal): string | undefined {
  return opened.created ? `new journal created: ${opened.label}` : undefined;
}

/** The store's default schema, named here: a job's lock on the journal is keyed by it (pg-job-lock.ts). */
const PG_SCHEMA = "reseller_api";

const MEMORY_LABEL = "memory (ends with this process, like the in-process emulator)";

/**
 * Where the journal of this invocation is, without opening it (nor creating a file or a folder):
 * for commands that journal nothing (`context`, `domains list`), which name it but never touch it.
 */
export function describeJournal(spec: string | undefined, env: NodeJS.ProcessEnv, memory: boolean): string {
  const chosen = chooseJournal(spec, env, memory);
  if (!chosen && memory) return MEMORY_LABEL;
  if (chosen && isPostgresUrl(chosen)) return redactUrl(chosen);
  return resolve(chosen || defaultJournalPath(env));
}

/** `$XDG_STATE_HOME/reseller/journal.sqlite`, else `~/.local/state/reseller/journal.sqlite`. */
function defaultJournalPath(env: NodeJS.ProcessEnv): string {
  const state = env.XDG_STATE_HOME?.trim() || join(homedir(), ".local", "state");
  return join(state, "reseller", "journal.sqlite");
}

function canParse(value: string): boolean {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

function isPostgresUrl(value: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(value);
}

/**
 * H2: an `@` after the authority of `scheme://…` (in the path, the query or the fragment): a user
 * name or password with an unencoded `@`, `/`, `:`, `#` or `?`, which every parser splits somewhere
 * else — `postgres://ops:Xy@z:9/Secret@db/j` connects to host `z` with part of the password as the
 * database name, and would print the rest of it.
 */
function hasAtAfterAuthority(url: string): boolean {
  const authority = url.slice(url.indexOf("//") + 2);
  const end = authority.search(/[/?#]/);
  return end >= 0 && authority.slice(end).includes("@");
}

/**
 * The form of a postgres:// journal, said without a URL that holds `@`: printed text passes through
 * redactUrl (redact.ts), which would show an example `user:password@` as `user:[REDACTED]@`.
 */
const PG_FORM = "postgres://host:5432/db, with the user and password before the host as user:password@host";

/** How to put a password (or a user name) with special characters into a postgres:// URL. */
const PERCENT_ENCODE =
  "percent-encode special characters in the user name and password (@ → %40, / → %2F, : → %3A, # → %23, ? → %3F), or leave the password out of the URL and set it in PGPASSWORD";

/**
 * The journal this run uses: --journal, else RESELLER_JOURNAL (not with --emulator), else undefined
 * (the default file, or memory with --emulator). Every value that could silently start a new, empty
 * journal — where a re-run would renew everything again — is a usage error, printed redacted:
 * - an empty (or blank) --journal or RESELLER_JOURNAL: never "the default journal" by accident;
 * - a `<scheme>://` value that is not a postgres:// or postgresql:// URL (`postgress://…`), one with
 *   an `@` after its host (a password with an unencoded `@`, `/`, `:`, `#` or `?`), or one that does
 *   not parse;
 * - anything else shaped like a connection string: `postgres:/app:pw@host/db` (a slash missing),
 *   a scheme-less `app:pw@host/db`, a libpq `host=… password=…` string — never a file path (nor
 *   folders named after the URL and its password).
 */
export function chooseJournal(spec: string | undefined, env: NodeJS.ProcessEnv, memory: boolean): string | undefined {
  const fromEnv = spec === undefined && !memory;
  const source = spec !== undefined ? "--journal" : "RESELLER_JOURNAL";
  const raw = spec ?? (memory ? undefined : env.RESELLER_JOURNAL);
  if (raw === undefined) return undefined;
  const chosen = raw.trim();
  if (!chosen)
    throw new UsageError(
      fromEnv
        ? `RESELLER_JOURNAL is set but empty: unset it (\`unset RESELLER_JOURNAL\`) to use the default journal at ${defaultJournalPath(env)}, or set it to the journal of your jobs. Nothing was sent; an empty value never falls back to the default journal, where a finished job would run again.`
        : `--journal is empty: give the journal of your jobs (a file path or a postgres:// URL), or leave --journal out to use the default journal at ${defaultJournalPath(env)}. Nothing was sent; an empty value never falls back to the default journal, where a finished job would run again.`,
    );
  const refuse = (
    what: string,
    fix = `Give a file path (SQLite) or a postgres:// or postgresql:// URL (${PG_FORM})`,
  ): never => {
    throw new UsageError(`${source}: ${what}. ${fix}; nothing was created and nothing was sent.`);
  };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(chosen)) {
    const scheme = chosen.slice(0, chosen.indexOf(":")).toLowerCase();
    if (!isPostgresUrl(chosen))
      refuse(`${redactUrl(chosen)} is a ${scheme}:// URL, which is no journal this CLI opens`);
    // Before it is parsed: such a URL may parse, with part of the password as its host or database.
    if (hasAtAfterAuthority(chosen))
      refuse(
        `the ${scheme}:// URL (not echoed: it may hold a password) has an "@" after its host, in its path, query or fragment: its user name or password holds an unencoded "@", "/", ":", "#" or "?", so part of the password would be read as the host, the port or the database`,
        `Write it again: ${PERCENT_ENCODE}`,
      );
    if (!canParse(chosen))
      refuse(
        `the ${scheme}:// URL (not echoed: it may hold a password) does not parse`,
        `Check its host and port (1 to 65535) — the form is ${PG_FORM} — and ${PERCENT_ENCODE}`,
      );
    return chosen;
  }
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(chosen)?.[1];
  if (scheme)
    refuse(
      `${scheme.toLowerCase()}:… (not echoed: it may hold a password) starts like a URL without "//"${
        isPostgresUrl(`${scheme}://`) ? ` — a postgres URL starts ${scheme.toLowerCase()}://` : ""
      } (a file whose name starts so: prefix it with ./)`,
    );
  if (/^[^\s/@]+:[^\s/@]*@/.test(chosen))
    refuse(
      "a value shaped like user:password@host (not echoed) — a connection string without its postgres:// scheme",
      "Put postgres:// in front of it, or give a file path (SQLite)",
    );
  if (/(?:^|\s)(?:host|hostaddr|port|dbname|user|password|sslmode|passfile)\s*=/i.test(chosen))
    refuse(
      "a libpq key=value connection string (not echoed: it may hold a password); --journal and RESELLER_JOURNAL take a postgres:// URL instead",
      `Write the same settings as a URL — host=H port=P dbname=D user=U password=W becomes U:W@H:P/D after postgres:// — and ${PERCENT_ENCODE}`,
    );
  return chosen;
}

/**
 * A4/H2: a postgres:// --journal with a password in it (`user:password@`, `?password=`) puts the
 * password where API tokens are never read from — the command line, which shell history and `ps`
 * keep. The run goes on (a journal is not refused for it), with this warning, which holds no part of
 * the value; RESELLER_JOURNAL is not warned about. Undefined when there is nothing to warn about, or
 * when chooseJournal refuses the value anyway.
 */
export function journalPasswordWarning(spec: string | undefined): string | undefined {
  const value = spec?.trim();
  if (!value || !isPostgresUrl(value) || hasAtAfterAuthority(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (!url.password && !url.searchParams.get("password")) return undefined;
  return "warning: --journal holds a database password, and a command line is kept in shell history and shown by `ps` to other users of this machine: put the URL in RESELLER_JOURNAL instead, or leave the password out of it and set PGPASSWORD (PostgreSQL's own variable) — and change the password if others can read this history.";
}

/** A driver's message may quote the connection string or its password: neither is printed. */
function redactMessage(message: string, connectionString: string): string {
  let out = message.split(connectionString).join(redactUrl(connectionString));
  try {
    const password = decodeURIComponent(new URL(connectionString).password);
    const params = new URL(connectionString).searchParams;
    for (const secret of [password, params.get("password") ?? ""])
      if (secret.length >= 3) out = out.split(secret).join("[REDACTED]");
  } catch {
    // unparseable: the whole string was already replaced
  }
  return out;
}

function missingDriver(driver: string, error: unknown): never {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
    throw new SetupError(
      `This journal needs the ${driver} package: run \`npm install ${driver}\` next to reseller-api.`,
    );
  }
  throw error;
}

/** A postgres:// journal; commands that only read never create its tables (see `existing`, below). */
async function openPgJournal(chosen: string, existing?: { what: string } | { dryRun: true }): Promise<OpenedJournal> {
  let mod: typeof PgStore;
  try {
    mod = await import("../stores/pg-journal");
  } catch (error) {
    missingDriver("pg", error);
  }
  const label = redactUrl(chosen);
  if (existing) {
    let exists: boolean;
    try {
      exists = await pgJournalExists(chosen, PG_SCHEMA);
    } catch (error) {
      throw new SetupError(
        `Cannot open the PostgreSQL journal ${label}: ${redactMessage((error as Error).message, chosen)} — is PostgreSQL running there, and are the user, password and database in --journal or RESELLER_JOURNAL right? Nothing was created and nothing was sent.`,
      );
    }
    if (!exists) {
      if ("dryRun" in existing) {
        const { createMemoryJournal } = await import("../stores/memory-journal");
        return {
          journal: createMemoryJournal(),
          label: `${label} holds no journal yet: this dry run looks commands up in an empty in-memory journal and creates nothing there`,
          kind: "memory",
        };
      }
      throw new SetupError(
        `No journal in ${label}: the database has no ${PG_SCHEMA} journal tables, so there is no command to ${existing.what}, and none was created. Check --journal or RESELLER_JOURNAL (the database name, the user); renew, register, check and recover create the journal on their first run.`,
      );
    }
  }
  try {
    return {
      journal: await mod.createPgJournal({ connectionString: chosen, schema: PG_SCHEMA }),
      label,
      kind: "postgres",
      lockJob: (scope) =>
        lockPgJob(chosen, label, { ...scope, schema: PG_SCHEMA }, (message) => redactMessage(message, chosen)),
      jobHolder: async (scope) => {
        const holder = await pgJobHolder(chosen, { ...scope, schema: PG_SCHEMA });
        return holder
          ? { holder, holds: `API key ${scope.apiKeyId} (${scope.environment}) on the journal ${label}`, sameKey: true }
          : undefined;
      },
    };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "MODULE_NOT_FOUND") missingDriver("pg", error);
    throw new SetupError(
      `Cannot open the PostgreSQL journal ${label}: ${redactMessage((error as Error).message, chosen)}`,
    );
  }
}

/**
 * @param sync SQLite only: "full" (default) fsyncs every commit — survives a power cut; "normal"
 *   survives a killed process (SIGKILL, OOM) but may lose the last commits on a power cut.
 */
export async function openJournal(
  spec: string | undefined,
  env: NodeJS.ProcessEnv,
  memory: boolean,
  sync: "full" | "normal" = "full",
  /**
   * Set by commands that only read (or prune) a journal: a SQLite file that does not exist is not
   * created — `{ what }`: a set-up error naming it; `{ dryRun: true }`: an empty in-memory journal
   * instead (a dry run looks commands up but never needs a new file).
   */
  existing?: { what: string } | { dryRun: true },
): Promise<OpenedJournal> {
  // --emulator: a throwaway journal unless --journal names one explicitly (RESELLER_JOURNAL is the
  // real journal of real jobs; a test key's commands do not belong there).
  const chosen = chooseJournal(spec, env, memory);
  if (!chosen && memory) {
    const { createMemoryJournal } = await import("../stores/memory-journal");
    return {
      journal: createMemoryJournal(),
      label: MEMORY_LABEL,
      kind: "memory",
    };
  }
  if (chosen && isPostgresUrl(chosen)) return openPgJournal(chosen, existing);
  const file = resolve(chosen || defaultJournalPath(env));
  if (existing && "dryRun" in existing && !existsSync(file)) {
    const { createMemoryJournal } = await import("../stores/memory-journal");
    return {
      journal: createMemoryJournal(),
      label: `${file} does not exist yet: this dry run looks commands up in an empty in-memory journal and creates no file`,
      kind: "memory",
      jobHolder: sqliteJobHolder(file),
    };
  }
  if (existing && "what" in existing && !existsSync(file))
    throw new SetupError(
      `No journal at ${file}: the file does not exist, so there is no command to ${existing.what}, and none was created. Check --journal or RESELLER_JOURNAL${
        chosen
          ? ""
          : env.XDG_STATE_HOME?.trim()
            ? " (this is the default path, under XDG_STATE_HOME)"
            : " (this is the default path, under ~/.local/state: XDG_STATE_HOME is not set)"
      }; renew, register, check and recover create the journal on their first run.`,
    );
  let mod: typeof SqliteStore;
  try {
    mod = await import("../stores/sqlite-journal");
  } catch (error) {
    throw new SetupError(`Cannot load the SQLite journal module: ${(error as Error).message}`);
  }
  // A journal named explicitly (--journal, RESELLER_JOURNAL) is never created in a folder that does
  // not exist: `/nonexistent/dir/j.sqlite` is a typo, and a new, empty journal there would renew
  // everything a finished job renewed. Only the default path's folder is created (the first run).
  if (chosen && !existsSync(dirname(file)))
    throw new UsageError(
      `${spec?.trim() ? "--journal" : "RESELLER_JOURNAL"}: the folder ${dirname(file)} does not exist, so ${file} would be a new, empty journal — a typo there would run a finished job again. Check the path; for a new journal in a new folder, create it first: mkdir -p ${dirname(file)}. Nothing was created and nothing was sent.`,
    );
  const isNew = !existsSync(file);
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  } catch (error) {
    throw openFailure(error, file);
  }
  const { journal, driver } = openSqliteJournal(mod, file, sync);
  return { journal, label: file, kind: "sqlite", driver, created: isNew, jobHolder: sqliteJobHolder(file) };
}
