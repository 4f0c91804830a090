/**
 * Child process for the SQLite cross-process test: opens the journal file given in argv, waits
 * for a shared start time, then races the other processes for the same domain locks.
 * Prints one JSON line: { won: string[], locked: string[], other: string[] }.
 */
import { randomUUID } from "node:crypto";
import { DomainLockedError } from "../../journal";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import { fingerprintSync } from "../../stores/sqlite-backfill";

const [filename, startAtArg, countArg, tag] = process.argv.slice(2);
const journal = createSqliteJournal({ filename: filename, busyTimeoutMs: 10_000 });
const startAt = Number(startAtArg);
while (Date.now() < startAt) await new Promise((r) => setTimeout(r, 1));

const out = { won: [] as string[], locked: [] as string[], other: [] as string[] };
for (let i = 0; i < Number(countArg); i++) {
  const lockKey = `domain-${i}.kz`;
  try {
    await journal.record({
      id: randomUUID(),
      environment: "test",
      apiKeyId: "A1b2C3d4E5f6G7h8I9j0K1l2",
      operationId: "orders.create",
      method: "POST",
      path: "/orders",
      query: "",
      body: new TextEncoder().encode(`{"external_id":"${tag}-${i}"}`),
      fingerprint: fingerprintSync("POST", "/orders", "", new TextEncoder().encode(`{"external_id":"${tag}-${i}"}`)),
      idempotencyKey: `${tag}-${i}`,
      externalId: `${tag}-${i}`,
      lockKey,
      createdAt: Date.now(),
    });
    out.won.push(lockKey);
  } catch (e) {
    (e instanceof DomainLockedError ? out.locked : out.other).push(`${lockKey}: ${String(e)}`);
  }
}
await journal.close();
process.stdout.write(JSON.stringify(out) + "\n");
