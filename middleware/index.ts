// The only way into middleware/ from outside it (see README.md).
export * from "./attempt-loop";
export * from "./chain";
export * from "./idempotency";
export * from "./language";
export * from "./local-validation";
export * from "./request-id";
