/**
 * The job's ETA, measured rather than assumed. Every row's requests are counted on that row (the
 * client's attempt events arrive inside the row's async context), with the time they waited for the
 * key's pacer. Two lower bounds on the time left, the ETA being the later of them:
 *  - the window: the requests left (rows not started at the measured cost per row, rows in flight at
 *    what they still need) go out at `limit` per fixed window (C3), anchored on the open window's
 *    end as the server's answers dated it, `burst` at once when a window opens and one spacing apart
 *    after (C8), nothing before a pause ends (C12);
 *  - the lanes: `lanes` rows at once, each taking the finished rows' mean time outside the pacer (an
 *    operation that takes seconds to complete is not a matter of the window); a row in flight has
 *    what is left of that mean.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { PacingSnapshot } from "../src/index";

/** What the pacer says about the key right now, the window it paces for, and its burst allowance. */
export type PaceView = () => (PacingSnapshot & { windowMs: number; burst?: number }) | undefined;

/** One row at work. */
interface RowTrack {
  startedAt: number;
  requests: number;
  /** Time its attempts waited for the key's pacer (and backoff): the window's share of its time. */
  waitedMs: number;
}

export class EtaModel {
  /** Requests a row is expected to cost before one is measured (1 for a send, more when waiting). */
  priorRequestsPerRow = 1;
  /** Rows worked on at once (the job's --concurrency). */
  lanes = 1;
  private readonly scope = new AsyncLocalStorage<RowTrack>();
  private readonly open = new Set<RowTrack>();
  /** Sums over the finished rows: requests, and time outside the pacer. */
  private requests = 0;
  private serviceMs = 0;

  constructor(private readonly now: () => number) {}

  /** Runs one row's work; every attempt the client reports inside it is counted on that row. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const row: RowTrack = { startedAt: this.now(), requests: 0, waitedMs: 0 };
    this.open.add(row);
    try {
      return await this.scope.run(row, work);
    } finally {
      this.open.delete(row);
      this.requests += row.requests;
      this.serviceMs += Math.max(0, this.now() - row.startedAt - row.waitedMs);
    }
  }

  /** A client attempt ended (its `delayMs`: backoff and pacer wait before it went out). */
  attempt(delayMs: number): void {
    const row = this.scope.getStore();
    if (!row) return; // the job's shared requests (context, a name lookup) belong to no row
    row.requests += 1;
    row.waitedMs += Math.max(0, delayMs);
  }

  /**
   * Requests one row costs, measured on the `finished` rows (a bad input line is a row that cost
   * nothing, as it will be among the rows left); the prior weighs as one row.
   */
  requestsPerRow(finished: number): number {
    return (this.requests + this.priorRequestsPerRow) / (finished + 1);
  }

  /** Requests still to send: rows not started at the measured cost; a row in flight still needs the rest, at least one. */
  requestsLeft(total: number, finished: number): number {
    const perRow = this.requestsPerRow(finished);
    let left = this.notStarted(total, finished) * perRow;
    for (const row of this.open) left += Math.max(1, perRow - row.requests);
    return left;
  }

  /** Time left, ms: 0 once every row is finished; undefined while the key's limit is not known. */
  etaMs(total: number, finished: number, pace: ReturnType<PaceView>): number | undefined {
    if (finished >= total) return 0;
    if (!pace) return undefined;
    const now = this.now();
    const left = Math.max(1, Math.ceil(this.requestsLeft(total, finished)));
    const eta = sendTimeMs(left, pace, now, this.lanes);
    return Math.max(eta, this.lanesMs(total, finished) ?? 0);
  }

  private notStarted(total: number, finished: number): number {
    return Math.max(0, total - finished - this.open.size);
  }

  /** `lanes` rows at a time, each the finished rows' mean time outside the pacer. */
  private lanesMs(total: number, finished: number): number | undefined {
    if (finished === 0) return undefined;
    const perRowMs = this.serviceMs / finished;
    const now = this.now();
    const lanes = Math.max(1, this.lanes, this.open.size);
    const free = [...this.open].map((r) => Math.max(0, perRowMs - (now - r.startedAt - r.waitedMs)));
    while (free.length < lanes) free.push(0);
    free.sort((a, b) => a - b);
    const n = this.notStarted(total, finished);
    // Equal rows handed to the lane that frees first: each lane takes q of them, the first r one more.
    const q = Math.floor(n / lanes);
    const r = n % lanes;
    const last = free[lanes - 1] + q * perRowMs;
    return r > 0 ? Math.max(last, free[r - 1] + (q + 1) * perRowMs) : last;
  }
}

/**
 * When the `n`-th request from now can go out on this key: C12 nothing before a pause ends; C3 what
 * is left of the open window (anchored on its end as the answers dated it), then whole windows back
 * to back; C8 in each window the pacer opens, the backlog's first `burst` sends go out at once and
 * the rest one spacing apart. A row waits for one request at a time, so no more than `lanes` queue.
 */
function sendTimeMs(
  n: number,
  pace: NonNullable<ReturnType<PaceView>>,
  now: number,
  lanes = Number.POSITIVE_INFINITY,
): number {
  const spacing = pace.windowMs / pace.limit;
  const burst = Math.max(1, Math.min(pace.burst ?? 1, pace.limit, lanes));
  const inNewWindow = (sends: number) => Math.max(0, sends - burst) * spacing;
  const pause = pace.pausedUntil !== null && pace.pausedUntil > now ? pace.pausedUntil - now : 0;
  // C3: a window the pacer opened but no answer has dated yet began moments ago: it ends about
  // one window from now, and its remaining sends are all that go out before then.
  const windowEnd = pace.windowEndsAt ?? (pace.remaining !== null ? now + pace.windowMs : null);
  if (windowEnd === null || windowEnd <= now + pause) {
    // The next send opens a window (after the pause, if any).
    return pause + Math.floor((n - 1) / pace.limit) * pace.windowMs + inNewWindow(((n - 1) % pace.limit) + 1);
  }
  const slotsNow = Math.max(0, pace.remaining ?? pace.limit);
  if (n <= slotsNow) return pause + n * spacing;
  const beyond = n - slotsNow;
  return (
    windowEnd -
    now +
    Math.floor((beyond - 1) / pace.limit) * pace.windowMs +
    inNewWindow(((beyond - 1) % pace.limit) + 1)
  );
}
