// The only way into pacing/ from outside it (see README.md).
export * from "./memory-window-store";
export * from "./pacer";
export * from "./retry-timing";
export type * from "./window-store";
export type { PacingEvent } from "../core";
