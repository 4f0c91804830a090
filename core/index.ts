// The only way into core/ from outside it (see README.md); every export listed by name.
export {
  DEFAULT_CALL,
  DEFAULT_FLEET,
  DEFAULT_PACING,
  DEFAULT_RECOVER,
  DEFAULT_RETRY,
  DEFAULT_RETRY_BUDGET,
  DEFAULT_WAIT,
} from "./defaults";
export {
  DeadlineExceededError,
  InsecureTransportError,
  InvalidArgumentError,
  InvalidOptionsError,
  InvalidTokenError,
  LiveOnlyError,
  MissingDependencyError,
  NetworkError,
  PaginationError,
  RequestAbortedError,
  ResellerClientError,
  ResponseTooLargeError,
  StoreUnavailableError,
  ClientClosedError,
  TimeoutError,
  errorGuard,
  isDeadlineExceededError,
  isInsecureTransportError,
  isInvalidArgumentError,
  isInvalidOptionsError,
  isInvalidTokenError,
  isLiveOnlyError,
  isMissingDependencyError,
  isNetworkError,
  isPaginationError,
  isRequestAbortedError,
  isResellerClientError,
  isResponseTooLargeError,
  isStoreUnavailableError,
  isClientClosedError,
  isTimeoutError,
} from "./errors";
export type { ResellerErrorCode } from "./errors";
export { createEventSink, quietly } from "./events";
export type { ClientEvent, EventHandler, EventSink, PacingEvent, RecoveryEvent } from "./events";
export type {
  AcceptedOutcome,
  AttemptErrorKind,
  AttemptInfo,
  ConflictOutcome,
  JournalRace,
  LocalReplay,
  OperationResource,
  Outcome,
  OutcomeBase,
  OutcomeKind,
  RateLimitSnapshot,
  RejectedOutcome,
  SucceededOutcome,
  UnknownOutcome,
  UnknownReason,
} from "./outcome";
export { containsUrlSecret, createRedactor, redactUrl, snippetOf } from "./redact";
export type { Redactor } from "./redact";
export { envelopeList, isRecord, operationResourceOf } from "./shape";
export type { CommandState } from "./states";
export {
  checkBaseUrl,
  checkLiveOnly,
  parseToken,
  validateIdempotencyKey,
  validatePathParams,
  validateQuery,
} from "./validate";
export { guardTelemetry } from "./telemetry";
export type {
  AttemptEndInfo,
  AttemptStartInfo,
  AttemptTelemetry,
  ClientTelemetry,
  CommandEndInfo,
  CommandStartInfo,
  CommandTelemetry,
  TelemetrySource,
  WaitKind,
} from "./telemetry";
