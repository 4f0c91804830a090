// The only way into pacing/ from outside it (see README.md); every export listed by name.
export {
  MemoryWindowStore,
  applyConfirm,
  applyPause,
  applyRefund,
  applyReserve,
  createMemoryWindowStore,
  emptyRecord,
  straddlerWindowId,
  toSnapshot,
} from "./memory-window-store";
export type { WindowRecord } from "./memory-window-store";
export { applyObserve } from "./window-observe";
export { createPacer } from "./pacer";
export type { Pacer, PacerOptions, PacingPriority, PacingSnapshot, PacingTicket, ReleaseResult } from "./pacer";
export type { PacerWaitReason } from "./pacer-types";
export { MAX_RETRY_AFTER_MS, backoffDelay, parseHttpDate, parseRetryAfter, pauseAfter429 } from "./retry-timing";
export type { BackoffOptions, PauseOptions, RetryAfter } from "./retry-timing";
export type { ObserveParams, ReserveDecision, ReserveParams, WindowSnapshot, WindowStore } from "./window-store";
export type { PacingEvent } from "../core";
