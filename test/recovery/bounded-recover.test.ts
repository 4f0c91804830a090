// recover() outside fleet mode reads the journal a page at a time, never the whole backlog: with
// maxCommands it settles the oldest eligible commands of its key while every read stays bounded,
// also when older commands of other keys come first. Memory and SQLite journals, in-process emulator.
import { describe, expect, it } from "vitest";
import { createMemoryJournal } from "../../stores/memory-journal";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import type { Journal } from "../../journal";
import { fingerprintSync } from "../../stores/sqlite-backfill";
import { setup } from "../client/harness";

const OTHERS = 1_200;

/** The journal as it is, with the size of every listByState() answer written down. */
function observed(journal: Journal, reads: number[]): Journal {
  return new Proxy(journal, {
    get(target, name) {
      const value = Reflect.get(target, name) as unknown;
      if (name !== "listByState" || typeof value !== "function") return value;
      return async (...args: Parameters<Journal["listByState"]>) => {
        const rows = await journal.listByState(...args);
        reads.push(rows.length);
        return rows;
      };
    },
  });
}

describe.each([
  ["memory", () => createMemoryJournal()],
  ["sqlite", () => createSqliteJournal({ filename: ":memory:" })],
])("recover() reads a bounded page (%s journal)", (_name, make) => {
  it("G4/H2: maxCommands 2 over 1 200 older open commands of another key → the 2 oldest of ours, no read above one page", async () => {
    const h = setup();
    const journal = make();
    const path = `/domains/${h.domainUuid}/sync`;
    const command = (apiKeyId: string, key: string, createdAt: number) => ({
      id: crypto.randomUUID(),
      environment: "test" as const,
      apiKeyId,
      operationId: "domains.sync" as const,
      method: "POST" as const,
      path,
      query: "",
      body: null,
      fingerprint: fingerprintSync("POST", path, "", null),
      idempotencyKey: key,
      externalId: null,
      lockKey: null,
      createdAt,
    });
    const t0 = h.clock.now() - 60_000;
    for (let i = 0; i < OTHERS; i++) await journal.record(command("OTHERKEYOTHERKEYOTHERKEY", `other-${i}`, t0 + i));
    const ours = [];
    for (let i = 0; i < 3; i++) ours.push(await journal.record(command(h.publicKeyId, `ours-${i}`, t0 + OTHERS + i)));
    const reads: number[] = [];
    const summary = await h.makeClient({ journal: observed(journal, reads) }).recover({ maxCommands: 2 });
    expect(summary.examined).toBe(2);
    const handled = [...summary.resolved, ...summary.stillPending, ...summary.manual].map((r) => r.commandId);
    expect(handled.sort()).toEqual([ours[0].id, ours[1].id].sort());
    expect((await journal.get(ours[2].id))?.state).toBe("recorded");
    expect(reads.length).toBeGreaterThan(1); // it paged past the other key's commands
    expect(Math.max(...reads)).toBeLessThanOrEqual(500);
    await journal.close();
  });
});
