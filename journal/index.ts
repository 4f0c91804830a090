// The only way into journal/ from outside it (see README.md).
export * from "./command-state";
export type * from "./journal";
export * from "./errors";
export * from "./lease-keeper";
export * from "./holders";
