/**
 * Public types of client.recover(): options and the summary (G4, F4, I5). Its events are in core/.
 */
import type { OperationId } from "../generated/operations";
import type { Clock } from "../runtime/clock";
import type { CallOptions } from "../runner";
import type { CommandState, Journal, LeaseKeeper, ManualCheck } from "../journal";
import type { Outcome, RecoveryEvent, Redactor } from "../core";

export interface RecoverOptions {
  /** D6: the provider's replay TTL (default 24 h). */
  replayTtlMs?: number;
  /** No resend later than `createdAt + replayTtlMs − safetyMarginMs` (default 1 h). */
  safetyMarginMs?: number;
  /**
   * D7: past the TTL, resend async domain operations (renew, sync, nameservers) with the same key
   * and bytes, relying on the provider's durable key → task binding (default true). false → they
   * become needs_manual_check, listing the domain's recent operations.
   */
  asyncResendPastTtl?: boolean;
  /**
   * Only commands not updated for this long (default 0). In fleet mode (client option `fleet`) it
   * applies only to commands written without a lease (before leases existed): leased commands are
   * taken when their lease has expired or this worker owns them. Without fleet mode, set it above
   * your longest command when several live processes share one journal.
   */
  staleAfterMs?: number;
  /** At most this many commands in one call, oldest first (default 10 000). */
  maxCommands?: number;
  /** Also re-examine needs_manual_check commands (default false). */
  recheckManual?: boolean;
  /** Commands reconciled in parallel (default 4; all requests still go through the key's pacer). */
  concurrency?: number;
  /**
   * C12 across a restart: a 429 journalled this recently pauses recovery until `its time + this`
   * (default: the pacing window, 60 s — the limiter's own Retry-After never exceeds one window).
   */
  pauseAfter429Ms?: number;
  /** Stop early; commands not yet examined are left as they are. */
  signal?: AbortSignal;
  onEvent?: (event: RecoveryEvent) => void;
}

export interface RecoveryTransition {
  commandId: string;
  operationId: string;
  idempotencyKey: string;
  from: CommandState;
  to: CommandState;
}

export interface RecoverSummary {
  /** Commands of this key/environment found in a recoverable state. */
  examined: number;
  /** Reached a terminal state (succeeded, completed, failed, rejected). */
  resolved: RecoveryTransition[];
  /** needs_manual_check, with what the ticket needs (F4). */
  manual: (RecoveryTransition & { manualCheck: ManualCheck })[];
  /** Still open (accepted and running, unknown after a failed lookup/resend…), with why. */
  stillPending: (RecoveryTransition & { reason: string })[];
  /** Left alone: claimed by another process (a lost state-machine race or a lost lease) or aborted. */
  skipped: { commandId: string; reason: string }[];
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
}
