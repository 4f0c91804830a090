// The only way into journal/ from outside it (see README.md).
export * from "./command-state";
export * from "./journal";
export * from "./errors";
