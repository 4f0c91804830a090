/**
 * The job's ETA, measured rather than assumed. Every row's requests are counted on that row (the
 * client's attempt events and the wait's polls arrive inside the row's async context), with the time
 * they waited for the key's pacer. Lower bounds on the time left, the ETA being the latest of them:
 *  - the window: the requests left (rows not started at the measured cost per row, rows in flight at
 *    what they still need) go out at `limit` per fixed window (C3), anchored on the open window's
 *    end as the server's answers dated it, `burst` at once when a window opens and one spacing apart
 *    after (C8), nothing before a pause ends (C12);
 *  - each row in flight (`floors`): a row waiting on its operation ends no sooner than its real next
 *    poll (`WaitOptions.onPoll`: `next_check_at`, Retry-After or the poll interval) or its turn at the
 *    pacer, then one poll interval after another until its operation is expected to be complete —
 *    the finished operations' mean duration on the server, from this one's acceptance (F1). The
 *    server's duration does not depend on how busy the pacer is, which a row's observed time does;
 *  - the last row not started: its send after the requests that go before it, then that polling;
 *  - the lanes: `lanes` rows at once, each taking the finished rows' mean time outside the pacer (an
 *    operation that takes seconds to complete is not a matter of the window) and no less than that
 *    polling; a row in flight frees its lane at what is left of that mean, and never before its floor.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { PacingSnapshot, WaitPoll } from "../src/index";

/** What the pacer says about the key right now, the window it paces for, and its burst allowance. */
export type PaceView = () => (PacingSnapshot & { windowMs: number; burst?: number }) | undefined;

/** One row at work. */
interface RowTrack {
  startedAt: number;
  requests: number;
  /** Time its attempts waited for the key's pacer (and backoff): the window's share of its time. */
  waitedMs: number;
  /** When its operation was accepted (the 202 came back). */
  acceptedAt?: number;
  /** When the wait on its operation polls next, and the pause it took before that poll. */
  nextPollAt?: number;
  pollEveryMs?: number;
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
  /** Sums over the finished operations: their count and durations on the server (created → completed). */
  private operations = 0;
  private operationMs = 0;
  /** The pause the wait took after its latest poll (any row's): how often a new row's operation is polled. */
  private pollEveryMs: number | undefined;

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

  /** A client attempt ended (its `delayMs`: backoff and pacer wait before it went out; `status`: its answer's). */
  attempt(delayMs: number, status?: number): void {
    const row = this.scope.getStore();
    if (!row) return; // the job's shared requests (context, a name lookup) belong to no row
    row.requests += 1;
    row.waitedMs += Math.max(0, delayMs);
    if (status === 202) row.acceptedAt ??= this.now();
  }

  /** The wait on the row's operation polled (`WaitOptions.onPoll`, called inside the row). */
  polled(poll: WaitPoll): void {
    const row = this.scope.getStore();
    if (!row) return;
    const now = this.now();
    row.nextPollAt = poll.nextPollAt ?? undefined;
    if (poll.nextPollAt !== null) this.pollEveryMs = row.pollEveryMs = Math.max(1, poll.nextPollAt - now);
    const op = poll.operation;
    if (poll.nextPollAt !== null || !op?.completed_at || !op.created_at) return;
    const ms = Date.parse(op.completed_at) - Date.parse(op.created_at);
    if (!Number.isFinite(ms) || ms < 0) return;
    this.operations += 1;
    this.operationMs += ms;
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
    const { floors, queued } = this.floors(pace, now);
    const notStarted = this.notStarted(total, finished);
    const wait = this.operations > 0 ? this.pollEveryMs : undefined;
    const eta = Math.max(
      sendTimeMs(left, pace, now, this.lanes),
      ...floors.values(),
      notStarted > 0 && wait !== undefined ? this.lastRowMs(left, queued + notStarted, finished, pace, now, wait) : 0,
    );
    const lanesMs = this.lanesMs(total, finished, floors, wait) ?? 0;
    return Math.max(eta, lanesMs);
  }

  private notStarted(total: number, finished: number): number {
    return Math.max(0, total - finished - this.open.size);
  }

