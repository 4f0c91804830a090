/**
 * The SQLite and memory journals' set-up mistakes: a database URL or connection string passed as
 * the SQLite filename is refused up front (it used to become a folder name, echoed with its password
 * in the error), no SQLite error prints credentials found in a path, and a misspelt option name is
 * refused naming the near one.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isInvalidOptionsError } from "../../core";
import { createMemoryJournal } from "../../stores/memory-journal";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import { removeDir, tempDir } from "../support/process";
import { expectNoSecret } from "./no-secret";

const PASSWORD = "AppPgPass9876";
const URL_HINT = "this looks like a database URL: use createPgJournal for PostgreSQL; for SQLite pass a file path";

let dir: string;
beforeAll(async () => {
  dir = await tempDir("reseller-store-errors-");
});
afterAll(async () => {
  await removeDir(dir);
});

function thrown(fn: () => unknown): Error & { option?: string } {
  try {
    const out = fn() as { close?: () => unknown } | undefined;
    void out?.close?.();
  } catch (e) {
    return e as Error & { option?: string };
  }
  throw new Error("did not throw");
}

describe("sqlite journal: a database URL is not a filename (H2)", () => {
  const urls = [
    `postgres://app:${PASSWORD}@127.0.0.1:55432/reseller`,
    `postgresql://app:${PASSWORD}@db.internal/reseller?sslmode=require`,
    `redis://:${PASSWORD}@127.0.0.1:6379/0`,
    `mysql:/app:${PASSWORD}@db/reseller`,
    `app:${PASSWORD}@127.0.0.1:5432/reseller`,
    `host=127.0.0.1 port=5432 user=app password=${PASSWORD} dbname=reseller`,
  ];
  for (const filename of urls) {
    it(`H2: ${filename.replace(PASSWORD, "…")} is refused up front, naming createPgJournal, without the password`, () => {
      const cwd = process.cwd();
      process.chdir(dir);
      try {
        const e = thrown(() => createSqliteJournal({ filename }));
        expect(isInvalidOptionsError(e)).toBe(true);
        expect(e.option).toBe("filename");
        expect(e.message).toContain(URL_HINT);
        expectNoSecret(e, PASSWORD);
      } finally {
        process.chdir(cwd);
      }
      // Nothing was created where the "path" pointed.
      expect(existsSync(join(dir, filename.split("/")[0]))).toBe(false);
    });
  }

  it("H2: a path that merely holds user:password@ further down never shows the password in the error", () => {
    const filename = join(dir, "missing", `app:${PASSWORD}@db`, "journal.sqlite");
    const e = thrown(() => createSqliteJournal({ filename }));
    expect(isInvalidOptionsError(e)).toBe(true);
    expect(e.message).toContain("does not exist");
    expectNoSecret(e, PASSWORD);
  });

  it("H2: ordinary paths (a colon in a file name too) and :memory: still open", () => {
    for (const filename of [join(dir, "plain.sqlite"), ":memory:", join(dir, "with:colon.sqlite")]) {
      const journal = createSqliteJournal({ filename });
      void journal.close();
    }
  });
});

describe("journals: option names (G1)", () => {
  it("G1: createSqliteJournal refuses a misspelt option (synchronus), naming synchronous", () => {
    const e = thrown(() => createSqliteJournal({ filename: join(dir, "typo.sqlite"), synchronus: "normal" } as never));
    expect(isInvalidOptionsError(e)).toBe(true);
    expect(e.message).toContain("did you mean synchronous?");
    expect(e.option).toBe("synchronus");
    expect(existsSync(join(dir, "typo.sqlite"))).toBe(false);
  });

  it("G1: createMemoryJournal refuses a misspelt option (clok), naming clock", () => {
    const e = thrown(() => createMemoryJournal({ clok: { now: () => 0 } } as never));
    expect(isInvalidOptionsError(e)).toBe(true);
    expect(e.message).toContain("did you mean clock?");
  });

  it("G1: every known option is accepted", () => {
    const journal = createSqliteJournal({
      filename: join(dir, "all-options.sqlite"),
      busyTimeoutMs: 100,
      synchronous: "normal",
      clock: { now: () => Date.now() },
      filePermissions: "warn",
      driver: "auto",
    });
    void journal.close();
    void createMemoryJournal({ clock: { now: () => 0 } }).close();
    void createMemoryJournal().close();
  });
});
