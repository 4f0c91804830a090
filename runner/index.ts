// The only way into runner/ from outside it (see README.md); every export listed by name.
export { callContextFor } from "./call-context";
export type { CallContext, CallOptions, ReadCallOptions } from "./call-context";
export { classify, isJsonContentType } from "./classify";
export { looksUpBeforeResend, orderFromList, orderLookupQuery } from "./reconcile";
export { createRetryBudget } from "./retry-budget";
export type { RetryBudget, RetryBudgetOptions } from "./retry-budget";
export { decide } from "./retry-policy";
export type { AttemptResult } from "./retry-policy";
export type { RunnerDeps } from "./runner-types";
export { observeAnswer, runCommand } from "./run-command";
export { sendAttempt } from "./transport";
export type { AttemptRequest, AttemptTransport } from "./transport";
