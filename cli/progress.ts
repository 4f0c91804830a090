/**
 * Job progress. On a TTY: one live line (log-update) with done/total, rate, an ETA computed from the
 * key's limit and window (not from a naive average), 429s, retries, unknown outcomes and the current
 * pause with its reason. Not on a TTY: no control characters at all — one JSON event per state
 * change, one per line.
 */
import type { Writable } from "node:stream";
import { createLogUpdate } from "log-update";
import type { ClientEvent, PacingSnapshot } from "../src/index";
import { formatDuration } from "./args";
import type { ResultKind } from "./exit-codes";
import { jsonLine } from "./output";

/** What the pacer says about the key right now, plus the window length the client paces for. */

/** How many rows the prior requests-per-row weighs against the measured ones. */
const PRIOR_ROWS = 5;
export type PaceView = () => (PacingSnapshot & { windowMs: number }) | undefined;

export interface Counters {
  total: number | undefined;
  started: number;
  finished: number;
  inFlight: number;
  byKind: Partial<Record<ResultKind, number>>;
  count429: number;
  retries: number;
  unknownOutcomes: number;
  /** HTTP attempts sent during the job (every request costs one slot of the window). */
  requests: number;
}

export interface Pause {
  reason: string;
  untilMs: number;
  /** The server answered 429 (not merely a full window). */
  is429?: boolean;
}

export interface ProgressSink {
  /** A JSON-able event (non-TTY: printed as one line; TTY: folded into the live line). */
  event(event: Record<string, unknown>): void;
  /** Re-render the live line now (TTY only). */
  render(): void;
  /** Print a line above the live line (TTY) — results and warnings go through here. */
  above(stream: Writable, text: string): void;
  stop(): void;
}

export class Progress {
  readonly counters: Counters = {
    total: undefined,
    started: 0,
    finished: 0,
    inFlight: 0,
    byKind: {},
    count429: 0,
    retries: 0,
    unknownOutcomes: 0,
    requests: 0,
  };
  pause: Pause | undefined;
  status: string | undefined;
  readonly startedAt: number;
  /** Requests a row costs before it is finished (1 for a send; more when it waits for its operation). */
  requestsPerRow = 1;

  constructor(
    readonly job: string,
    readonly pace: PaceView,
    readonly now: () => number = Date.now,
  ) {
    this.startedAt = now();
  }

  /** Folds a client event into the counters; returns the JSON event to emit, if any. */
  clientEvent(event: ClientEvent): Record<string, unknown> | undefined {
    switch (event.type) {
      case "attempt":
        this.counters.requests += 1;
        return undefined;
      case "retry":
        this.counters.retries += 1;
        return {
          type: "retry",
          operation: event.operationId,
          attempt: event.attempt,
          delayMs: event.delayMs,
          reason: event.reason,
        };
      case "pause":
        this.counters.count429 += 1;
        return {
          type: "rate-limited",
          operation: event.operationId,
          retryAfter: event.retryAfter,
          requestId: event.requestId,
        };
      case "unknown-outcome":
        this.counters.unknownOutcomes += 1;
        return {
          type: "unknown-outcome",
          operation: event.operationId,
          reason: event.reason,
          requestIds: event.requestIds,
        };
      case "pacing": {
        const e = event.event;
        if (e.type === "pause") {
          const reason =
            e.reason === "backoff" ? "429 without Retry-After: backing off" : "429: whole key paused for Retry-After";
          this.pause = { reason, untilMs: e.untilMs, is429: true };
          return { type: "pause", reason, status: 429, untilMs: new Date(e.untilMs).toISOString() };
        }
        if (e.type === "window-wait" && e.waitMs >= 1000) {
          // A 429's pause stays what it is: the queued sends waiting it out are not "window full".
          if (this.pause?.is429 && this.pause.untilMs > this.now()) return undefined;
          const reason = "window full: waiting for the next rate-limit window";
          this.pause = { reason, untilMs: this.now() + e.waitMs };
          return { type: "pause", reason, untilMs: new Date(this.pause.untilMs).toISOString() };
        }
        if (e.type === "limit-learned") return { type: "limit-learned", limit: e.limit };
        return undefined;
      }
      case "recovery":
        return { ...(event.event as unknown as Record<string, unknown>), type: "recovery", step: event.event.type };
      default:
        return undefined;
    }
  }

