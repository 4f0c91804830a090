// operations.wait({ commandId }) started while this client's recover() holds the same command (I5,
// I6, F1): recovery stays the one mover while it works on it, and the wait's terminal result still
// reaches the journal — so the command never stays `accepted` with its domain lock held after a
// wait that saw it end; a command the round has not started on yet is taken back by the wait, so a
// long round never delays it. In-process emulator, one VirtualClock, SQLite and memory journals
// (the memory journal has no fsync on libuv's pool, during which the VirtualClock would run on).
import { describe, expect, it } from "vitest";
import type { SqliteJournal } from "../../stores/sqlite-journal";
import type { Journal, ResellerClient, ResellerClientOptions, WaitResult } from "../../src/index";
import { createMemoryJournal } from "../../stores/memory-journal";
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
async function expectLockReleased(
  h: Harness,
  client: ResellerClient,
  key: string,
  domainUuid = h.domainUuid,
): Promise<void> {
  const next = await client.domains.renew({ domainUuid, body: { period: 1 } }, { idempotencyKey: key });
  expect(next.kind).toBe("accepted");
}

interface Accepted {
  commandId: string;
  operationUuid: string;
  domainUuid: string;
}

/**
 * Four accepted renewals, then recover() with one lane, whose first poll hangs until the client's
 * timeoutMs; 100 ms into it, the caller acts on the LAST command (a wait, a same-key call), which
 * the round holds but has not started on.
 */
async function actOnQueuedCommand<T>(
  h: Harness,
  journal: Journal,
  prefix: string,
  act: (client: ResellerClient, last: Accepted) => Promise<T>,
  clientOptions: Partial<ResellerClientOptions> = {},
) {
  const client = h.makeClient({ journal, ...clientOptions });
  const domains = [h.domainUuid];
  for (let i = 1; i < 4; i++)
    domains.push(h.emulator.control.createDomain({ token: h.token, name: `${prefix}-${i}.kz` }).uuid);
  const accepted: Accepted[] = [];
  for (const [i, domainUuid] of domains.entries()) {
    const o = await client.domains.renew({ domainUuid, body: { period: 1 } }, { idempotencyKey: `${prefix}-${i}` });
    if (o.kind !== "accepted" || !o.commandId) throw new Error(`expected accepted, got ${o.kind}`);
    accepted.push({ commandId: o.commandId, operationUuid: o.operationUuid, domainUuid });
  }
  const last = accepted[3];
  h.emulator.control.addFault({ method: "GET", path: "/operations/{operationUuid}", kind: "timeout_before" });
  const steps: string[] = [];
  let acting: Promise<T> | undefined;
  let actedAt = Number.NaN;
  const summary = await client.recover({
    concurrency: 1,
    onEvent: (e) => {
      if (e.type !== "recovery-step") return;
      steps.push(e.commandId);
      acting ??= h.clock
        .sleep(100)
        .then(() => act(client, last))
        .then((r) => {
          actedAt = h.clock.now();
          return r;
        });
    },
  });
  const recoveredAt = h.clock.now();
  const result = await acting!;
  return { client, accepted, last, summary, steps, result, actedAt, recoveredAt };
}

describe("operations.wait while recover() holds the command", () => {
  it("I6: a wait on a command recover() took but has not started on takes it back: it returns at once, recovery passes over it", async () => {
    const h = setup({ client: { timeoutMs: 500 } });
    const journal = createMemoryJournal();
    const { client, accepted, last, summary, steps, result, actedAt, recoveredAt } = await actOnQueuedCommand(
      h,
      journal,
      "i6-take-back",
      (c, cmd) => {
        h.emulator.control.setOperationStatus(cmd.operationUuid, "completed");
        return c.operations.wait(cmd.operationUuid, { commandId: cmd.commandId, minIntervalMs: 500 });
      },
    );
    expect(result.kind).toBe("completed");
    expect(actedAt).toBeLessThan(recoveredAt); // not held until the round reached it
    expect(steps).toEqual(accepted.slice(0, 3).map((a) => a.commandId)); // one mover: recovery never worked on it
    expect(summary.skipped).toEqual([{ commandId: last.commandId, reason: expect.stringContaining("taken back") }]);
    expect((await journal.get(last.commandId))?.state).toBe("completed"); // written by the wait
    // The domain's lock went with the wait's settle.
    await expectLockReleased(h, client, "i6-take-back-next-term", last.domainUuid);
    await client.close();
  });

  it("I6/G4: in fleet mode a wait that took a command back and ended before the operation did lets its lease go: another worker recovers it", async () => {
    const leaseMs = 30_000;
    const h = setup({ client: { timeoutMs: 500 } });
    const journal = createMemoryJournal({ clock: h.clock }); // leases on the test's clock
    const { client, last, summary, steps, result, actedAt, recoveredAt } = await actOnQueuedCommand(
      h,
      journal,
      "i6-fleet-take-back",
      (c, cmd) => c.operations.wait(cmd.operationUuid, { commandId: cmd.commandId, deadlineMs: 300 }),
      { fleet: { workerId: "worker-a", leaseMs } },
    );
    expect(result.kind).toBe("timeout");
    expect(actedAt).toBeLessThan(recoveredAt);
    expect(steps).not.toContain(last.commandId);
    expect(summary.skipped.map((s) => s.commandId)).toEqual([last.commandId]);
    expect((await journal.get(last.commandId))?.state).toBe("accepted");
    // worker-a lives on, holding nothing: no heartbeat renews the command's lease, so once it runs
    // out another worker claims it (a hold left behind by either side would keep it from everyone).
    await h.clock.sleep(2 * leaseMs);
    h.emulator.control.setOperationStatus(last.operationUuid, "completed");
    const b = h.makeClient({ journal, fleet: { workerId: "worker-b", leaseMs } });
    const byB = await b.recover({ staleAfterMs: 0 });
    expect(byB.resolved.map((r) => r.commandId)).toContain(last.commandId);
    expect(await journal.get(last.commandId)).toMatchObject({ state: "completed", owner: "worker-b" });
    await b.close();
    await client.close();
  });

  it("I6/D2: a same-key call of a command recover() took but has not started on takes it back: answered from the journal at once", async () => {
    const h = setup({ client: { timeoutMs: 500 } });
    const journal = createMemoryJournal();
    const { client, last, summary, steps, result, actedAt, recoveredAt } = await actOnQueuedCommand(
      h,
      journal,
      "i6-call-take-back",
      (c, cmd) =>
        c.domains.renew({ domainUuid: cmd.domainUuid, body: { period: 1 } }, { idempotencyKey: "i6-call-take-back-3" }),
    );
    const renews = () => h.emulator.control.effects().filter((e) => e.kind === "domain.renew").length;
    expect(result).toMatchObject({ kind: "accepted", commandId: last.commandId, operationUuid: last.operationUuid });
    expect(actedAt).toBeLessThan(recoveredAt); // not held until the round reached it
    expect(steps).not.toContain(last.commandId);
    expect(summary.skipped.map((s) => s.commandId)).toEqual([last.commandId]);
    expect(renews()).toBe(4); // nothing bought twice
    await client.close();
  });

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
