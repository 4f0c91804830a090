// Package entry for `reseller-api`: the client, its outcome and error types, and the operations table.
export * from "../generated/operations";
// E1/E2: the API's error envelope, a union by `code` with isX guards (never branch on `message`, E6).
export * from "../generated/errors";
export type { OperationArgs, OperationData } from "../generated/client";
export { createResellerClient } from "./client";
export type { ResellerClient, ResultMap } from "./client";
export type { ResellerClientOptions } from "./options";
export type { PagedCall } from "./paged-call";
export type { WaitOptions, WaitResult } from "./operations-wait";
export type { CallOptions } from "../middleware/call-context";
export type {
  Outcome,
  OutcomeKind,
  SucceededOutcome,
  AcceptedOutcome,
  RejectedOutcome,
  ConflictOutcome,
  UnknownOutcome,
  UnknownReason,
  AttemptInfo,
  AttemptErrorKind,
  RateLimitSnapshot,
  OperationResource,
} from "../middleware/outcome";
export {
  ResellerClientError,
  InvalidOptionsError,
  InvalidArgumentError,
  InvalidTokenError,
  LiveOnlyError,
  InsecureTransportError,
  RequestAbortedError,
  PaginationError,
  NetworkError,
  TimeoutError,
} from "../middleware/errors";
export { DomainLockedError, DuplicateCommandError, SensitiveDataError } from "../middleware/journal";
export type { Journal, CommandRecord, CommandState, AttemptRecord, NewCommand } from "../middleware/journal";
export type { ClientEvent, EventHandler } from "../middleware/events";
export type { RetryBudget, RetryBudgetOptions } from "../middleware/retry-budget";
export { createPacer } from "../middleware/pacing";
export type { Pacer, PacerOptions, PacingEvent } from "../middleware/pacing";
export type { WindowStore } from "../middleware/window-store";
export { systemClock, VirtualClock } from "../runtime/clock";
export type { Clock } from "../runtime/clock";
export type { RecoverOptions, RecoverSummary, RecoveryEvent, RecoveryTransition } from "./recover";
export type { ManualCheck } from "../middleware/journal";
export { InvalidTransitionError } from "../middleware/journal";
