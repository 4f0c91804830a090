/**
 * Public types of client.recover(): options and the summary (G4, F4, I5). Its events are in core/.
 */
import type { OperationId } from "../generated/operations";
import type { Clock } from "../runtime/clock";
import type { CallOptions } from "../runner";
import type { CommandHolders, CommandState, Journal, LeaseKeeper, ManualCheck } from "../journal";
import type { Outcome, RecoveryEvent, Redactor } from "../core";
import type { PollSchedule } from "./poll-schedule";

/** Options of `client.recover()` and of `recoverOnStart`. */
export interface RecoverOptions {
  /**
   * The provider's idempotency replay TTL, ms (D6: a key replays its first response for 24 hours).
   * @default DEFAULT_RECOVER.replayTtlMs (86 400 000)
   */
  replayTtlMs?: number | undefined;
  /**
   * No resend later than `createdAt + replayTtlMs − safetyMarginMs`, ms.
   * @default DEFAULT_RECOVER.safetyMarginMs (3 600 000)
   */
  safetyMarginMs?: number | undefined;
  /**
   * Past the TTL, resend async domain operations (renew, sync, nameservers) with the same key and
   * bytes, relying on the provider's durable key → task binding (D7). false → they become
   * needs_manual_check, listing the domain's recent operations.
   * @default DEFAULT_RECOVER.asyncResendPastTtl (true)
   */
  asyncResendPastTtl?: boolean | undefined;
  /**
   * Only commands not updated for this long, ms. In fleet mode (client option `fleet`) it applies
   * only to commands written without a lease (before leases existed): leased commands are taken when
   * their lease has expired or this worker owns them. Without fleet mode, set it above your longest
   * command when several live processes share one journal; one process on its journal keeps 0, or a
   * restart within it passes over its own open commands (listed in `RecoverSummary.tooRecent`).
   * @default DEFAULT_RECOVER.staleAfterMs (0)
   */
  staleAfterMs?: number | undefined;
  /**
   * At most this many commands in one call, oldest first.
   * @default DEFAULT_RECOVER.maxCommands (10 000)
   */
  maxCommands?: number | undefined;
  /**
   * Also re-examine needs_manual_check commands.
   * @default DEFAULT_RECOVER.recheckManual (false)
   */
  recheckManual?: boolean | undefined;
  /**
   * Commands reconciled in parallel; every request still goes through the key's pacer.
   * @default DEFAULT_RECOVER.concurrency (4)
   */
  concurrency?: number | undefined;
  /**
   * A 429 journalled this recently pauses recovery until `its time + this`, ms (C12: after a 429 the
   * whole key waits). The limiter's own Retry-After never exceeds one window.
   * @default the client's `pacing.windowMs` (DEFAULT_PACING.windowMs, 60 000)
   */
  pauseAfter429Ms?: number | undefined;
  /** Stop early; commands not yet examined are left as they are. */
  signal?: AbortSignal | undefined;
  onEvent?: ((event: RecoveryEvent) => unknown) | undefined;
}

export interface RecoveryTransition {
  commandId: string;
  operationId: string;
  idempotencyKey: string;
  from: CommandState;
  to: CommandState;
}

export interface RecoverSummary {
  /** Commands of this key/environment this call took to settle (never one a call of this process holds). */
  examined: number;
  /** Reached a terminal state (succeeded, completed, failed, rejected). */
  resolved: RecoveryTransition[];
  /** needs_manual_check, with what the ticket needs (F4). */
  manual: (RecoveryTransition & { manualCheck: ManualCheck })[];
  /** Still open (accepted and running, unknown after a failed lookup/resend…), with why. */
  stillPending: (RecoveryTransition & { reason: string })[];
  /**
   * Left alone: claimed by another process (a lost state-machine race or a lost lease), aborted, or
   * taken back before recovery started on it by a same-key call or an `operations.wait` of this
   * client, which settles it (reason `taken back …`, I6).
   */
  skipped: { commandId: string; reason: string }[];
  /**
   * Passed over without fleet mode because they changed within the last `staleAfterMs` (another live
   * process may still be sending them): their ids and `staleAt`, the time (ms since epoch, the
   * journal's clock) from which a recover() with the same `staleAfterMs` takes each. Nothing calls
   * recover() again by itself outside fleet mode: call it at the earliest `staleAt`, or — one process
   * per journal — use `staleAfterMs: 0` (the default). Always empty with `staleAfterMs: 0`, and in
   * fleet mode, where `staleAfterMs` only applies to commands written without a lease and
   * `fleet.continuousRecovery` comes back for them. Lists only the commands this call read (it
   * reads oldest first and stops at `maxCommands` eligible ones).
   */
  tooRecent: { commandId: string; staleAt: number }[];
}

export interface RecoverDeps {
  journal: Journal;
  clock: Clock;
  apiKeyId: string;
  environment: "test" | "live";
  /** The client's own call path (validation, idempotency, pacing, journal) — no middleware bypass. */
  call: (
    operationId: OperationId,
    args: Record<string, unknown> | undefined,
    options?: CallOptions,
  ) => Promise<Outcome>;
  redactor: Redactor;
  /** The pacing window (default bound for pauseAfter429Ms). */
  windowMs: number;
  /** Fleet mode: commands are claimed under this worker's lease and every move is fenced by it. */
  leases?: LeaseKeeper;
  /**
   * This process's registry: commands its own calls and waits hold are never taken (the check and
   * the take are one synchronous step after the claim or listing), and a call never joins a command
   * recovery holds without waiting for it.
   */
  holders?: CommandHolders;
  /** Continuous recovery: when each accepted command's operation may be polled again (F1, F3). */
  schedule?: PollSchedule;
}
