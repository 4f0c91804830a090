/**
 * Where the client keeps its view of the server's fixed rate-limit window (C2, C3, C12, I1).
 * In one process the memory store is enough; several processes on one API key share a Redis
 * store (stores/redis-window-store.ts) so that together they stay inside one server window.
 */

/** Result of asking for a send slot. */
export type SlotDecision =
  | { readonly granted: true; /** Slots left in this window after this one. */ readonly remaining: number }
  | { readonly granted: false; /** Earliest time (ms since epoch) worth asking again. */ readonly retryAt: number };

export interface WindowStore {
  /**
   * Atomically take one slot for `key` in the current window at time `now`.
   * The window starts with the first granted slot and lasts `windowMs` (C3, C4); at most `limit`
   * slots are granted in it. A pause set by pauseUntil() refuses every slot until it ends (C12).
   */
  acquire(key: string, limit: number, windowMs: number, now: number): Promise<SlotDecision>;
  /** After a 429: refuse every slot for `key` until `until` (ms). Never shortens a longer pause. */
  pauseUntil(key: string, until: number): Promise<void>;
  /**
   * A snapshot from the server (C10): `used` requests counted in the window that the server
   * says is open. The store may raise its own count to it; it never lowers it (snapshots are
   * not reservations).
   */
  observe(key: string, used: number, limit: number, now: number): Promise<void>;
  close(): Promise<void>;
}
