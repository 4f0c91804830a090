/**
 * Which SQLite the journal opens, by what the runtime has: bun:sqlite in Bun; node:sqlite in Deno
 * (better-sqlite3 is a Node addon Deno cannot load); in Node.js better-sqlite3 when installed (Node
 * 20 has no built-in SQLite), else node:sqlite (Node ≥ 22.5). Whatever is missing is a
 * MissingDependencyError that names the fix for this runtime, never a raw dlopen error.
 */
import type Database from "better-sqlite3";
import { InvalidOptionsError, MissingDependencyError } from "../core";
import { atLeast, detectRuntime, type RuntimeInfo } from "../runtime/detect";
import { adaptBuiltinDatabase, type BuiltinDatabase } from "./node-sqlite";
import { loadPeer } from "./optional-peer";

/** The SQLite module a journal uses; "auto" (default) picks by runtime, see `openSqliteDriver`. */
export type SqliteDriver = "auto" | "better-sqlite3" | "node:sqlite" | "bun:sqlite";
const SQLITE_DRIVERS: readonly SqliteDriver[] = ["auto", "better-sqlite3", "node:sqlite", "bun:sqlite"];

const FEATURE = "reseller-api/stores/sqlite";

interface BuiltinModules {
  /** The runtime's `process.getBuiltinModule` (Node ≥ 20.16, Bun, Deno). */
  getBuiltinModule?: (id: string) => unknown;
}

function builtin(id: string): unknown {
  const p = (globalThis as { process?: BuiltinModules }).process;
  try {
    return p?.getBuiltinModule?.(id);
  } catch {
    return undefined; // e.g. node:sqlite behind --experimental-sqlite (Node 22.5–22.12)
  }
}

function missing(driver: Exclude<SqliteDriver, "auto">, rt: RuntimeInfo): MissingDependencyError {
  const on = `${rt.name}${rt.version ? ` ${rt.version}` : ""}`;
  const fixes: Record<typeof driver, string> = {
    "better-sqlite3":
      rt.name === "bun" || rt.name === "deno"
        ? `better-sqlite3 is a Node.js addon that does not load in ${on}. Use the runtime's own SQLite: leave driver unset (it picks ${rt.name === "bun" ? "bun:sqlite" : "node:sqlite"}).`
        : "Install it: npm install better-sqlite3 (or run on Node.js ≥ 22.5, whose built-in node:sqlite the journal uses without it).",
    "node:sqlite":
      rt.name === "bun"
        ? `Bun has no node:sqlite; leave driver unset (it picks bun:sqlite).`
        : `node:sqlite is built into Node.js ≥ 22.5 and Deno, not into ${on}. Upgrade Node.js, or: npm install better-sqlite3 (and leave driver unset).`,
    "bun:sqlite": `bun:sqlite exists only in Bun, not in ${on}; leave driver unset to use what this runtime has.`,
  };
  return new MissingDependencyError(driver, FEATURE, fixes[driver]);
}

type Opener = (filename: string, busyTimeoutMs: number) => Database.Database;

/**
 * better-sqlite3 loads its native addon at the first open, so a build made for another Node.js (an
 * upgrade without `npm rebuild`) or never made (`--ignore-scripts`) would fail only then, with a raw
 * dlopen or "bindings file" error and an empty journal file left behind. An in-memory open first
 * turns that into a MissingDependencyError before anything is created. Once the addon has loaded it
 * stays loaded, so the check runs once per process ("auto" on Node ≥ 22.5 asks first, then opens).
 */
let loadedBetterSqlite3: typeof Database | undefined;

function loadBetterSqlite3(rt: RuntimeInfo): typeof Database {
  if (loadedBetterSqlite3) return loadedBetterSqlite3;
  const Driver = loadPeer("better-sqlite3", FEATURE, missing("better-sqlite3", rt)) as typeof Database;
  try {
    new Driver(":memory:").close();
  } catch (error) {
    const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
    const builtinToo =
      rt.name === "node" && atLeast(rt.version, 22, 5)
        ? " Or uninstall it: this Node.js has node:sqlite, which the journal then uses."
        : "";
    throw new MissingDependencyError(
      "better-sqlite3",
      FEATURE,
      `better-sqlite3 is installed, but its native build does not load in this Node.js (${rt.version}): ${why}. ` +
        `Rebuild it for this Node.js: npm rebuild better-sqlite3 (needed after a Node.js upgrade, or an install with --ignore-scripts).${builtinToo}`,
    );
  }
  loadedBetterSqlite3 = Driver;
  return Driver;
}

function betterSqlite3(rt: RuntimeInfo): Opener {
  if (rt.name === "bun" || rt.name === "deno") throw missing("better-sqlite3", rt);
  const Driver = loadBetterSqlite3(rt);
  return (filename, busyTimeoutMs) => new Driver(filename, { timeout: busyTimeoutMs });
}

function builtinSqlite(driver: "node:sqlite" | "bun:sqlite", rt: RuntimeInfo): Opener {
  let create: ((filename: string) => BuiltinDatabase) | undefined;
  if (driver === "bun:sqlite" && rt.name === "bun") {
    const m = builtin("bun:sqlite") as { Database: new (f: string, o: object) => BuiltinDatabase } | undefined;
    // strict: `@name` parameters bind from `{ name }`, as in better-sqlite3 and node:sqlite.
    if (m) create = (f) => new m.Database(f, { create: true, readwrite: true, strict: true });
  } else if (driver === "node:sqlite" && rt.name !== "bun") {
    const m = builtin("node:sqlite") as { DatabaseSync: new (f: string) => BuiltinDatabase } | undefined;
    if (m) create = (f) => new m.DatabaseSync(f);
  }
  if (create === undefined) throw missing(driver, rt);
  const open = create;
  return (filename, busyTimeoutMs) => {
    const raw = open(filename);
    raw.exec(`PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
    // The journal's code is written against better-sqlite3's handle; the adapter implements the part it uses.
    return adaptBuiltinDatabase(raw, filename, driver) as unknown as Database.Database;
  };
}

/** The driver "auto" resolves to on this runtime. */
export function pickSqliteDriver(rt: RuntimeInfo = detectRuntime()): Exclude<SqliteDriver, "auto"> {
  if (rt.name === "bun") return "bun:sqlite";
  if (rt.name === "deno") return "node:sqlite";
  if (rt.name === "node" && atLeast(rt.version, 22, 5)) {
    try {
      loadBetterSqlite3(rt);
      return "better-sqlite3";
    } catch (error) {
      // Not installed, or installed with a native build this Node.js cannot load: the built-in SQLite
      // reads and writes the same files.
      if (error instanceof MissingDependencyError && builtin("node:sqlite") !== undefined) return "node:sqlite";
      throw error;
    }
  }
  return "better-sqlite3";
}

/**
 * Loads `driver` (or the runtime's pick) before anything is created, so a missing one leaves no
 * file behind; returns how to open a handle in better-sqlite3's shape.
 */
export function sqliteOpener(driver: unknown): Opener {
  if (!SQLITE_DRIVERS.includes(driver as SqliteDriver)) {
    throw new InvalidOptionsError(
      `SqliteJournalOptions.driver must be one of ${SQLITE_DRIVERS.map((d) => `"${d}"`).join(", ")} (default "auto"), got ${JSON.stringify(driver)}.`,
      "driver",
    );
  }
  const rt = detectRuntime();
  const chosen = driver === "auto" ? pickSqliteDriver(rt) : (driver as Exclude<SqliteDriver, "auto">);
  return chosen === "better-sqlite3" ? betterSqlite3(rt) : builtinSqlite(chosen, rt);
}
