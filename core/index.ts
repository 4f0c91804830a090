// The only way into core/ from outside it (see README.md).
export * from "./defaults";
export * from "./errors";
export * from "./events";
export type * from "./outcome";
export * from "./redact";
export * from "./shape";
export type * from "./states";
export * from "./validate";
export * from "./telemetry";
