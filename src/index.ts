/**
 * Package entry of `reseller-api`. Every export is listed by name, so a spec change or a new internal
 * module can never change the public surface silently.
 */

// The client.
export { createResellerClient } from "./client";
export type { ResellerClient, ResultMap } from "./client";
export type { PageItem } from "./client-type";
export type { ResourceFacade } from "../generated/client";
export type { paths, operations, components } from "../generated/schema";
export type { ResellerClientOptions, FleetOptions } from "./options";
export type { PagedCall } from "./paged-call";
export type { WaitOptions, WaitPoll, WaitResult } from "./operations-wait";
export type { CallOptions, ReadCallOptions } from "../runner";
export type { OperationArgs, OperationData } from "../generated/client";

// What every call resolves to: an Outcome, a union on `kind` (an HTTP result never throws).
export type {
  Outcome,
  OutcomeKind,
  SucceededOutcome,
  AcceptedOutcome,
  RejectedOutcome,
  ConflictOutcome,
  UnknownOutcome,
  UnknownReason,
  OutcomeBase,
  LocalReplay,
  JournalRace,
  AttemptInfo,
  AttemptErrorKind,
  RateLimitSnapshot,
  OperationResource,
} from "../core";

// The one error family: everything the package throws extends ResellerClientError.
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
  MissingDependencyError,
  DeadlineExceededError,
  ResponseTooLargeError,
  StoreUnavailableError,
  ClientClosedError,
  isStoreUnavailableError,
  isClientClosedError,
  isResellerClientError,
  isInvalidOptionsError,
  isInvalidArgumentError,
  isInvalidTokenError,
  isLiveOnlyError,
  isInsecureTransportError,
  isRequestAbortedError,
  isPaginationError,
  isNetworkError,
  isTimeoutError,
  isMissingDependencyError,
  isDeadlineExceededError,
  isResponseTooLargeError,
} from "../core";
export type { ResellerErrorCode } from "../core";
// One redaction for every URL printed or thrown (userinfo, secret-looking query values).
export { redactUrl } from "../core";
export {
  DomainLockedError,
  DuplicateCommandError,
  InvalidTransitionError,
  JournalClosedError,
  JournalContentionError,
  JournalCorruptError,
  LeaseLostError,
  SensitiveDataError,
  UnknownCommandError,
  isJournalClosedError,
  isJournalContentionError,
  isJournalCorruptError,
  isDomainLockedError,
  isLeaseLostError,
  isDuplicateCommandError,
  isInvalidTransitionError,
  isSensitiveDataError,
  isUnknownCommandError,
} from "../journal";

// The API's own error envelope (E1, E2): a union by `code`, with one guard per code.
export {
  apiErrorCodes,
  parseApiError,
  isApiError,
  isRequestFailed,
  isUnauthenticated,
  isForbidden,
  isResourceNotFound,
  isConflict,
  isValidationFailed,
  isRateLimitExceeded,
  isInternalError,
} from "../generated/errors";
export type {
  ApiError,
  ApiErrorCode,
  ErrorEnvelope,
  RequestFailedErrorBody,
  UnauthenticatedErrorBody,
  ForbiddenErrorBody,
  ResourceNotFoundErrorBody,
  ConflictErrorBody,
  ValidationFailedErrorBody,
  RateLimitExceededErrorBody,
  InternalErrorBody,
  UnknownCodeErrorBody,
} from "../generated/errors";

// Operation metadata from the spec.
export { operationTable, operationList, operationRoles } from "../generated/operations";
export type {
  OperationId,
  OperationMeta,
  HttpMethod,
  UnknownOutcomePolicy,
  PaginationKind,
  ProducedResource,
  OperationRole,
  OperationOfRole,
} from "../generated/operations";

// Journals: what a store implements (stores live in reseller-api/stores/*).
export { canTransition, commandFingerprint, COMMAND_STATES, TERMINAL_STATES } from "../journal";
export type {
  Journal,
  CommandRecord,
  CommandState,
  CommandPatch,
  CommandResources,
  AttemptRecord,
  NewCommand,
  ManualCheck,
  Lease,
  AttemptMove,
  ClaimRequest,
  WriteOptions,
  PruneOptions,
  ListCommandsFilter,
  StatePage,
  ManualResolution,
} from "../journal";

// Recovery after a crash.
export type { RecoverOptions, RecoverSummary, RecoveryTransition } from "../recovery";

// Events (I7), already redacted; the `logger` option's shape.
export type { ClientEvent, EventHandler, PacingEvent, RecoveryEvent } from "../core";
export type { Logger, LogMethod } from "./logging";

// Telemetry hooks (reseller-api/otel implements them).
export type {
  ClientTelemetry,
  CommandTelemetry,
  AttemptTelemetry,
  CommandStartInfo,
  CommandEndInfo,
  AttemptStartInfo,
  AttemptEndInfo,
  TelemetrySource,
  WaitKind,
} from "../core";

// Pacing and retry budget: types for options; constructors live in reseller-api/pacing.
export type {
  Pacer,
  PacerOptions,
  PacingPriority,
  PacingSnapshot,
  PacingTicket,
  PacerWaitReason,
  ReleaseResult,
  PauseOptions,
  BackoffOptions,
  WindowStore,
  WindowSnapshot,
  ReserveParams,
  ReserveDecision,
  ObserveParams,
} from "../pacing";
export type { RetryBudget, RetryBudgetOptions } from "../runner";

// Every option default, one object per option group (cited by the options' @default tags).
export {
  DEFAULT_RETRY,
  DEFAULT_RETRY_BUDGET,
  DEFAULT_PACING,
  DEFAULT_CALL,
  DEFAULT_WAIT,
  DEFAULT_RECOVER,
  DEFAULT_FLEET,
} from "../core";

// Time, injectable (tests share a VirtualClock with the emulator).
export { systemClock, VirtualClock } from "../runtime/clock";
export type { Clock, VirtualClockOptions } from "../runtime/clock";
