/**
 * The journal's command states (I5), shared by events, outcomes and the journal. The allowed
 * transitions between them live in journal/command-state.ts.
 */
export type CommandState =
  | "recorded"
  | "sending"
  | "succeeded"
  | "accepted"
  | "completed"
  | "failed"
  | "rejected"
  | "conflict"
  | "unknown"
  | "reconciling"
  | "needs_manual_check";
