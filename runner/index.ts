// The only way into runner/ from outside it (see README.md).
export * from "./attempt-signal";
export * from "./call-context";
export * from "./classify";
export * from "./command-runner";
export * from "./deadline";
export * from "./fast-path";
export * from "./finalize";
export * from "./paced-attempt";
export * from "./reconcile";
export * from "./retry-budget";
export * from "./retry-policy";
export type * from "./runner-types";
export * from "./run-command";
export * from "./transport";
