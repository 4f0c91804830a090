// The only way into middleware/ from outside it (see README.md); every export listed by name.
export { createAttemptLoopMiddleware } from "./attempt-loop";
export { chainMiddleware } from "./chain";
export type { Chain } from "./chain";
export { createIdempotencyMiddleware } from "./idempotency";
export { createLanguageMiddleware, validateLanguage } from "./language";
export { createLocalValidationMiddleware } from "./local-validation";
export { createRequestIdMiddleware, randomRequestId } from "./request-id";
