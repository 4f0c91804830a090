// On the host's Node.js 20: which SQLite "auto" opens, and the typed errors for a driver Node 20
// lacks or a driver name that does not exist — each refused before a file is created.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isInvalidOptionsError, isMissingDependencyError } from "../../core";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import { pickSqliteDriver } from "../../stores/sqlite-driver";

const dir = mkdtempSync(join(tmpdir(), "reseller-driver-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("did not throw");
}

// CI's Node is 20; on a newer host, node:sqlite exists and these expectations do not apply.
const host = Number(process.versions.node.split(".")[0]);

describe(`createSqliteJournal({ driver }) on the host's Node.js (${process.versions.node})`, () => {
  it("runs on Node.js 20, as CI does (on Node ≥ 22.5 the matrix's node22 tests cover it)", () => {
    expect(host, "run npm test with Node.js 20, the package's oldest supported Node").toBe(20);
  });

  it('G1: "auto" is better-sqlite3 here (Node 20 has no node:sqlite)', async () => {
    expect(pickSqliteDriver()).toBe("better-sqlite3");
    const journal = createSqliteJournal({ filename: join(dir, "auto.db") });
    expect((journal.database as unknown as { driver?: string }).driver).toBeUndefined(); // better-sqlite3's own handle
    await journal.close();
  });

  it.each([
    [
      "node:sqlite",
      /node:sqlite is built into Node\.js ≥ 22\.5 and Deno, not into node 20\.[\d.]+\. Upgrade Node\.js, or: npm install better-sqlite3/,
    ],
    ["bun:sqlite", /bun:sqlite exists only in Bun, not in node 20\.[\d.]+; leave driver unset/],
  ])("driver %s is a MissingDependencyError naming the fix; no file is created", (driver, fix) => {
    const filename = join(dir, `${driver.replace(":", "-")}.db`);
    const e = thrown(() => createSqliteJournal({ filename, driver: driver as "node:sqlite" }));
    expect(isMissingDependencyError(e)).toBe(true);
    expect((e as Error).message).toMatch(fix);
    expect(existsSync(filename)).toBe(false);
  });

  it("an unknown driver name is an InvalidOptionsError listing the valid ones", () => {
    const e = thrown(() => createSqliteJournal({ filename: join(dir, "x.db"), driver: "sqlite3" as "auto" }));
    expect(isInvalidOptionsError(e)).toBe(true);
    expect((e as Error).message).toBe(
      'SqliteJournalOptions.driver must be one of "auto", "better-sqlite3", "node:sqlite", "bun:sqlite" (default "auto"), got "sqlite3".',
    );
  });
});
