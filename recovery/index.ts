// The only way into recovery/ from outside it (see README.md); every export listed by name.
export { listDomainOperations, lookupOrderByExternalId } from "./lookups";
export type { OrderLookup } from "./lookups";
export {
  RECOVERABLE_STATES,
  operationOf,
  pathParamsOf,
  pauseAfterJournalled429,
  planRecovery,
  possiblySent,
  requestIdsOf,
  withinReplayTtl,
} from "./plan";
export type { PlanOptions, RecoveryPlan } from "./plan";
export { createPollSchedule } from "./poll-schedule";
export type { PollSchedule } from "./poll-schedule";
export { recoverCommands } from "./recover";
export type { RecoverDeps, RecoverOptions, RecoverSummary, RecoveryTransition } from "./types";
