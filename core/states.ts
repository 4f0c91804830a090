/**
 * The journal's command states (I5: every command is tracked in a state machine), shared by events,
 * outcomes and the journal. `canTransition` says which moves between them are allowed.
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