  /** Requests sent before the job's first row (context, recovery): not a cost of any row. */
  private requestsBeforeJob = 0;

  /** Requests the job's rows have sent so far. */
  jobRequests(): number {
    return this.counters.requests - this.requestsBeforeJob;
  }

  /** The job's first row is about to start: later requests are the rows' cost. */
  jobStarted(): void {
    this.requestsBeforeJob = this.counters.requests;
  }

  /**
   * Requests one row costs, measured: the job's requests so far over the rows they paid for, where a
   * row in flight counts as half done (its send went out, its polls are still coming). Until a row
   * has cost anything, the prior `requestsPerRow` (1 for a send, more when it waits for its operation).
   */
  measuredRequestsPerRow(): number {
    const c = this.counters;
    const spent = c.requests - this.requestsBeforeJob;
    const paidFor = c.finished + 0.5 * c.inFlight;
    if (spent <= 0 || paidFor < 1) return this.requestsPerRow;
    // The prior weighs as PRIOR_ROWS rows: a job's first rows also paid for its shared requests (a
    // FILE job's lookup of 100 names), which would otherwise read as every row's cost.
    return (spent + PRIOR_ROWS * this.requestsPerRow) / (paidFor + PRIOR_ROWS);
  }

  /** Requests still to send: rows not started at the measured cost, rows in flight at half of it. */
  requestsLeft(): number | undefined {
    const c = this.counters;
    if (c.total === undefined) return undefined;
    const notStarted = Math.max(0, c.total - c.finished - c.inFlight);
    return (notStarted + 0.5 * c.inFlight) * this.measuredRequestsPerRow();
  }

  /**
   * ETA from the window model: the requests still to send fill what is left of the open window,
   * then whole windows of `limit` each (C3: fixed windows), after any pause in force. 0 only once
   * every row is finished; undefined while the total or the key's limit is not known yet.
   */
  etaMs(): number | undefined {
    const c = this.counters;
    if (c.total === undefined) return undefined;
    if (c.finished >= c.total) return 0;
    const pace = this.pace();
    if (!pace) return undefined;
    const now = this.now();
    const requestsLeft = Math.max(1, Math.ceil(this.requestsLeft() ?? 0));
    const spacing = pace.windowMs / pace.limit;
    let eta = pace.pausedUntil !== null && pace.pausedUntil > now ? pace.pausedUntil - now : 0;
    // C3: a window the pacer opened but no answer has dated yet began moments ago: it ends about
    // one window from now, and its remaining sends are all that go out before then.
    const windowEnd = pace.windowEndsAt ?? (pace.remaining !== null ? now + pace.windowMs : null);
    const windowOpen = windowEnd !== null && windowEnd > now + eta;
    const slotsNow = windowOpen ? Math.max(0, pace.remaining ?? pace.limit) : pace.limit;
    if (requestsLeft <= slotsNow) return eta + requestsLeft * spacing;
    const beyond = requestsLeft - slotsNow;
    eta += windowOpen ? windowEnd - now - eta : 0;
    eta += Math.floor((beyond - 1) / pace.limit) * pace.windowMs + (((beyond - 1) % pace.limit) + 1) * spacing;
    return eta;
  }

