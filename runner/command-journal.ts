/**
 * The journal side of one command's attempt loop (G1, I5): one commit per attempt — the attempt is
 * written together with the move that follows it (the outcome, or "sending" before a retry), and
 * recorded → sending rides on the first attempt's write. In fleet mode every write is fenced by this
 * worker's lease, and a lost lease is reported to the keeper. A write refused after the server may
 * have executed the command (a lost lease, a move another mover made first, a failed write) is never
 * thrown at the caller: it is kept as `race`, nothing more is written or sent, and the call's Outcome
 * says so (JournalRace) — the only throws left are before anything could have run.
 */
import type { Classified } from "./classify";
import {
  isInvalidTransitionError,
  isLeaseLostError,
  type AttemptRecord,
  type CommandState,
  type Journal,
} from "../journal";
import type { AttemptInfo, ClientEvent, JournalRace, Outcome } from "../core";
import type { CallContext } from "./call-context";
import { journalAttempt } from "./finalize";
import type { RunnerDeps } from "./runner-types";

export class CommandJournal {
  /** `written` is what the journal holds; `state` may be ahead of it by the unwritten attempt. */
  private written: CommandState | undefined;
  private unwritten: AttemptRecord | undefined;
  /** Whether the server may have executed the command already (it was sent, by this call or before). */
  private mayHaveRun: boolean;
  /** The journal refused a write after a possible execution: this call writes and sends nothing more. */
  race: JournalRace | undefined;

  constructor(
    private readonly deps: RunnerDeps,
    private readonly commandId: string | undefined,
    /** The command's state; undefined for a call with no journal record (a GET, or no journal). */
    public state: CommandState | undefined,
  ) {
    this.written = state;
    this.mayHaveRun = state !== undefined && state !== "recorded";
  }

  private get journal(): Journal | undefined {
    return this.commandId && this.state !== undefined ? this.deps.journal : undefined;
  }

  /** An attempt was made: kept to be written with the next move. */
  noteAttempt(info: AttemptInfo, classified: Classified | undefined, at: number): void {
    if (!this.journal) return;
    this.markSent();
    this.unwritten = journalAttempt(info, classified, at);
  }

  /** The request's bytes may have left: recorded/reconciling → sending (written with the next move). */
  markSent(): void {
    this.mayHaveRun = true;
    if (this.state === "recorded" || this.state === "reconciling") this.state = "sending";
  }

  async move(to: CommandState, patch?: Parameters<Journal["transition"]>[2]): Promise<void> {
    const journal = this.journal;
    if (!journal || this.race) return;
    const commandId = this.commandId!;
    const lease = this.deps.leases?.lease;
    const attempt = this.unwritten;
    this.unwritten = undefined;
    try {
      if (attempt) await journal.addAttempt(commandId, attempt, { to, patch }, lease);
      else {
        if (this.state === "sending" && this.written !== "sending")
          await journal.transition(commandId, "sending", undefined, lease);
        await journal.transition(commandId, to, patch, lease);
      }
    } catch (error) {
      if (isLeaseLostError(error)) this.deps.leases?.lost(commandId, error.currentOwner); // another worker has it now
      if (!this.mayHaveRun) throw error; // nothing can have run yet: a plain, documented pre-send throw
      const race = raceOf(error);
      this.race = { ...race, message: this.deps.redactor.text(race.message) }; // H2: a driver's message may quote a URL
      return;
    }
    this.state = this.written = to;
  }

  /**
   * The caller cancelled before anything was sent: the command this call recorded is withdrawn from
   * the journal, so recovery never sends it. undefined: no journal record; false: it stays (sent,
   * resumed, or the journal refused).
   */
  async withdraw(): Promise<boolean | undefined> {
    const journal = this.journal;
    if (!journal) return undefined;
    if (this.mayHaveRun || this.written !== "recorded" || this.unwritten) return false;
    try {
      return await journal.withdraw(this.commandId!, this.deps.leases?.lease);
    } catch {
      return false; // it stays recorded: recover() sends it, as after a crash
    }
  }

  /** Writes the unwritten attempt (before a wait), moving to "sending". */
  flush(): Promise<void> | undefined {
    return this.unwritten ? this.move("sending") : undefined;
  }
}

/** What a refused write means for the caller, in words (Outcome.journalRace). */
export function raceOf(error: unknown): JournalRace {
  if (isLeaseLostError(error)) {
    return {
      error: "lease_lost",
      currentOwner: error.currentOwner,
      message: `worker ${error.currentOwner ?? "(none)"} took this command over (this worker's lease ran out) and settles it: call again later with the SAME key to read its outcome — never with a new key`,
    };
  }
  if (isInvalidTransitionError(error)) {
    return {
      error: "invalid_transition",
      message: `the journal moved this command first (${error.from} → ${error.to} refused): another mover (recovery, another process) settles it — call again later with the SAME key`,
    };
  }
  return {
    error: "journal_error",
    message: `the journal write failed (${error instanceof Error ? error.message : String(error)}): the command stays as the journal has it and recover() settles it — never buy again with a new key`,
  };
}

/** The journal-race event for observers and telemetry (I7). */
export function raceEvent(ctx: CallContext, race: JournalRace): ClientEvent {
  return {
    type: "journal-race",
    operationId: ctx.op.operationId,
    error: race.error,
    currentOwner: race.currentOwner,
    idempotencyKey: ctx.sentIdempotencyKey,
    commandId: ctx.commandId,
  };
}

/** Another live worker holds the command: nothing sent, a typed conflict (D5: first attempt still processing). */
export function elsewhere(ctx: CallContext, heldBy: string | null): Outcome {
  return {
    kind: "conflict",
    operationId: ctx.op.operationId,
    attempts: [],
    idempotencyKey: ctx.sentIdempotencyKey,
    rateLimit: { limit: null, remaining: null },
    commandId: ctx.commandId,
    status: 409,
    reason: "in_flight_elsewhere",
    heldBy,
    retryAt: null,
  };
}
