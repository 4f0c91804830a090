// C1–C11: one fixed window per API-key record, opened by the first counted request and lasting
// windowMs; not a calendar minute, not sliding, not a token bucket. Check-and-increment is atomic
// here (JavaScript runs it without an await in between), so the emulator never overshoots (C8).
import type { ApiKey, State } from "./state";

export type LimitDecision =
  { allowed: true; limit: number; remaining: number } | { allowed: false; retryAfter: number };

export function hit(state: State, key: ApiKey): LimitDecision {
  const now = state.now();
  const windowMs = state.config.windowMs;
  let window = state.windows.get(key.publicKeyId);
  // C4: the window resets when it ends; requests inside it never extend it.
  if (!window || now >= window.startedAt + windowMs) {
    window = { startedAt: now, count: 0 };
    state.windows.set(key.publicKeyId, window);
  }
  if (window.count >= key.rateLimit) {
    // C6/C11: the 429 itself adds no hit; Retry-After is whole seconds to the window's end, ≥ 1.
    const retryAfter = Math.max(1, Math.ceil((window.startedAt + windowMs - now) / 1000));
    return { allowed: false, retryAfter };
  }
  window.count += 1;
  return { allowed: true, limit: key.rateLimit, remaining: Math.max(0, key.rateLimit - window.count) };
}

/** The seconds a 429 would announce right now (used by the limiter-shaped faults). */
export function secondsToWindowEnd(state: State, key: ApiKey): number {
  const window = state.windows.get(key.publicKeyId);
  const now = state.now();
  if (!window || now >= window.startedAt + state.config.windowMs) return 1;
  return Math.max(1, Math.ceil((window.startedAt + state.config.windowMs - now) / 1000));
}

/** C10: the headers on every response that passed the limiter. */
export function rateHeaders(d: { limit: number; remaining: number }): Record<string, string> {
  return { "x-ratelimit-limit": String(d.limit), "x-ratelimit-remaining": String(d.remaining) };
}
