/**
 * The SQLite journal on whatever runtime runs the CLI: that runtime's own SQLite where it has one —
 * bun:sqlite in Bun, node:sqlite in Deno; in Node.js better-sqlite3 when it is installed, else the
 * built-in node:sqlite (Node.js ≥ 22.5) — and, when none of them loads or the file cannot be opened,
 * advice that works on this runtime (a missing driver is not fixed by another --journal FILE).
 */
import { dirname } from "node:path";
import { isMissingDependencyError, type Journal } from "../src/index";
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

/** Deno refuses a file the process was not allowed (NotCapable, --allow-read/--allow-write). */
function denyByDeno(error: unknown): boolean {
  const e = error as { name?: string; message?: string };
  return (
    e?.name === "NotCapable" ||
    e?.name === "PermissionDenied" ||
    (e?.message ?? "").includes("run again with the --allow-")
  );
}

/** The file could not be opened (or its folder made): what to do about it on this runtime. */
export function openFailure(error: unknown, file: string, rt: CliRuntime = cliRuntime()): SetupError {
  const message = error instanceof Error ? error.message : String(error);
  if (rt.name === "deno" && denyByDeno(error)) {
    const dir = dirname(file);
    return new SetupError(
      `Cannot open the SQLite journal ${file}: ${message}. Deno must be allowed to read and write the journal's folder (the file, its -wal and -shm): add --allow-read=${dir} --allow-write=${dir} (or run with -A).`,
    );
  }
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