  /**
   * The live line, at most `width` columns. The state and any pause (reason and countdown) come
   * first; the least useful fields are dropped first when the terminal is narrow: in flight, rate,
   * retries, unknown, 429s, then the ETA. A 429 pause is always shown as a 429.
   */
  line(width = Infinity): string {
    const c = this.counters;
    const now = this.now();
    const elapsed = Math.max(1, now - this.startedAt);
    const rate = (c.finished / elapsed) * 1000;
    const total = c.total === undefined ? "?" : String(c.total);
    const pct = c.total ? ` ${Math.floor((c.finished / c.total) * 100)}%` : "";
    const eta = this.etaMs();
    const head = `${this.job} ${c.finished}/${total}${pct}`;
    const paused = this.pause && this.pause.untilMs > now ? this.pause : undefined;
    // Most important first; each entry: [text, drop order (higher goes first)].
    const parts: [string, number][] = [[head, 0]];
    if (paused) {
      parts.push([`paused ${formatDuration(paused.untilMs - now)}: ${paused.reason}`, 0]);
    }
    if (this.status) parts.push([this.status, 0]);
    parts.push([`ETA ${eta === undefined ? "?" : eta === 0 ? "done" : formatDuration(eta)}`, 1]);
    parts.push([`429s ${c.count429}`, 2]);
    // The same count the summary gives: rows whose outcome is unknown (not transient client events).
    parts.push([`unknown ${c.byKind.unknown ?? 0}`, 3]);
    parts.push([`retries ${c.retries}`, 4]);
    parts.push([`${rate.toFixed(1)}/s`, 5]);
    if (c.inFlight > 0) parts.push([`in flight ${c.inFlight}`, 6]);
    const join = (ps: [string, number][]) => ps.map(([t]) => t).join(" · ");
    let kept = parts;
    for (let drop = 6; drop >= 1 && join(kept).length > width; drop--) kept = kept.filter(([, d]) => d !== drop);
    let out = join(kept);
    if (out.length > width) {
      // Only the essentials are left: shorten the pause reason and status, keep the countdown.
      const essentials = kept.map(([t]) => t);
      if (paused)
        essentials[1] = `paused ${formatDuration(paused.untilMs - now)}: ${paused.is429 ? "429" : "window full"}`;
      out = essentials.join(" · ");
      if (out.length > width) out = out.slice(0, Math.max(1, width - 1)) + "…";
    }
    return out;
  }
}

/** No control characters ever: each event is one JSON line. */
export function jsonSink(stream: Writable): ProgressSink {
  return {
    event(event) {
      stream.write(jsonLine({ at: new Date().toISOString(), ...event }));
    },
    render() {
      // nothing to redraw: every event is already a line
    },
    above(target, text) {
      target.write(text.endsWith("\n") ? text : text + "\n");
    },
    stop() {
      // nothing to restore: no live line was drawn
    },
  };
}

/** A terminal size, or the fallback when the terminal reports none (0 or undefined). */
function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && value > 0 ? value : fallback;
}

/** The live line on a terminal, redrawn at most every 100 ms. */
export function ttySink(stream: Writable, progress: Progress): ProgressSink {
  // A pseudo-terminal may report 0 columns/rows (e.g. under `script`); log-update would then draw nothing.
  const sized = stream as Writable & { columns?: number; rows?: number };
  const target = {
    write: (chunk: string) => stream.write(chunk),
    get columns() {
      return positive(sized.columns, 120);
    },
    get rows() {
      return positive(sized.rows, 24);
    },
    isTTY: true,
  } as unknown as NodeJS.WriteStream;
  const log = createLogUpdate(target, { showCursor: true });
  let last = 0;
  let stopped = false;
  const draw = () => {
    if (stopped) return;
    last = Date.now();
    log(progress.line(Math.max(20, positive(sized.columns, 120) - 1)));
  };
  const timer = setInterval(draw, 250);
  timer.unref();
  return {
    event() {
      if (Date.now() - last >= 100) draw();
    },
    render: draw,
    above(target, text) {
      if (stopped) {
        target.write(text.endsWith("\n") ? text : text + "\n");
        return;
      }
      log.clear();
      target.write(text.endsWith("\n") ? text : text + "\n");
      draw();
    },
    stop() {
      if (stopped) return;
      draw();
      log.done();
      stopped = true;
      clearInterval(timer);
    },
  };
}
