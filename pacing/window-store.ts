/**
 * Where the client keeps its view of the server's FIXED rate-limit window (C2, C3, C4, C12, I1, I3).
 * A stable interface: the Redis store (`reseller-api/stores/redis`) implements it with one Lua script
 * per method; the in-process memory store is the other implementation AND the reference semantics
 * (`applyReserve` & co. there are pure functions a Lua port must mirror).
 *
 * Model. Per API key (C2: one counter per key record) the store keeps ONE open window at most:
 *   - `windowStart`: our first send in the window. The server's window (C3) starts at the server's
 *     first COUNTED request, i.e. somewhere between that send and the first response we receive
 *     for the window, so the server's window ends in [windowStart + W, firstResponse + W].
 *   - sends are granted only while `t < windowStart + windowMs - guardMs` (the last instant at which
 *     a send is certain to land in the server's current window, given one-way latency < guardMs);
 *     at most `limit` sends per window (C3), spaced at least `spacingMs` apart (C8: spread evenly).
 *   - a send after that instant but before the confirmed `windowEnd`, while the window has room, is a
 *     STRADDLER: it may land in either server window, so it opens the next window at once (dated from
 *     it) and counts in both: `straddleRoom` (limit − the old count) bounds how many go, and its
 *     windowId is never the window's own (`straddlerWindowId`), so its answer confirms, observes and
 *     refunds nothing — the next window's end comes from a send made after the old `windowEnd`.
 *   - `windowEnd`: `earliest confirmed response + windowMs + endGuardMs`; unknown (null) until a
 *     response is confirmed. The NEXT window may only open at `windowEnd` — never at
 *     `windowStart + windowMs` (I3: a window opened too early lets ~2×limit land in one server
 *     window). An unconfirmed window is given up at `windowStart + 2·windowMs + guardMs`
 *     (every answer was lost or uncounted, so nothing is known about it).
 *   - `pausedUntil`: after a 429 (C12) nothing is granted before it; the pause also CLOSES the
 *     open window, so the next window starts fresh after the pause (the server reset meanwhile).
 *   - `nextSlotAt`: even-spacing cursor, shared by every process on the key. With a burst
 *     allowance B (`ReserveParams.burst`) it is a token bucket of B sends refilled at one per
 *     `spacingMs` (L per window): in a window an answer has confirmed, a send may go out up to
 *     (B − 1)·spacingMs ahead of the cursor, so an idle key sends its next B calls at once, while a
 *     backlog (an empty bucket) is spread evenly (C8). The count still caps the window at `limit`.
 *   - `ord` / `firstOrd`: every grant gets an ordinal; the window is dated from the request with
 *     `firstOrd`. An answer with X-RateLimit-Remaining = limit − 1 to a LATER request proves that
 *     request opened a new server window (C3), and `observe` re-dates the window from it.
 *
 * All times are ms since the epoch from the CALLER's clock (`now` is always passed in, so tests
 * can share one VirtualClock; a Redis store must not use Redis TIME). Every method is atomic per
 * key: the Redis version runs each as one Lua script over one hash per key. Stale `windowId`s
 * (a response arriving after its window was closed) are ignored by every method that takes one.
 * Keys may expire once `max(windowEnd ?? windowStart + 2W + guard, pausedUntil, nextSlotAt)` has
 * passed: an expired key behaves exactly like a key never seen.
 */

/** Parameters for one reservation; computed by the pacer from the limit it knows. */
export interface ReserveParams {
  /** Sends allowed per window (C1: 1..10000; learned from /context or X-RateLimit-Limit). */
  readonly limit: number;
  /** The server window length in ms (C3: 60 000; tests and benches scale it down). */
  readonly windowMs: number;
  /** Minimum gap between two granted sends of this key (≈ (windowMs − guardMs) / limit). */
  readonly spacingMs: number;
  /** Safety margin for latency and clock granularity (see the model above). */
  readonly guardMs: number;
  /**
   * The margin the NEXT window keeps past this window's latest possible server end (confirmed
   * answer + windowMs). It covers only clock granularity and rate drift, not latency: the server
   * counted the first request before it answered. Absent: `guardMs`.
   */
  readonly endGuardMs?: number;
  /**
   * Sends that may go out at once ahead of the spacing in a confirmed window (C8: at most the
   * pacer's maxConcurrency). 1 or absent: strict even spacing.
   */
  readonly burst?: number;
  /** The caller's current time. */
  readonly now: number;
  /**
   * True while `limit` is only the pacer's assumption (`initialLimit`: no answer has taught it the
   * key's limit yet, A5/C10). The store then uses the limit another pacer of the key learned, when
   * it holds one, and hands it back in the snapshot (`limitLearned`) for the pacer to adopt.
   * Absent or false: `limit` was learned, and the store keeps it as the key's.
   */
  readonly limitAssumed?: boolean;
}

