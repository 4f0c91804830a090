// F1–F4, G6: operations.wait polls through the same paced client, honours next_check_at, treats
// pending/processing/uncertain and unknown future statuses as not failed, never throws for HTTP results.
import { describe, expect, it } from "vitest";
import { RequestAbortedError, type WaitPoll } from "../../src/index";
import { requestsTo, setup } from "./harness";

async function renew(h: ReturnType<typeof setup>) {
  const out = await h.client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
  if (out.kind !== "accepted") throw new Error(`expected accepted, got ${out.kind}`);
  return out.operationUuid;
}

describe("client: operations.wait", () => {
  it("F1/F3: pending → processing → completed", async () => {
    const h = setup();
    const uuid = await renew(h);
    const result = await h.client.operations.wait(uuid, { minIntervalMs: 500 });
    expect(result.kind).toBe("completed");
    if (result.kind !== "completed") return;
    expect(result.operation.uuid).toBe(uuid);
    expect(requestsTo(h.captured, "GET", `/operations/${uuid}`).length).toBeGreaterThanOrEqual(2);
  });

  it("F2/F3/G6: uncertain is not failed — polled rarely via next_check_at until it completes", async () => {
    const h = setup({ emulator: { operationPolicy: { outcome: "uncertain", uncertainRecheckMs: 300_000 } } });
    const uuid = await renew(h);
    const start = h.clock.now();
    const result = await h.client.operations.wait(uuid, { minIntervalMs: 1000, deadline: start + 3_600_000 });
    expect(result.kind).toBe("completed");
    const polls = requestsTo(h.captured, "GET", `/operations/${uuid}`);
    // Uncertain for ~5 minutes: with next_check_at honoured that is a handful of polls, not 300.
    expect(polls.length).toBeLessThan(15);
    expect(h.clock.now() - start).toBeGreaterThanOrEqual(300_000);
  });

  it("F3: an unknown future status is kept and polled, never treated as failed; failed is reported", async () => {
    const h = setup();
    const uuid = await renew(h);
    h.emulator.control.setOperationStatus(uuid, "awaiting_registry_v2");
    const deadline = h.clock.now() + 30_000;
    const result = await h.client.operations.wait(uuid, { minIntervalMs: 5_000, deadline });
    expect(result.kind).toBe("timeout");
    if (result.kind !== "timeout") return;
    expect(result.lastOperation?.status).toBe("awaiting_registry_v2");
    h.emulator.control.setOperationStatus(uuid, "failed");
    const failed = await h.client.operations.wait(uuid);
    expect(failed.kind).toBe("failed");
  });

  it("F4: HTTP trouble while polling is not a failure; an unknown operation is 'rejected', not thrown", async () => {
    const h = setup({ client: { retry: { maxAttempts: 1 } } });
    const uuid = await renew(h);
    h.emulator.control.addFault({
      method: "GET",
      path: "/operations/{operationUuid}",
      kind: "error_503_before",
      times: 2,
    });
    const result = await h.client.operations.wait(uuid, { minIntervalMs: 500 });
    expect(result.kind).toBe("completed");
    const missing = await h.client.operations.wait("00000000-0000-4000-8000-000000000000");
    expect(missing.kind).toBe("rejected");
  });

  it("F1: the caller's abort stops waiting with RequestAbortedError", async () => {
    const h = setup();
    const uuid = await renew(h);
    h.emulator.control.setOperationStatus(uuid, "processing");
    const ac = new AbortController();
    let polls = 0;
    const client = h.makeClient({
      onEvent: (e) => {
        if (e.type === "attempt" && e.operationId === "operations.get" && ++polls === 3) ac.abort();
      },
    });
    const p = client.operations.wait(uuid, { signal: ac.signal, minIntervalMs: 10_000 });
    await expect(p).rejects.toBeInstanceOf(RequestAbortedError);
    expect(polls).toBe(3);
  });

  it("F1: onPoll reports every poll and when the wait really polls next; a throwing onPoll does not end the wait", async () => {
    const h = setup({ emulator: { operationPolicy: { pendingMs: 1_000, processingMs: 6_000 } } });
    const uuid = await renew(h);
    const polls: (WaitPoll & { at: number })[] = [];
    const result = await h.client.operations.wait(uuid, {
      minIntervalMs: 2_000,
      onPoll: (poll) => {
        polls.push({ ...poll, at: h.clock.now() });
        throw new Error("a broken progress display");
      },
    });
    expect(result.kind).toBe("completed");
    const sent = requestsTo(h.captured, "GET", `/operations/${uuid}`);
    // One report per poll, the last one ending the wait (nextPollAt null) with the completed operation.
    expect(polls.map((p) => p.operation?.status)).toEqual([
      "pending",
      "processing",
      "processing",
      "processing",
      "completed",
    ]);
    expect(sent).toHaveLength(polls.length);
    expect(polls.at(-1)!.nextPollAt).toBeNull();
    // Each announced next poll is when the next one was really answered (the key's window is free).
    for (let i = 0; i + 1 < polls.length; i++) {
      expect(polls[i].nextPollAt).toBe(polls[i].at + 2_000);
      expect(polls[i + 1].at).toBe(polls[i].nextPollAt);
    }
  });

  it("F2/G6: onPoll's nextPollAt follows next_check_at for an uncertain operation", async () => {
    const h = setup({ emulator: { operationPolicy: { outcome: "uncertain", uncertainRecheckMs: 300_000 } } });
    const uuid = await renew(h);
    const polls: WaitPoll[] = [];
    await h.client.operations.wait(uuid, {
      minIntervalMs: 1_000,
      deadline: h.clock.now() + 3_600_000,
      onPoll: (poll) => polls.push(poll),
    });
    const uncertain = polls.find((p) => p.operation?.status === "uncertain")!;
    expect(uncertain.nextPollAt).toBe(Date.parse(uncertain.operation!.next_check_at!));
  });
});
