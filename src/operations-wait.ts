/**
 * operations.wait (F1–F4, G6): paced polling of GET /operations/{uuid} through the same client —
 * so every poll goes through the key's pacer — honouring `next_check_at`. pending, processing,
 * uncertain and any status we do not know are NOT failures (F3): only `completed` and a confirmed
 * `failed` end the wait. HTTP results never throw; the caller's abort does.
 * With `commandId`, the wait works on that journalled command: in fleet mode it holds the command's
 * lease for its whole duration (renewed by the heartbeat), so no survivor takes a live wait's command,
 * and its one write (accepted → completed/failed) is fenced by that lease. A wait on a command this
 * process's recover() took but has not started on takes it back (recovery passes over it), so a long
 * round never delays it; one recovery is working on is polled without writes until recovery lets it
 * go, then the result is recorded if recovery left the command `accepted` (I5, I6).
 */
import { operationRoles } from "../generated/operations";
import type { Clock } from "../runtime/clock";
import { DEFAULT_FLEET, DEFAULT_WAIT, InvalidArgumentError, operationResourceOf, RequestAbortedError } from "../core";
import { isLeaseLostError } from "../journal";
import type { CommandHolders, Journal, LeaseKeeper } from "../journal";
import type { OperationResource, Outcome } from "../core";
import { checkArgumentNames } from "./options-shape";

export interface WaitOptions {
  signal?: AbortSignal | undefined;
  /**
   * Give up at this time (ms since epoch, on the client's clock). Or pass `deadlineMs`.
   * @default now + DEFAULT_WAIT.deadlineMs (15 minutes)
   */
  deadline?: number | undefined;
  /**
   * Give up this many ms from now, as a call's `deadlineMs` (`Infinity` for never). Or pass `deadline`.
   * @default DEFAULT_WAIT.deadlineMs (15 minutes)
   */
  deadlineMs?: number | undefined;
  /**
   * Never poll more often than this, ms.
   * @default DEFAULT_WAIT.minIntervalMs (2000)
   */
  minIntervalMs?: number | undefined;
  /**
   * Longest pause between polls when the server gives no `next_check_at`, ms.
   * @default DEFAULT_WAIT.maxIntervalMs (60 000)
   */
  maxIntervalMs?: number | undefined;
  /** The journal command that started the operation (outcome.commandId): moved to completed/failed (I5). */
  commandId?: string | undefined;
  /**
   * Called after every poll with what it read and when the wait polls next — for a progress display
   * ("checking again in 12 s"). It cannot change the wait; a callback that throws is ignored.
   */
  onPoll?: ((poll: WaitPoll) => void) | undefined;
}

/** One poll of a wait, as `WaitOptions.onPoll` receives it. */
export interface WaitPoll {
  /** The operation waited on (the `operationUuid` given to `wait`). */
  operationUuid: string;
  /** What the poll returned. */
  outcome: Outcome;
  /** The operation the poll read (absent when it read none: a 5xx, a timeout, a 429). */
  operation?: OperationResource;
  /**
   * When the wait polls next, ms since epoch on the client's clock: the operation's `next_check_at`,
   * the time the key may send again, or the backoff — never sooner than `minIntervalMs`. Null when
   * this poll ends the wait (completed, failed, rejected, or the deadline comes first).
   */
  nextPollAt: number | null;
}

export type WaitResult =
  | { kind: "completed"; operation: OperationResource }
  | { kind: "failed"; operation: OperationResource }
  /** Deadline reached: the operation is still pending/processing/uncertain/unknown — not failed (F4). */
  | { kind: "timeout"; operationUuid: string; lastOperation?: OperationResource; lastOutcome?: Outcome }
  /** The API definitively refused to show the operation (401/403/404): polling cannot help (G5). */
  | { kind: "rejected"; operationUuid: string; outcome: Outcome };

/** The journal side of a wait on a journalled command. */
export interface WaitJournal {
  journal: Journal;
  /** Fleet mode: the wait holds the command's lease and fences its write. */
  leases?: LeaseKeeper;
  /** This process's registry: its own recovery leaves the command alone while the wait holds it. */
  holders?: CommandHolders;
}

