/**
 * Job progress. On a TTY: one live line (log-update) with done/total, rate, an ETA computed from the
 * key's limit and window (not from a naive average), 429s, retries, unknown outcomes and the current
 * pause with its reason. Not on a TTY: no control characters at all — one JSON event per state
 * change, one per line.
 */
import type { Writable } from "node:stream";
import { createLogUpdate } from "log-update";
import type { ClientEvent } from "../src/index";
import { formatDuration } from "./args";
import { EtaModel, type PaceView } from "./eta";
import type { ResultKind } from "./exit-codes";
import { jsonLine } from "./output";

export type { PaceView } from "./eta";

export interface Counters {
  total: number | undefined;
  started: number;
  finished: number;
  inFlight: number;
  byKind: Partial<Record<ResultKind, number>>;
  count429: number;
  retries: number;
  /**
   * Sends that ended without a known outcome (the client's `unknown-outcome` events), whether the
   * client then settled them or not: a measure of trouble on the wire, not of rows. Rows whose
   * outcome stayed unknown are `byKind.unknown`.
   */
  unknownOutcomeEvents: number;
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
    unknownOutcomeEvents: 0,
    requests: 0,
  };
  pause: Pause | undefined;
  status: string | undefined;
  readonly startedAt: number;

  constructor(
    readonly job: string,
    readonly pace: PaceView,
    readonly now: () => number = Date.now,
  ) {
    this.startedAt = now();
    this.eta = new EtaModel(now);
  }

  /** Per Idempotency-Key: whether its latest send got no answer (already counted as unknown). */
  private readonly lastSendUnanswered = new Map<string, boolean>();

  /** Folds a client event into the counters; returns the JSON event to emit, if any. */
  clientEvent(event: ClientEvent): Record<string, unknown> | undefined {
    switch (event.type) {
      case "attempt":
        this.counters.requests += 1;
        this.eta.attempt(event.delayMs, event.status);
        // A send (a write: it has an Idempotency-Key) that got no answer — a timeout, a reset — ended
        // without a known outcome, even when the client then settles it by itself (a retry with the
        // same key, a lookup): counted once here, and not again by its command's unknown-outcome.
        if (event.idempotencyKey !== undefined && event.lookup === undefined) {
          const unanswered = event.status === undefined;
          if (unanswered) {
            this.counters.unknownOutcomeEvents += 1;
            this.lastSendUnanswered.set(event.idempotencyKey, true);
          } else this.lastSendUnanswered.delete(event.idempotencyKey);
        }
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
        if (event.idempotencyKey === undefined || !this.lastSendUnanswered.get(event.idempotencyKey))
          this.counters.unknownOutcomeEvents += 1;
        if (event.idempotencyKey !== undefined) this.lastSendUnanswered.delete(event.idempotencyKey);
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
          return { type: "pause", reason, status: 429, until: new Date(e.untilMs).toISOString() };
        }
        if (e.type === "window-wait" && e.waitMs >= 1000) {
          // A 429's pause stays what it is: the queued sends waiting it out are not "window full".
          if (this.pause?.is429 && this.pause.untilMs > this.now()) return undefined;
          const reason = "window full: waiting for the next rate-limit window";
          this.pause = { reason, untilMs: this.now() + e.waitMs };
          return { type: "pause", reason, until: new Date(this.pause.untilMs).toISOString() };
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
  /** What each row costs, measured, and the ETA from it (eta.ts). */
  readonly eta: EtaModel;

  /** Requests the job's rows have sent so far. */
  jobRequests(): number {
    return this.counters.requests - this.requestsBeforeJob;
  }

  /** The job's first row is about to start: later requests are the rows' cost. */
  jobStarted(): void {
    this.requestsBeforeJob = this.counters.requests;
  }

  /** Runs one row's work; every request the client sends inside it is counted on that row. */
  runRow<T>(work: () => Promise<T>): Promise<T> {
    return this.eta.run(work);
  }

  /** Requests one row costs, measured on the finished rows (the prior until one has finished). */
  measuredRequestsPerRow(): number {
    return this.eta.requestsPerRow(this.counters.finished);
  }

  /** Requests still to send; rows in flight are partly done. */
  requestsLeft(): number | undefined {
    const c = this.counters;
    return c.total === undefined ? undefined : this.eta.requestsLeft(c.total, c.finished);
  }

  /** ETA (eta.ts): 0 only once every row is finished; undefined while the total or the key's limit is unknown. */
  etaMs(): number | undefined {
    const c = this.counters;
    return c.total === undefined ? undefined : this.eta.etaMs(c.total, c.finished, this.pace());
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
export function jsonSink(stream: Writable, now: () => number = Date.now): ProgressSink {
  return {
    event(event) {
      stream.write(jsonLine({ at: new Date(now()).toISOString(), ...event }));
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
