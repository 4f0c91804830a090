// operations.wait({ commandId }) started while this client's recover() holds the same command (I5,
// I6, F1): recovery stays the one mover while it holds it, and the wait's terminal result still
// reaches the journal — so the command never stays `accepted` with its domain lock held after a
// wait that saw it end. In-process emulator, one VirtualClock, a SQLite journal, no fleet.
import { describe, expect, it } from "vitest";
import type { SqliteJournal } from "../../stores/sqlite-journal";
import type { ResellerClient, ResellerClientOptions, WaitResult } from "../../src/index";
// Loaded up front: the client imports them on first use, and the VirtualClock must not run on meanwhile.
import "../../src/operations-wait";
import "../../recovery";
import { setup, type Harness } from "../client/harness";
import { tempSqliteJournals } from "../support/journal";

const tempJournal = tempSqliteJournals("reseller-wait-recover-");
const sqlite = (): SqliteJournal => tempJournal().journal;

/**
 * An accepted renewal, then recover() whose one GET of the operation hangs until the client's
 * timeoutMs; 200 ms into it (recovery holds the command) the caller's own wait starts.
 */
async function waitDuringRecover(
  h: Harness,
  journal: SqliteJournal,
  key: string,
  beforeWait?: (uuid: string) => void,
  overrides: Partial<ResellerClientOptions> = {},
) {
  const client = h.makeClient({ journal, ...overrides });
  const accepted = await client.domains.renew(
    { domainUuid: h.domainUuid, body: { period: 1 } },
    { idempotencyKey: key },
  );
  if (accepted.kind !== "accepted" || !accepted.commandId) throw new Error(`expected accepted, got ${accepted.kind}`);
  const { commandId } = accepted;
  h.emulator.control.addFault({ method: "GET", path: "/operations/{operationUuid}", kind: "timeout_before" });
  let waiting: Promise<WaitResult> | undefined;
  let sawEndAt = Number.NaN;
  const summary = await client.recover({
    onEvent: (e) => {
      if (e.type !== "recovery-step" || e.commandId !== accepted.commandId) return;
      waiting = h.clock.sleep(200).then(() => {
        beforeWait?.(accepted.operationUuid);
        return client.operations.wait(accepted.operationUuid, {
          commandId: accepted.commandId,
          minIntervalMs: 500,
          onPoll: (p) => {
            if (p.nextPollAt === null) sawEndAt = h.clock.now();
          },
        });
      });
    },
  });
  const recoveredAt = h.clock.now();
  const waited = await waiting!;
  return { client, commandId, summary, waited, sawEndAt, recoveredAt };
}

/** I6: the domain's lock went with the settle: a renew of it under a new key is accepted. */
async function expectLockReleased(h: Harness, client: ResellerClient, key: string): Promise<void> {
  const next = await client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } }, { idempotencyKey: key });
  expect(next.kind).toBe("accepted");
}

describe("operations.wait while recover() holds the command", () => {
  it("I5: a wait that starts while recover() holds the command settles it in the journal; the domain's lock is released", async () => {
    const h = setup({ client: { timeoutMs: 500 } });
    const journal = sqlite();
    const { client, commandId, summary, waited } = await waitDuringRecover(h, journal, "i5-wait-during-recover");
    // Recovery's poll came too early (a timeout, then pending): it leaves the command `accepted`.
    expect(summary.stillPending.map((p) => p.commandId)).toEqual([commandId]);
    expect(waited.kind).toBe("completed");
    expect((await journal.get(commandId))?.state).toBe("completed");
    await expectLockReleased(h, client, "i5-wait-during-recover-next-term");
    await client.close();
  });

  it("I5/I6: a wait that sees the end while recover() still holds the command writes it once recovery lets go", async () => {
    // One attempt per poll: recovery's timed-out GET is its only one, so it leaves the command `accepted`.
    const h = setup({ client: { timeoutMs: 500, retry: { maxAttempts: 1 } } });
    const journal = sqlite();
    const { client, commandId, summary, waited, sawEndAt, recoveredAt } = await waitDuringRecover(
      h,
      journal,
      "i5-wait-sees-end",
      (uuid) => h.emulator.control.setOperationStatus(uuid, "completed"),
    );
    expect(sawEndAt).toBeLessThan(recoveredAt); // the wait read `completed` while recovery held the command
    expect(summary.resolved).toEqual([]);
    expect(summary.stillPending.map((p) => p.commandId)).toEqual([commandId]);
    expect(waited.kind).toBe("completed");
    const record = await journal.get(commandId);
    expect(record?.state).toBe("completed");
    await expectLockReleased(h, client, "i5-wait-sees-end-next-term");
    await client.close();
  });

  it("I5/I6: in fleet mode the wait writes the result under its own lease once recovery lets the command go", async () => {
    const h = setup({ client: { timeoutMs: 500, retry: { maxAttempts: 1 } } });
    const journal = sqlite();
    const { client, commandId, summary, waited, sawEndAt, recoveredAt } = await waitDuringRecover(
      h,
      journal,
      "i5-fleet-wait-sees-end",
      (uuid) => h.emulator.control.setOperationStatus(uuid, "completed"),
      { fleet: { workerId: "worker-a", leaseMs: 30_000 } },
    );
    expect(sawEndAt).toBeLessThan(recoveredAt);
    expect(summary.stillPending.map((p) => p.commandId)).toEqual([commandId]);
    expect(waited.kind).toBe("completed");
    expect(await journal.get(commandId)).toMatchObject({ state: "completed", owner: "worker-a" });
    await client.close();
  });
});
