/**
 * Journal helpers for tests: a NewCommand with its D4 fingerprint filled in (the value
 * `commandFingerprint()` gives), for tests that write to a journal directly; and SQLite journals in
 * temp folders, closed and removed after each test.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { NewCommand } from "../../journal";
import { fingerprintSync } from "../../stores/sqlite-backfill";
import { createSqliteJournal, type SqliteJournal } from "../../stores/sqlite-journal";

export function fingerprinted(c: Omit<NewCommand, "fingerprint"> & { fingerprint?: string }): NewCommand {
  // A deliberately malformed body (tests of the store's checks) gets a placeholder the store accepts.
  const bytes = c.body === null || c.body instanceof Uint8Array;
  return {
    ...c,
    fingerprint: c.fingerprint ?? (bytes ? fingerprintSync(c.method, c.path, c.query, c.body) : "0".repeat(64)),
  };
}

/**
 * Call once at a test file's top level: returns a maker of fresh SQLite journals (each in its own
 * temp folder named `prefix…`) — or, given a `filename` it made, of a second connection to that
 * journal (another process's) — all closed and removed after each test.
 */
export function tempSqliteJournals(
  prefix: string,
): (filename?: string) => { journal: SqliteJournal; filename: string } {
  const dirs: string[] = [];
  const journals: SqliteJournal[] = [];
  afterEach(async () => {
    for (const j of journals.splice(0)) await j.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return (existing) => {
    let filename = existing;
    if (filename === undefined) {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      filename = join(dir, "journal.db");
    }
    const journal = createSqliteJournal({ filename });
    journals.push(journal);
    return { journal, filename };
  };
}
