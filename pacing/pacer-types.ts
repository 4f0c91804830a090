/**
 * The pacer's public surface: its options, the Pacer interface, tickets and what a release reports.
 * The implementation is pacer.ts (window accounting and the pump) and pacer-queue.ts (waiting lanes).
 */
import type { PacingEvent, WaitKind } from "../core";
import type { Clock } from "../runtime/clock";
import type { PauseOptions } from "./retry-timing";
import type { WindowStore } from "./window-store";

export interface PacerOptions {
  /** Shared window state (default: in-process memory store; Redis across processes, I1). */
  store?: WindowStore | undefined;
  /**
   * The server's fixed window length, ms (C3: one counter per key per fixed window).
   * @default DEFAULT_PACING.windowMs (60 000)
   */
  windowMs?: number | undefined;
  /**
   * Requests per window assumed until the key's limit is learned (C1).
   * @default DEFAULT_PACING.initialLimit (120)
   */
  initialLimit?: number | undefined;
  /**
   * Requests of one key in flight at once in this process (C8).
   * @default DEFAULT_PACING.maxConcurrency (4)
   */
  maxConcurrency?: number | undefined;
  /**
   * Sends an idle key may make at once, ahead of the even spacing (C8): a token bucket of `burst`
   * sends refilled at `limit` per window, used only in a window whose first answer has arrived.
   * Beyond it, and whenever a backlog exists, sends are spread evenly; the window's count still
   * caps them at the limit. Capped at the limit.
   * @default maxConcurrency
   */
  burst?: number | undefined;
  clock?: Clock | undefined;
  /** Uniform in [0, 1), for the 429 margin and backoff jitter (default Math.random). */
  random?: (() => number) | undefined;
  /**
   * Latency/granularity margin (default clamp(windowMs / 200, 25, 1000) ms): the last send of a
   * window goes out ≥ guardMs before its earliest possible server end, and the next window opens
   * guardMs after its latest possible server end. The guard in force is raised to the slowest of
   * the key's last 16 round trips (capped at windowMs / 40), because the model holds only while
   * one-way latency stays below the guard.
   */
  guardMs?: number | undefined;
  /** Floors and margins of the pause after a 429 (see `pauseAfter429`). */
  pause?: Omit<PauseOptions, "random"> | undefined;
  onEvent?: ((e: PacingEvent) => void) | undefined;
}

export interface PacingSnapshot {
  limit: number;
  /** Sends left in the open window by our count (null when no window is open). */
  remaining: number | null;
  pausedUntil: number | null;
  /** Confirmed end of the open window, when known. */
  windowEndsAt: number | null;
}

export interface Pacer {
  /**
   * Waits (honouring signal) for this key's next send slot: pause after 429, fixed-window fit, even
   * spacing, concurrency cap. With `deadlineAt` (ms since the epoch on the pacer's clock) it never
   * waits past it: as soon as the slot is known to come later, it rejects with a
   * DeadlineExceededError that says when the key may send again — instead of sleeping.
   * `priority` "recovery" queues ahead of every "normal" waiter of the key (see PacingPriority).
   */
  acquire(
    apiKeyId: string,
    signal?: AbortSignal,
    deadlineAt?: number,
    priority?: PacingPriority,
  ): Promise<PacingTicket>;
  /** Limit learned from GET /context (data.credential.rate_limit_per_minute) or X-RateLimit-Limit. */
  learnLimit(apiKeyId: string, limit: number): void;
  snapshot(apiKeyId: string): PacingSnapshot;
}

export interface ReleaseResult {
  /** When the attempt ended (response headers arrived, or the transport failed), from the Clock. */
  receivedAt: number;
  /** HTTP status; absent when no response came (network error, timeout). */
  status?: number;
  /** X-RateLimit-Limit, parsed. */
  limit?: number | null;
  /** X-RateLimit-Remaining, parsed. */
  remaining?: number | null;
  /** Raw Retry-After header. */
  retryAfter?: string | null;
  /** A 429, the API's own or a proxy's (C11, C12). */
  isRateLimit?: boolean;
  /** How many times this command was already retried (0 for its first attempt). */
  attempt?: number;
}

export interface PacingTicket {
  readonly waitedMs: number; // time spent waiting for the slot
  /** The strongest reason the slot was not free at once (a 429 pause over a full window over spacing). */
  readonly waitReason?: PacerWaitReason;
  /** Must be called exactly once when the attempt ends. Later calls are ignored. */
  release(result: ReleaseResult): void;
}

/** Why a send waited in the pacer, for telemetry (a subset of core's WaitKind). */
export type PacerWaitReason = Extract<WaitKind, "retry_after" | "window_full" | "spacing" | "concurrency">;

/**
 * Which lane of the key's queue a send waits in. "recovery" (recover() settling commands that a
 * dead or crashed instance left open) goes before every "normal" waiter, so a saturated queue of
 * new work cannot starve it; both lanes draw from the same window, so the key's limit still holds.
 * Recovery runs a few lanes at most (its `concurrency`), so it cannot starve new work in turn.
 */
export type PacingPriority = "normal" | "recovery";
