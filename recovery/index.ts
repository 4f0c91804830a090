// The only way into recovery/ from outside it (see README.md).
export * from "./lookups";
export * from "./plan";
export * from "./recover";
export type * from "./types";