/** The store's view of one key after an operation; the pacer mirrors it for `snapshot()`. */
export interface WindowSnapshot {
  /** Id of the open window, or null when none is open (never used, closed by a pause, or over). */
  readonly windowId: string | null;
  /** Our first send in the open window (null when none is open). */
  readonly windowStart: number | null;
  /** Confirmed end of the open window (first response + W + guard); null while unknown/none open. */
  readonly windowEnd: number | null;
  /** Sends counted in the open window: our grants, raised by server snapshots (0 when none open). */
  readonly count: number;
  /** The limit in force for the open window (last `limit` passed to reserve; 0 when never set). */
  readonly limit: number;
  /** `limit` is one a pacer learned from the server (not an assumption): a new pacer adopts it. */
  readonly limitLearned?: boolean;
  /** Earliest time the next send may go out (even spacing); 0 when never set. */
  readonly nextSlotAt: number;
  /** End of the current 429 pause, or null when no pause is in force at the time of the call. */
  readonly pausedUntil: number | null;
}

/** Result of asking for a send slot. */
export type ReserveDecision =
  | {
      readonly granted: true;
      /** When to send (≥ now). The slot is held for the caller; give it back with refund(). */
      readonly sendAt: number;
      /** The window the send belongs to; pass it to confirmWindowStart/observe/pauseUntil/refund. */
      readonly windowId: string;
      /** This grant's ordinal on the key (pass it to observe); absent from stores that keep none. */
      readonly ord?: number;
      readonly state: WindowSnapshot;
    }
  | {
      readonly granted: false;
      /**
       * Earliest time worth asking again: the pause end, the window end, or — when the window is
       * full but its end is not yet confirmed — `now + max(1, min(spacingMs, 250))` (poll).
       */
      readonly retryAt: number;
      readonly state: WindowSnapshot;
    };

/** A server snapshot from a response that passed the limiter (C10). */
export interface ObserveParams {
  /** The window the request was sent in (from its reservation). */
  readonly windowId: string;
  /** X-RateLimit-Remaining. */
  readonly remaining: number;
  /** X-RateLimit-Limit (or the limit the pacer knows when the header is missing). */
  readonly limit: number;
  /** When the answer arrived. */
  readonly now: number;
  /** The request's grant ordinal (ReserveDecision.ord); without it no re-dating happens. */
  readonly ord?: number;
  /** The request's granted sendAt (the earliest its server window can have started). */
  readonly sentAt?: number;
  /** Requests of this key already in flight when this one was sent (they may land after it, C8). */
  readonly slack?: number;
  /**
   * Grants made after this request that were not sent yet when its answer arrived: the server
   * cannot have counted them, so they come on top of its used count (C10).
   */
  readonly unsent?: number;
}

export interface WindowStore {
  /**
   * THE one atomic decision per send. In this order:
   * 1. `now < pausedUntil` → refused, retryAt = pausedUntil (C12).
   * 2. `t = max(now, nextSlotAt)`.
   * 3. The open window is over when `windowEnd !== null && t >= windowEnd`, or when it is
   *    unconfirmed and `t >= windowStart + 2·windowMs + guardMs` or its count is 0 (every send
   *    refunded: nothing of ours was counted) → it is closed.
   * 4. No open window → open one: new windowId, windowStart = t, windowEnd = null, count = 1,
   *    limit = params.limit; nextSlotAt = t + spacingMs; granted with sendAt = t.
   * 5. Open window with `count < params.limit` and `t' < windowStart + windowMs − guardMs`, where
   *    t' = t, or — when the window is confirmed (windowEnd known) and burst B > 1 —
   *    t' = max(now, windowStart, nextSlotAt − (B − 1)·spacingMs) →
   *    count += 1, limit = params.limit, nextSlotAt = max(nextSlotAt, t') + spacingMs; granted with
   *    sendAt = t'. Every grant (steps 4 and 5) increments `ord`; step 4 sets firstOrd = ord.
   *    A send before `straddleUntil` (the old window's end, when a straddler opened this one) is a
   *    straddler too: granted only while `straddleRoom > 0` (then straddleRoom −= 1), otherwise at
   *    sendAt = straddleUntil.
   * 5b. Past the safe send instant of a CONFIRMED window with `count < params.limit` (and no earlier
   *    straddle pending): a straddler opens the next window at t' — straddleUntil = windowEnd,
   *    straddleRoom = limit − count − 1 — granted with windowId `straddlerWindowId(seq)`. The same
   *    for an unconfirmed window whose count is known to be the server's (trusted: opened by a
   *    straddler, at a confirmed end or after a pause), with straddleUntil = its unconfirmed deadline
   *    (windowStart + 2·windowMs + guardMs): its server window began at or after windowStart, so
   *    every send before the safe instant is in it.
   * 6. Otherwise refused: retryAt = windowEnd (confirmed) or a short poll (see ReserveDecision).
   */
  reserve(key: string, params: ReserveParams): Promise<ReserveDecision>;

