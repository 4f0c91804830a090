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
export type { CallOptions } from "../runner";
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
} from "../core";
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
} from "../core";
export { DomainLockedError, DuplicateCommandError, SensitiveDataError } from "../journal";
export type { Journal, CommandRecord, CommandState, AttemptRecord, NewCommand } from "../journal";
export type { ClientEvent, EventHandler } from "../core";
export type { RetryBudget, RetryBudgetOptions } from "../runner";
export { createPacer } from "../pacing";
export type { Pacer, PacerOptions } from "../pacing";
export type { PacingEvent, RecoveryEvent } from "../core";
export type { WindowStore } from "../pacing";
export { systemClock, VirtualClock } from "../runtime/clock";
export type { Clock } from "../runtime/clock";
export type { RecoverOptions, RecoverSummary, RecoveryTransition } from "../recovery";
export type { ManualCheck } from "../journal";
export { InvalidTransitionError } from "../journal";
