// The only way into journal/ from outside it (see README.md); every export listed by name.
export {
  COMMAND_STATES,
  LOCK_HOLDING_STATES,
  TERMINAL_STATES,
  allowedTransitions,
  assertAttemptMove,
  assertTransition,
  canMoveWithAttempt,
  canTransition,
  holdsLock,
  isCommandState,
  isTerminal,
} from "./command-state";
export type {
  AttemptMove,
  AttemptRecord,
  ClaimRequest,
  CommandPatch,
  CommandRecord,
  CommandResources,
  CommandState,
  Journal,
  Lease,
  ListCommandsFilter,
  StatePage,
  ManualCheck,
  ManualResolution,
  NewCommand,
  PruneOptions,
  WriteOptions,
} from "./journal";
export { JOURNAL_METHODS } from "./journal";
export {
  DomainLockedError,
  DuplicateCommandError,
  InvalidTransitionError,
  LeaseLostError,
  SensitiveDataError,
  UnknownCommandError,
  isDomainLockedError,
  isDuplicateCommandError,
  isInvalidTransitionError,
  isLeaseLostError,
  isSensitiveDataError,
  isUnknownCommandError,
  JournalClosedError,
  JournalContentionError,
  JournalCorruptError,
  isJournalClosedError,
  isJournalContentionError,
  isJournalCorruptError,
} from "./errors";
export { commandFingerprint, fingerprintInput, isFingerprint } from "./fingerprint";
export { requestSensitiveFields } from "./sensitive";
export { createLeaseKeeper } from "./lease-keeper";
export type { LeaseKeeper } from "./lease-keeper";
export { createCommandHolders } from "./holders";
export type { CallHold, CommandHolders } from "./holders";
