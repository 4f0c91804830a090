/**
 * The journal side of one command's attempt loop (G1, I5): one commit per attempt — the attempt is
 * written together with the move that follows it (the outcome, or "sending" before a retry), and
 * recorded → sending rides on the first attempt's write. In fleet mode every write is fenced by this
 * worker's lease, and a lost lease is reported to the keeper.
 */
import type { Classified } from "./classify";
import { isLeaseLostError, type AttemptRecord, type CommandState, type Journal } from "../journal";
import type { AttemptInfo } from "../core";
import { journalAttempt } from "./finalize";
import type { RunnerDeps } from "./runner-types";

export class CommandJournal {
  /** `written` is what the journal holds; `state` may be ahead of it by the unwritten attempt. */
  private written: CommandState | undefined;
  private unwritten: AttemptRecord | undefined;

  constructor(
    private readonly deps: RunnerDeps,
    private readonly commandId: string | undefined,
    /** The command's state; undefined for a call with no journal record (a GET, or no journal). */
    public state: CommandState | undefined,
  ) {
    this.written = state;
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
    if (this.state === "recorded" || this.state === "reconciling") this.state = "sending";
  }

  async move(to: CommandState, patch?: Parameters<Journal["transition"]>[2]): Promise<void> {
    const journal = this.journal;
    if (!journal) return;
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
      throw error;
    }
    this.state = this.written = to;
  }

  /** Writes the unwritten attempt (before a wait), moving to "sending". */
  flush(): Promise<void> | undefined {
    return this.unwritten ? this.move("sending") : undefined;
  }
}