export async function waitForOperation(
  /** One poll; `leftMs` is what is left of the wait, which the poll must not outlive. */
  get: (operationUuid: string, signal: AbortSignal | undefined, leftMs: number) => Promise<Outcome>,
  clock: Clock,
  operationUuid: string,
  options: WaitOptions = {},
  jr?: WaitJournal,
): Promise<WaitResult> {
  checkArgumentNames(options, "wait");
  checkWaitDeadline(options, clock.now());
  const id = options.commandId;
  if (!jr || !id) return readOnly();
  const { leases, holders } = jr;
  // I6: a command this process's recovery holds but has not started on is taken back (recovery
  // passes over it); takeBack() and holding()'s enterWait are one synchronous step.
  if (holders?.recovering(id) && !holders.takeBack(id)) {
    // I6: this process's recovery is the command's one mover now — poll, but write nothing meanwhile.
    const result = await readOnly();
    if (result.kind !== "completed" && result.kind !== "failed") return result;
    // I5: recovery may let it go still `accepted` (its own poll came too early or failed): once it is
    // free, record the result here, so the journal and the domain's lock follow what the wait saw.
    // The last check and holding()'s enterWait are one synchronous step: no recovery takes it between.
    while (holders.recovering(id) && !holders.takeBack(id))
      if (!(await freeOrAborted(holders.whenFree(id)))) return result;
    return holding(async (writes) => {
      if (writes()) await record(result);
      return result;
    });
  }
  return holding((writes) =>
    pollOperation(get, clock, operationUuid, options, async (r) => {
      if (writes()) await record(r);
    }),
  );

  /** Holds the command for `work` (this process's holders, and in fleet mode its lease); `writes` says whether it may write. */
  async function holding<T>(work: (writes: () => boolean) => Promise<T>): Promise<T> {
    const leaveWait = holders?.enterWait(id!);
    // Fleet mode: "trying" while the journal cannot be reached — the lease is asked for again every
    // heartbeat period (as the heartbeat renews it), so the wait holds the command as soon as the
    // journal answers, not only if it answered at the wait's start (a poll may wait long for its slot).
    const hold: { lease: "held" | "trying" | "elsewhere" | "none" } = { lease: leases ? "trying" : "none" };
    const tryAcquire = async (): Promise<typeof hold.lease> => {
      try {
        await leases!.acquire(id!); // from now on renewed by the heartbeat until the wait ends
        hold.lease = "held";
      } catch (error) {
        // Another live worker holds it (it settles the command): a read-only wait, never a throw (F3).
        // An unreachable journal: the command stays `accepted` meanwhile; ask again a period later.
        if (isLeaseLostError(error)) hold.lease = "elsewhere";
      }
      return hold.lease;
    };
    const retrying = new AbortController();
    try {
      if (leases) await tryAcquire();
      if (hold.lease === "trying") void keepTrying(leases!.lease.leaseMs / DEFAULT_FLEET.heartbeatsPerLease);
      return await work(() => hold.lease === "held" || hold.lease === "none");
    } finally {
      retrying.abort();
      if (hold.lease === "held") leases!.release(id!);
      leaveWait?.();
    }

    async function keepTrying(everyMs: number): Promise<void> {
      while (hold.lease === "trying") {
        try {
          await clock.sleep(everyMs, retrying.signal);
        } catch {
          return; // the wait ended
        }
        const state = await tryAcquire();
        if (retrying.signal.aborted && state === "held") {
          leases!.release(id!); // it ended while this request was out: hand the lease straight back
          hold.lease = "none";
        }
      }
    }
  }

  function readOnly(): Promise<WaitResult> {
    return pollOperation(get, clock, operationUuid, options, async () => undefined);
  }

  /** accepted → completed/failed, compare-and-set: a command someone else settled is left as it is (I5). */
  async function record(result: { kind: "completed" | "failed"; operation: OperationResource }): Promise<void> {
    if (!jr || !id) return;
    try {
      const record = await jr.journal.get(id);
      if (record?.state !== "accepted") return; // settled already (by recovery, or another wait)
      await jr.journal.transition(
        id,
        result.kind,
        { response: { status: 200, body: { data: result.operation } } },
        jr.leases?.lease,
      );
    } catch (error) {
      // The operation's result stands: a race means someone else recorded it (I5); a failed write
      // leaves the command `accepted`, which recovery polls and settles — never a reason to throw.
      if (isLeaseLostError(error)) jr.leases?.lost(id, error.currentOwner);
    }
  }

  /**
   * True once `free` resolves; false if the caller aborts first — the result stands, and recovery,
   * which still holds the command, polls and settles it itself (I5).
   */
  async function freeOrAborted(free: Promise<void>): Promise<boolean> {
    const { signal } = options;
    if (signal?.aborted) return false;
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<boolean>((resolve) => {
      onAbort = () => resolve(false);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([free.then(() => true), aborted]);
    } finally {
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    }
  }
}

/** An absolute `deadline` or a relative `deadlineMs`, never both; a duration passed as `deadline` is refused. */
function checkWaitDeadline(options: WaitOptions, now: number): void {
  const { deadline, deadlineMs } = options;
  if (deadline !== undefined && deadlineMs !== undefined)
    throw new InvalidArgumentError("Pass deadline (a time) or deadlineMs (a duration), not both.", "deadline");
  if (deadlineMs !== undefined && !(typeof deadlineMs === "number" && deadlineMs > 0))
    throw new InvalidArgumentError("deadlineMs must be a positive number of ms, or Infinity for none.", "deadlineMs");
  if (deadline === undefined) return;
  if (typeof deadline !== "number" || Number.isNaN(deadline))
    throw new InvalidArgumentError("deadline must be a time in ms since the epoch (Date.now() + ms).", "deadline");
  // A duration given as `deadline` would end the wait at once, as a `timeout` that polled nothing.
  if (deadline < now - 365 * 24 * 3600_000 && deadline < 1e11)
    throw new InvalidArgumentError(
      `deadline is a time in ms since the epoch, and ${deadline} is in 1970: for a duration pass deadlineMs: ${deadline} (or deadline: Date.now() + ${deadline}).`,
      "deadline",
    );
}

async function pollOperation(
  get: (operationUuid: string, signal: AbortSignal | undefined, leftMs: number) => Promise<Outcome>,
  clock: Clock,
  operationUuid: string,
  options: WaitOptions,
  record: (result: { kind: "completed" | "failed"; operation: OperationResource }) => Promise<void>,
): Promise<WaitResult> {
  const settle = async (result: {
    kind: "completed" | "failed";
    operation: OperationResource;
  }): Promise<WaitResult> => {
    await record(result);
    return result;
  };
  const { signal } = options;
  const deadline = options.deadline ?? clock.now() + (options.deadlineMs ?? DEFAULT_WAIT.deadlineMs);
  const minInterval = Math.max(0, options.minIntervalMs ?? DEFAULT_WAIT.minIntervalMs);
  const maxInterval = Math.max(minInterval, options.maxIntervalMs ?? DEFAULT_WAIT.maxIntervalMs);
  let lastOperation: OperationResource | undefined;
  let lastOutcome: Outcome | undefined;
  let misses = 0;
  const polled = (outcome: Outcome, operation: OperationResource | undefined, nextPollAt: number | null) => {
    try {
      options.onPoll?.({ operationUuid, outcome, operation, nextPollAt });
    } catch {
      // A broken progress display must not end a wait on a paid operation.
    }
  };
  for (;;) {
    if (signal?.aborted) throw new RequestAbortedError(operationRoles.pollOperation, signal.reason);
    let outcome: Outcome;
    try {
      outcome = await get(operationUuid, signal, deadline - clock.now());
    } catch (error) {
      if (signal?.aborted) throw new RequestAbortedError(operationRoles.pollOperation, signal.reason);
      throw error;
    }
    lastOutcome = outcome;
    let waitMs: number;
    const op = outcome.kind === "succeeded" ? operationResourceOf(outcome.data) : undefined;
    if (outcome.kind === "succeeded") {
      if (op) {
        lastOperation = op;
        if (op.status === "completed" || op.status === "failed") {
          polled(outcome, op, null);
          return settle({ kind: op.status === "completed" ? "completed" : "failed", operation: op });
        }
      }
      misses = 0;
      const next = typeof op?.next_check_at === "string" ? Date.parse(op.next_check_at) : Number.NaN;
      waitMs = Number.isFinite(next) ? Math.max(minInterval, next - clock.now()) : minInterval;
    } else if (outcome.kind === "rejected" && outcome.status !== 429) {
      polled(outcome, undefined, null);
      return { kind: "rejected", operationUuid, outcome };
    } else {
      // unknown (5xx, timeout…) or 429 after its retries: back off, keep the operation's state open.
      misses += 1;
      waitMs = Math.min(maxInterval, minInterval * 2 ** Math.min(misses, 10));
      // The poll stopped at its deadline (a paused key): come back when the key can send again.
      if (outcome.kind === "unknown" && typeof outcome.retryAt === "number") {
        waitMs = Math.max(minInterval, outcome.retryAt - clock.now());
      }
    }
    if (clock.now() + waitMs > deadline) {
      polled(outcome, op, null);
      return { kind: "timeout", operationUuid, lastOperation, lastOutcome };
    }
    polled(outcome, op, clock.now() + waitMs);
    try {
      await clock.sleep(waitMs, signal);
    } catch {
      throw new RequestAbortedError(operationRoles.pollOperation, signal?.reason);
    }
  }
}
