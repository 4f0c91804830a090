/**
 * The I5 command state machine, pure and explicit. Every journal store validates transition() with
 * canTransition(), so the memory, SQLite and PostgreSQL stores agree on what may happen to a
 * command — and a timeout can never silently turn into "failed" (E4, F4).
 */
import type { CommandState } from "../core";
import { InvalidTransitionError } from "./errors";

/** Every state, in lifecycle order. */
export const COMMAND_STATES: readonly CommandState[] = [
  "recorded",
  "sending",
  "succeeded",
  "accepted",
  "completed",
  "failed",
  "rejected",
  "conflict",
  "unknown",
  "reconciling",
  "needs_manual_check",
];

/**
 * Allowed moves, `from → to[]`.
 * - sending → sending: retries (429, bounded 5xx/network retries) stay in "sending"; each one is an
 *   appended attempt (I7).
 * - accepted → accepted: a poll that learns something (operation status, next_check_at) is stored
 *   with the command without changing its meaning (F1, G6).
 * - reconciling → sending: a resend after reconciliation, with the SAME key and bytes (G4).
 * - needs_manual_check holds the domain lock until a human resolves it (F4, I6).
 */
export const allowedTransitions: Readonly<Record<CommandState, readonly CommandState[]>> = {
  recorded: ["sending"],
  sending: ["sending", "succeeded", "accepted", "rejected", "conflict", "unknown"],
  accepted: ["accepted", "completed", "failed", "unknown", "needs_manual_check"],
  unknown: ["reconciling"],
  conflict: ["reconciling"],
  reconciling: ["succeeded", "accepted", "completed", "failed", "rejected", "unknown", "needs_manual_check", "sending"],
  needs_manual_check: ["reconciling", "completed", "failed"],
  succeeded: [],
  completed: [],
  failed: [],
  rejected: [],
};

/** States after which nothing more happens to a command. */
export const TERMINAL_STATES: readonly CommandState[] = ["succeeded", "completed", "failed", "rejected"];

/**
 * I6: every non-terminal state holds the per-domain lock — including needs_manual_check, because
 * an unverified purchase may have happened: never buy again until it is checked (F4).
 */
export const LOCK_HOLDING_STATES: readonly CommandState[] = COMMAND_STATES.filter((s) => !TERMINAL_STATES.includes(s));

export function isCommandState(value: unknown): value is CommandState {
  return typeof value === "string" && (COMMAND_STATES as readonly string[]).includes(value);
}

export function isTerminal(state: CommandState): boolean {
  return TERMINAL_STATES.includes(state);
}

export function holdsLock(state: CommandState): boolean {
  return LOCK_HOLDING_STATES.includes(state);
}

export function canTransition(from: CommandState, to: CommandState): boolean {
  return allowedTransitions[from]?.includes(to) ?? false;
}

/**
 * An attempt write that also moves the state (AttemptMove): the command passes through `sending`
 * (where every attempt is made), so `from → sending → to` must both be allowed.
 */
export function canMoveWithAttempt(from: CommandState, to: CommandState): boolean {
  return (from === "sending" || canTransition(from, "sending")) && canTransition("sending", to);
}

/** Throws InvalidTransitionError unless an attempt write may move `from` to `to` (via sending). */
export function assertAttemptMove(from: CommandState, to: CommandState): void {
  if (!canMoveWithAttempt(from, to)) throw new InvalidTransitionError(from, to);
}

/** Throws InvalidTransitionError unless `from → to` is allowed. */
export function assertTransition(from: CommandState, to: CommandState): void {
  if (!canTransition(from, to)) throw new InvalidTransitionError(from, to);
}
