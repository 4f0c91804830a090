/**
 * How "full" groups commits (G1): writes that arrive while an fdatasync is in flight are committed
 * together in one transaction when it ends — each keeps its own outcome — and redoable writes
 * (recover()'s settles) are committed in one transaction per event-loop turn without waiting for
 * the disk. Real files, a second better-sqlite3 handle to see what another process would see.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { DomainLockedError, DuplicateCommandError, UnknownCommandError } from "../../journal";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import { newCommand } from "./journal-suite";

const dir = mkdtempSync(join(tmpdir(), "reseller-group-commit-"));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stateOf = (filename: string, id: string) => {
  const db = new Database(filename, { readonly: true });
  try {
    return (db.prepare("SELECT state FROM commands WHERE id = ?").get(id) as { state: string } | undefined)?.state;
  } finally {
    db.close();
  }
};

describe("sqlite synchronous=full: group commit", () => {
  it("G1/D7/I6: 16 records in flight at once each get their own outcome; the refused ones leave nothing", async () => {
    const filename = join(dir, `g-${++n}.db`);
    const journal = createSqliteJournal({ filename, synchronous: "full" });
    const taken = newCommand({ lockKey: "taken.kz" });
    await journal.record(taken);
    const dupKey = newCommand();
    await journal.record(dupKey);
    const fine = Array.from({ length: 14 }, (_, i) => newCommand({ lockKey: `free-${i}.kz` }));
    // The first write starts an fdatasync; the rest arrive while it runs and are committed together.
    const results = await Promise.allSettled([
      ...fine.map((c) => journal.record(c)),
      journal.record(newCommand({ lockKey: "taken.kz" })),
      journal.record(newCommand({ idempotencyKey: dupKey.idempotencyKey })),
      journal.addAttempt("no-such-command", { at: 1, delayMs: 0, status: 200 }),
    ]);
    expect(results.slice(0, 14).every((r) => r.status === "fulfilled")).toBe(true);
    expect(results[14]).toMatchObject({ status: "rejected", reason: expect.any(DomainLockedError) });
    expect(results[15]).toMatchObject({ status: "rejected", reason: expect.any(DuplicateCommandError) });
    expect(results[16]).toMatchObject({ status: "rejected", reason: expect.any(UnknownCommandError) });
    for (const c of fine) expect(stateOf(filename, c.id)).toBe("recorded"); // committed when the call resolved
    const db = new Database(filename, { readonly: true });
    expect((db.prepare("SELECT COUNT(*) AS n FROM commands").get() as { n: number }).n).toBe(16);
    expect((db.prepare("SELECT COUNT(*) AS n FROM command_attempts").get() as { n: number }).n).toBe(0);
    db.close();
    await journal.close();
  });

  it("G1: a command's writes made while others are in flight land in order (record, then its attempt and move)", async () => {
    const filename = join(dir, `g-${++n}.db`);
    const journal = createSqliteJournal({ filename, synchronous: "full" });
    const cmds = Array.from({ length: 16 }, () => newCommand());
    await Promise.all(
      cmds.map(async (c, i) => {
        await journal.record(c);
        await journal.addAttempt(c.id, { at: i, delayMs: 0, status: 200, requestId: `r-${i}` }, { to: "succeeded" });
      }),
    );
    for (const [i, c] of cmds.entries()) {
      const got = await journal.get(c.id);
      expect(got).toMatchObject({ state: "succeeded", attempts: [{ status: 200, requestId: `r-${i}` }] });
    }
    await journal.close();
  });

  it("redoable writes resolve once committed: another handle sees them, and close() leaves none behind", async () => {
    const filename = join(dir, `g-${++n}.db`);
    const journal = createSqliteJournal({ filename, synchronous: "full" });
    const cmds = Array.from({ length: 8 }, () => newCommand());
    for (const c of cmds) await journal.record(c);
    await Promise.all(cmds.map((c) => journal.transition(c.id, "sending", undefined, undefined, { redoable: true })));
    for (const c of cmds) expect(stateOf(filename, c.id)).toBe("sending");
    // Not awaited: close() must still commit them.
    const pending = cmds.map((c) => journal.transition(c.id, "unknown", undefined, undefined, { redoable: true }));
    await journal.close();
    await Promise.all(pending);
    for (const c of cmds) expect(stateOf(filename, c.id)).toBe("unknown");
  });

  it("redoable writes in one batch keep their own outcome: a refused move changes nothing, the others apply", async () => {
    const filename = join(dir, `g-${++n}.db`);
    const journal = createSqliteJournal({ filename, synchronous: "normal" });
    const a = newCommand();
    const b = newCommand();
    await journal.record(a);
    await journal.record(b);
    const redo = { redoable: true };
    const [ok, refused] = await Promise.allSettled([
      journal.transition(a.id, "sending", undefined, undefined, redo),
      journal.transition(b.id, "succeeded", undefined, undefined, redo), // recorded → succeeded is not a move
    ]);
    expect(ok.status).toBe("fulfilled");
    expect(refused).toMatchObject({ status: "rejected", reason: { code: "invalid_transition" } });
    expect(stateOf(filename, a.id)).toBe("sending");
    expect(stateOf(filename, b.id)).toBe("recorded");
    await journal.close();
  });
});
