/**
 * What an answer's X-RateLimit-Remaining proves about the server's window (C3, C10): the pure
 * observe() transition of the window record, shared by the memory store and mirrored by the Redis
 * store's Lua port (stores/redis-window-lua.ts).
 */
import type { WindowRecord } from "./memory-window-store";
import type { ObserveParams } from "./window-store";

export function isCurrent(r: WindowRecord, windowId: string): boolean {
  return r.open && String(r.seq) === windowId;
}

/** Forget the answers of the window before (a window opened or was re-dated). */
export function resetPeaks(r: WindowRecord): void {
  r.peakUsed = -1;
  r.peakAt = 0;
  r.peakSentAt = 0;
  r.priorUsed = -1;
  r.priorAt = 0;
  r.priorSentAt = 0;
}

/**
 * Remaining = L − 1 on a later request than the window's first, sent after the window's earliest
 * answer arrived: the server counted it first in a window that began after the one our first request
 * was counted in (a request sent before that answer may simply have overtaken our first one).
 */
function provesNewWindow(r: WindowRecord, ord: number, sentAt: number, remaining: number, limit: number): boolean {
  if (ord <= r.firstOrd || limit < 2 || remaining !== limit - 1 || r.windowEnd === null) return false;
  return sentAt > r.windowEnd - r.windowMs - r.endGuardMs;
}

/**
 * The answer received before a request sent at `sentAt` with the highest used count, when one is
 * known (the peak, or the one before it when the peak arrived after that send).
 */
function answerBefore(r: WindowRecord, sentAt: number): { used: number; sentAt: number } | null {
  if (r.peakUsed >= 0 && r.peakAt < sentAt) return { used: r.peakUsed, sentAt: r.peakSentAt };
  if (r.priorUsed >= 0 && r.priorAt < sentAt) return { used: r.priorUsed, sentAt: r.priorSentAt };
  return null;
}

/** WindowStore.observe as a pure transition. */
export function applyObserve(r: WindowRecord, p: ObserveParams): void {
  if (!Number.isFinite(p.remaining) || !Number.isFinite(p.limit)) return;
  const ord = p.ord !== undefined && Number.isFinite(p.ord) ? p.ord : null;
  const used = Math.max(0, p.limit - p.remaining);
  if (!isCurrent(r, p.windowId)) {
    // A send of the window before that left late (a stalled event loop, a slow connection) may have
    // been counted in the server's new window: a used count no higher than what ours holds + 1 (+ the
    // sends in flight with it) says so. The new window then holds it, what the server counted before
    // it, and every grant of ours since, which may have reached the server after it — also when used
    // is not above our count (C3: Remaining = L − 1 means it OPENED the server's new window, ahead of
    // the send that opened ours).
    const previous = r.open && p.windowId === String(r.seq - 1) && ord !== null && ord < r.firstOrd;
    if (previous && used <= r.count + 1 + Math.max(0, p.slack ?? 0)) {
      r.count = Math.max(r.count, used + (r.ord - r.firstOrd + 1));
    }
    return;
  }
  if (ord !== null && ord < r.firstOrd) {
    // Granted before the request the window is dated from. Usually an answer about the server's
    // previous window (ignored), but a request that left late, or another process's, may have been
    // counted after it in the new one: the new window holds at most what it held at the re-dating
    // plus our grants since this one, so a used count within that bound still raises the count.
    if (used <= r.count + (r.firstOrd - ord) + 1 && used > r.count) r.count = used + (r.ord - ord);
    return;
  }
  const sentAt = p.sentAt !== undefined && Number.isFinite(p.sentAt) ? p.sentAt : null;
  if (ord !== null && ord > r.firstOrd && sentAt !== null) {
    // C3, C10: the server's count only grows within its window. Remaining back at L − 1, or a used
    // count no higher than an answer received before this request was sent, means the server
    // counted it in a NEW window, which started after that earlier request and no later than this
    // answer (also when the new window's first answer was lost to a reset). Re-date the window from
    // it: it holds what the server counted up to this request, every later grant and the ones in
    // flight when it was sent (they may land after it), and it ends one window after this answer.
    const before = answerBefore(r, sentAt);
    const first = provesNewWindow(r, ord, sentAt, p.remaining, p.limit);
    if (first || (before !== null && used <= before.used)) {
      const later = r.ord - ord + 1;
      const slack = Math.max(0, Math.min(p.slack ?? 0, ord - r.firstOrd));
      r.firstOrd = ord;
      r.windowStart = Math.max(r.windowStart, used <= 1 || before === null ? sentAt : before.sentAt);
      r.windowEnd = Math.max(p.now, r.windowStart) + r.windowMs + r.endGuardMs;
      r.count = Math.max(0, used - 1) + later + slack;
      resetPeaks(r);
      r.peakUsed = used;
      r.peakAt = p.now;
      r.peakSentAt = sentAt;
      return;
    }
  }
  // C10: a snapshot raises the known used count, never lowers it. More used than we ever granted
  // means sends we did not make (another process, a predecessor); our grants after this request
  // may not have reached the server yet, so they come on top (a later one that overtook it is then
  // counted twice, which only errs on the safe side). Grants not even sent when the answer came
  // cannot be in it: used + those above our count means foreign sends as well, even when used alone
  // is not above it (a predecessor's send, hidden by a grant of ours still waiting for its slot).
  if (used > r.count) r.count = used + (ord !== null ? Math.max(0, r.ord - ord) : 0);
  else if (ord !== null && p.unsent !== undefined && Number.isFinite(p.unsent)) {
    const unsent = Math.max(0, Math.min(Math.floor(p.unsent), r.ord - ord));
    if (used + unsent > r.count) r.count = used + unsent;
  }
  if (used > r.peakUsed) {
    r.priorUsed = r.peakUsed;
    r.priorAt = r.peakAt;
    r.priorSentAt = r.peakSentAt;
    r.peakUsed = used;
    r.peakAt = p.now;
    r.peakSentAt = sentAt ?? r.windowStart;
  }
}