  /**
   * The last row not started yet, when rows wait on their operations: its send goes out after the
   * sends queued before it and after every request left but the polls that follow it — its own, and
   * the rows in flight beside it, which are on average half-way through theirs — then its operation
   * is polled until it is expected to be complete (C3, F1).
   */
  private lastRowMs(
    left: number,
    sends: number,
    finished: number,
    pace: NonNullable<ReturnType<PaceView>>,
    now: number,
    wait: number,
  ): number {
    const polls = Math.max(0, this.requestsPerRow(finished) - 1);
    const beside = Math.max(0, Math.min(this.lanes, sends + this.open.size) - 1);
    const before = Math.max(sends, Math.ceil(left - polls - (beside * polls) / 2));
    return sendTimeMs(before, pace, now, this.lanes, false) + firstPollAfter(0, this.operationMean(), wait);
  }

  private operationMean(): number {
    return this.operations > 0 ? this.operationMs / this.operations : 0;
  }

  /**
   * The earliest each row in flight can end, ms from now (F1: an operation's result is read only by
   * polling it). A row's next send is its real next poll (`next_check_at`, Retry-After, the poll
   * interval) or, when that is due, its turn among the sends queued at the pacer (C3, C8, C12). A row
   * waiting on its operation then polls every interval until the operation is expected to be complete
   * (the finished ones' mean duration on the server, counted from this one's acceptance); a row whose
   * send was not accepted yet has the whole of that still to come.
   */
  private floors(pace: NonNullable<ReturnType<PaceView>>, now: number) {
    const dueAt = (r: RowTrack) => r.nextPollAt ?? r.acceptedAt ?? r.startedAt;
    const queue = [...this.open].filter((r) => dueAt(r) <= now).sort((a, b) => dueAt(a) - dueAt(b));
    const turn = new Map(queue.map((r, i) => [r, now + sendTimeMs(i + 1, pace, now, this.lanes)]));
    const floors = new Map<RowTrack, number>();
    const operationMs = this.operations > 0 ? this.operationMean() : undefined;
    for (const row of this.open) {
      const next = turn.get(row) ?? dueAt(row);
      const every = row.pollEveryMs ?? this.pollEveryMs;
      let end = row.nextPollAt === undefined && row.acceptedAt === undefined ? now : next;
      if (operationMs !== undefined && every !== undefined) {
        end = firstPollAfter(next, (row.acceptedAt ?? next) + operationMs, every);
      }
      floors.set(row, Math.max(0, end - now));
    }
    return { floors, queued: queue.length };
  }

  /**
   * `lanes` rows at a time, each the finished rows' mean time outside the pacer — and, when rows wait
   * on their operations, no less than polling one until it is expected to be complete (time spent
   * queued at the pacer overlaps the operation's own); a row in flight frees its lane at its floor.
   */
  private lanesMs(
    total: number,
    finished: number,
    floors: Map<RowTrack, number>,
    wait: number | undefined,
  ): number | undefined {
    if (finished === 0) return undefined;
    const serviceMs = this.serviceMs / finished;
    const polling = wait === undefined ? 0 : firstPollAfter(0, this.operationMean(), wait);
    const perRowMs = Math.max(serviceMs, polling);
    const now = this.now();
    const lanes = Math.max(1, this.lanes, this.open.size);
    const free = [...this.open].map((r) =>
      Math.max(0, serviceMs - (now - r.startedAt - r.waitedMs), floors.get(r) ?? 0),
    );
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

/** The first of the polls at `from`, `from + every`, … that comes at or after `due`. */
function firstPollAfter(from: number, due: number, every: number): number {
  return due > from ? from + Math.ceil((due - from) / every) * every : from;
}

/**
 * When the `n`-th request from now can go out on this key: C12 nothing before a pause ends; C3 what
 * is left of the open window (anchored on its end as the answers dated it), then whole windows back
 * to back; C8 in each window the pacer opens, the backlog's first `burst` sends go out at once and
 * the rest one spacing apart. A row waits for one request at a time, so no more than `lanes` queue.
 * `spaced: false` for sends that are not all queued now: within a window they go out as the rows
 * make them, and only the windows they fill (and a pause) hold them back.
 */
function sendTimeMs(
  n: number,
  pace: NonNullable<ReturnType<PaceView>>,
  now: number,
  lanes = Number.POSITIVE_INFINITY,
  spaced = true,
): number {
  const spacing = spaced ? pace.windowMs / pace.limit : 0;
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
