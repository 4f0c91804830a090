/**
 * Advanced entry `reseller-api/pacing`: build a pacer shared by several clients of one key, or
 * implement your own window store (the Redis store in `reseller-api/stores/redis` is one). Most
 * users never need it: `createResellerClient` builds and shares a pacer per key by itself (C2).
 */
export { createPacer, createMemoryWindowStore, parseRetryAfter } from "../pacing";
export type {
  Pacer,
  PacerOptions,
  PacingPriority,
  PacingSnapshot,
  PacingTicket,
  PacerWaitReason,
  PauseOptions,
  BackoffOptions,
  RetryAfter,
  ReleaseResult,
  WindowStore,
  WindowSnapshot,
  ReserveParams,
  ReserveDecision,
  ObserveParams,
  MemoryWindowStore,
} from "../pacing";
export type { PacingEvent, WaitKind } from "../core";
export type { Clock } from "../runtime/clock";
