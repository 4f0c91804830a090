/**
 * Fleet mode (client option `fleet`): this instance's worker id and lease keeper, and the optional
 * background recovery that settles dead workers' commands — their leases expired — in small paced
 * rounds, so nobody has to restart anything for a survivor to finish them.
 */
import type { Clock } from "../runtime/clock";
import type { EventSink } from "../core";
import { createLeaseKeeper, type Journal, type LeaseKeeper } from "../journal";
import type { RecoverOptions, RecoverSummary } from "../recovery";
import type { ResolvedFleet } from "./resolved-options";

export interface Fleet {
  workerId: string;
  leases: LeaseKeeper;
  /** Whether start() runs background recovery (continuousRecovery is on). */
  recovers: boolean;
  /** Starts background recovery when the options ask for it. */
  start(recover: (options: RecoverOptions) => Promise<RecoverSummary>): void;
  /**
   * Stops background recovery (aborts and waits for the round in progress); the heartbeat goes on
   * until `leases.stop()` (client.close() calls it once the calls in flight are done).
   */
  stopRecovery(): Promise<void>;
}

export function createFleet(
  /** The `fleet` option with its defaults applied (resolved-options.ts). */
  options: ResolvedFleet,
  journal: Journal,
  clock: Clock,
  events: EventSink,
  random: () => number = Math.random,
): Fleet {
  const { workerId, leaseMs } = options;
  const leases = createLeaseKeeper({
    journal,
    clock,
    lease: { owner: workerId, leaseMs },
    heartbeatMs: options.heartbeatMs,
    onLost: (commandId, currentOwner) => events.emit({ type: "lease-lost", commandId, workerId, currentOwner }),
    onRenewError: (error, commands) => events.emit({ type: "lease-renew-failed", workerId, commands, error }),
  });
  const stop = new AbortController();
  let loop: Promise<void> | undefined;
  const stopRecovery = async () => {
    stop.abort();
    await loop;
  };

  return {
    workerId,
    leases,
    recovers: !!options.continuousRecovery,
    start(recover) {
      const config = options.continuousRecovery;
      if (!config || loop) return;
      const { intervalMs } = config;
      const round: RecoverOptions = {
        maxCommands: config.batch,
        concurrency: config.concurrency,
        signal: stop.signal,
      };
      loop = (async () => {
        let more = false;
        while (!stop.signal.aborted) {
          try {
            // Jittered in [interval / 2, interval]: survivors' rounds drift apart, so the first one
            // to see an expired lease claims it within one interval, and no two poll in lockstep.
            // A full batch of unsettled commands means more may wait: the next round starts at once.
            if (!more) await clock.sleep(Math.ceil(intervalMs * (0.5 + random() / 2)), stop.signal);
          } catch {
            return; // stopped
          }
          more = false;
          try {
            const summary = await recover(round);
            more = summary.examined >= round.maxCommands! && unsettledWork(summary);
            config.onRound?.(summary);
          } catch (error) {
            if (!stop.signal.aborted) events.emit({ type: "recovery", event: { type: "recovery-error", error } });
          }
        }
      })();
    },
    stopRecovery,
  };
}

/** Whether a round settled anything besides accepted operations it only polled (those can wait). */
function unsettledWork(summary: RecoverSummary): boolean {
  return [...summary.resolved, ...summary.manual, ...summary.stillPending].some(
    (t) => t.from !== "accepted" && t.from !== "needs_manual_check",
  );
}
