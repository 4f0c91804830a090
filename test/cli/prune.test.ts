/**
 * `reseller commands prune` against a real SQLite journal, as an operator runs it from cron: it
 * drops the bodies of commands settled before the cutoff and says how many, by state; it keeps
 * what never-buy-twice needs, and never touches an unsettled or needs_manual_check command.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CommandState } from "../../src/index";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import { cli, jsonLines, runCli, tempDir } from "./harness";

const tmp = tempDir("reseller-cli-prune-");
afterAll(() => tmp.cleanup());

const DAY = 86_400_000;
const file = join(tmp.dir, "journal.sqlite");
const env = { RESELLER_JOURNAL: file };

/** The states each command is driven through, and how long ago (days) that happened. */
const COMMANDS: { id: string; path: readonly CommandState[]; daysAgo: number }[] = [
  { id: "c0000000-0000-4000-8000-000000000001", path: ["sending", "accepted", "completed"], daysAgo: 40 },
  { id: "c0000000-0000-4000-8000-000000000002", path: ["sending", "succeeded"], daysAgo: 35 },
  { id: "c0000000-0000-4000-8000-000000000003", path: ["sending", "accepted", "failed"], daysAgo: 31 },
  { id: "c0000000-0000-4000-8000-000000000004", path: ["sending", "rejected"], daysAgo: 45 },
  { id: "c0000000-0000-4000-8000-000000000005", path: ["sending", "accepted", "completed"], daysAgo: 2 },
  { id: "c0000000-0000-4000-8000-000000000006", path: ["sending", "accepted"], daysAgo: 50 },
  { id: "c0000000-0000-4000-8000-000000000007", path: ["sending", "unknown", "reconciling"], daysAgo: 50 },
  { id: "c0000000-0000-4000-8000-000000000008", path: ["sending", "accepted", "needs_manual_check"], daysAgo: 60 },
];
const OLD_SETTLED = COMMANDS.slice(0, 4).map((c) => c.id);

beforeAll(async () => {
  const clock = { t: 0, now: () => clock.t };
  const journal = createSqliteJournal({ filename: file, clock });
  for (const [i, c] of COMMANDS.entries()) {
    clock.t = Date.now() - c.daysAgo * DAY;
    await journal.record({
      id: c.id,
      environment: "test",
      apiKeyId: "A".repeat(24),
      operationId: "domains.renew",
      method: "POST",
      path: `/domains/5555aaaa-0000-4000-8000-00000000000${i}/renew`,
      query: "",
      body: new TextEncoder().encode(JSON.stringify({ period: 1 })),
      idempotencyKey: `rsl-cli:renew:key-${i}`,
      fingerprint: String(i).repeat(64),
      externalId: null,
      lockKey: null,
      createdAt: clock.t,
    });
    for (const state of c.path) {
      await journal.transition(
        c.id,
        state,
        state === "needs_manual_check"
          ? { manualCheck: { reason: "the operation's outcome cannot be read", requestIds: ["req-1"] } }
          : { response: { status: 202, body: { data: { operation: { uuid: `op-${i}` } } } } },
      );
    }
  }
  await journal.close();
});

async function records() {
  const journal = createSqliteJournal({ filename: file });
  try {
    return new Map(await Promise.all(COMMANDS.map(async (c) => [c.id, (await journal.get(c.id))!] as const)));
  } finally {
    await journal.close();
  }
}

describe("reseller commands prune (H2 retention)", () => {
  it("H2: --dry-run counts by state what --older-than 30d would prune, and changes nothing", async () => {
    const r = await runCli(cli(), ["commands", "prune", "--older-than", "30d", "--dry-run", "--json"], env);
    expect(r.code, r.stderr).toBe(0);
    const [report] = jsonLines(r.stdout);
    expect(report).toMatchObject({
      type: "prune",
      dry_run: true,
      pruned: 4,
      by_state: { completed: 1, succeeded: 1, failed: 1, rejected: 1 },
      never_pruned: { unsettled: 2, needs_manual_check: 1 },
    });
    expect(report.settled_before).toMatch(/^\d{4}-\d\d-\d\dT/);
    for (const record of (await records()).values()) expect(record.bodyPruned).toBe(false);
  });

  it("H2: drops the bodies of commands settled more than 30 days ago, by state; keeps key, fingerprint, state and UUIDs; never an unsettled or needs_manual_check one", async () => {
    const before = await records();
    const r = await runCli(cli(), ["commands", "prune", "--older-than", "30d", "--json"], env);
    expect(r.code, r.stderr).toBe(0);
    expect(jsonLines(r.stdout)[0]).toMatchObject({
      dry_run: false,
      pruned: 4,
      by_state: { completed: 1, succeeded: 1, failed: 1, rejected: 1 },
      never_pruned: { unsettled: 2, needs_manual_check: 1 },
    });
    const after = await records();
    for (const [id, record] of after) {
      const was = before.get(id)!;
      expect(record.state).toBe(was.state);
      expect(record.idempotencyKey).toBe(was.idempotencyKey);
      expect(record.fingerprint).toBe(was.fingerprint);
      if (OLD_SETTLED.includes(id)) {
        expect(record.bodyPruned, id).toBe(true);
        expect(record.body).toBeNull();
        expect(record.response?.body ?? null).toBeNull();
        expect(record.response?.status).toBe(202);
      } else {
        // Recent, unsettled and needs_manual_check commands keep their bodies: a resend may need them.
        expect(record.bodyPruned, id).toBe(false);
        expect(new TextDecoder().decode(record.body!)).toBe('{"period":1}');
      }
    }
    const again = await runCli(cli(), ["commands", "prune", "--older-than", "30d", "--json"], env);
    expect(jsonLines(again.stdout)[0]).toMatchObject({ pruned: 0, by_state: {} });
  });

  it("a shorter --older-than reaches the recent settled command too, still never the unsettled ones; --help says so", async () => {
    const r = await runCli(cli(), ["commands", "prune", "--older-than", "1d", "--json"], env);
    expect(jsonLines(r.stdout)[0]).toMatchObject({ pruned: 1, by_state: { completed: 1 } });
    const after = await records();
    expect(after.get(COMMANDS[4].id)!.bodyPruned).toBe(true);
    for (const c of COMMANDS.slice(5)) expect(after.get(c.id)!.bodyPruned).toBe(false);
    const help = await runCli(cli(), ["commands", "prune", "--help"], {});
    expect(help.stdout).toContain("--older-than");
    expect(help.stdout).toContain("--dry-run");
    expect(help.stdout).toMatch(/never an\s+unsettled or\s+needs_manual_check/);
    const bad = await runCli(cli(), ["commands", "prune", "--older-than", "soon"], env);
    expect(bad.code).toBe(2);
  });
});
