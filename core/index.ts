// The only way into core/ from outside it (see README.md).
export * from "./errors";
export * from "./events";
export * from "./outcome";
export * from "./redact";
export * from "./states";
export * from "./validate";
export * from "./telemetry";