  /**
   * A reserved slot was never sent (the caller aborted before sendAt): count −= 1 (not below 0)
   * if `windowId` is still the open window. Does not move nextSlotAt back.
   */
  refund(key: string, windowId: string): Promise<WindowSnapshot>;

  /**
   * A response to a request of window `windowId` arrived at `receivedAt` and the request was
   * counted by the server (or may have been). The server's window therefore started no later
   * than `receivedAt`: windowEnd = min(windowEnd ?? +∞, receivedAt + windowMs + endGuardMs) using the
   * windowMs/endGuardMs the window was opened with. Never moves windowEnd below
   * `windowStart + windowMs` (the server cannot have started before our first send).
   * No-op for a stale windowId.
   */
  confirmWindowStart(key: string, windowId: string, receivedAt: number): Promise<WindowSnapshot>;

  /**
   * X-RateLimit-Remaining snapshot (C10): used = limit − remaining; when used > count (sends we did
   * not make), count = used + (grants after `ord`, which may not have reached the server yet).
   * Raises, never lowers (a snapshot is not a reservation; other clients may share the key) —
   * except when it proves the server's window moved: `remaining === limit − 1` for a request with
   * `ord > firstOrd`, sent after the window's earliest answer arrived (`sentAt > windowEnd − windowMs
   * − endGuardMs`), was the first the server counted in a NEW window (C3), so the window is re-dated
   * from it: firstOrd = ord, windowStart = max(windowStart, sentAt), windowEnd = now + windowMs +
   * endGuardMs, count = (grants since ord, inclusive) + min(slack, ord − old firstOrd). The same
   * re-dating follows from a used count no higher than the highest one an answer reported before
   * this request was sent (the server's count only grows within a window, so it reset in between,
   * even when the new window's first answer was lost); then windowStart = max(windowStart, that
   * earlier request's sentAt) unless used ≤ 1, and count adds used − 1 (what the server counted
   * before this request).
   * An answer to a request with `ord < firstOrd` is usually about the server's previous window and
   * is ignored — unless used ≤ count + (firstOrd − ord) + 1, what the new window can hold if that
   * request (late, or another process's) was counted after the re-dating one: then it raises the
   * count as any snapshot does.
   * No-op for a stale windowId — except an answer from the window just before (`seq − 1`) to a
   * request that left late and may have been counted in the new one: used ≤ count + 1 + slack
   * raises the count to at least used + (grants of the open window) — also when used is not above
   * the count (Remaining = limit − 1: it opened the server's new window before our opener got there).
   */
  observe(key: string, params: ObserveParams): Promise<WindowSnapshot>;

  /**
   * After a 429 (C12): pausedUntil = max(pausedUntil, until) (never shortens a longer pause) and
   * nextSlotAt = max(nextSlotAt, pausedUntil). With `closesWindow` and `windowId` the open window
   * (or null), the window is closed too, so the next send after the pause opens a fresh window (the
   * server's window has reset by then; C6: the 429 itself was not counted). A stale windowId (a late
   * 429 from a window that is already gone) only extends the pause. Without `closesWindow` the pause
   * never touches the window: the pacer passes false when the 429 does not prove the server's window
   * over (C11, C12: `Retry-After: 0`, no usable header, a proxy's date shorter than a window).
   */
  pauseUntil(key: string, until: number, windowId: string | null, closesWindow: boolean): Promise<WindowSnapshot>;

  /** The current state of `key` (a never-seen key gives an empty snapshot). Read-only. */
  peek(key: string, now: number): Promise<WindowSnapshot>;

  /** Releases connections/timers. The memory store just drops its state. */
  close(): Promise<void>;
}
