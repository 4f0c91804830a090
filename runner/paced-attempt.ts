/**
 * One attempt through the key's pacer (G2, C10, C12, I1): acquire a slot, set this attempt's own
 * X-Request-ID, send (transport.ts), and release the slot exactly once with what the response said —
 * status, X-RateLimit-* and Retry-After — so a 429 pauses the whole key and the limit is learnt.
 */
import { readRateLimit } from "./classify";
import type { AttemptTelemetry, CommandTelemetry, RateLimitSnapshot, WaitKind } from "../core";
import type { PacingPriority } from "../pacing";
import type { RunnerDeps } from "./runner-types";
import {
  sendAttempt,
  type AttemptRequest,
  type AttemptTransport,
  type FetchLike,
  type PreparedRequest,
} from "./transport";

export interface PacedAttemptResult {
  transport: AttemptTransport;
  /** The X-Request-ID this attempt sent. */
  requestId: string;
  /** Time spent waiting for the pacer's slot, ms. */
  waitedMs: number;
  /** The response's X-RateLimit-* snapshot, when it had one. */
  rateLimit?: RateLimitSnapshot;
}

export async function pacedAttempt(
  deps: Pick<
    RunnerDeps,
    "pacer" | "apiKeyId" | "clock" | "redactor" | "newRequestId" | "maxResponseBytes" | "signalInInit"
  >,
  req: AttemptRequest | PreparedRequest,
  opts: {
    attemptNo: number;
    signal?: AbortSignal;
    timeoutMs: number;
    /** The call's deadline (ms since the epoch on deps.clock); +Infinity for none. */
    deadlineAt: number;
    fetchFn: FetchLike;
    onSend(): void;
    /** Runs once the slot is granted, right before the send: the fleet lease check (a slot can take longer than a lease). */
    beforeSend?: () => Promise<void>;
    /** The command's telemetry (only when the client has a `telemetry` option). */
    telemetry?: CommandTelemetry;
    /** 1-based number of this attempt within its command, for telemetry. */
    attemptOfCommand?: number;
    /** Path template of this request when it is not the command's own (the reconcile lookup). */
    pathTemplate?: string;
    /** The pacer lane: recover()'s requests go before new work. */
    priority?: PacingPriority;
  },
): Promise<PacedAttemptResult> {
  const { pacer, apiKeyId, clock } = deps;
  // Rejects with DeadlineExceededError when the slot would come after the deadline (nothing sent).
  const ticket = await pacer.acquire(apiKeyId, opts.signal, opts.deadlineAt, opts.priority);
  if (opts.beforeSend) {
    try {
      await opts.beforeSend();
    } catch (error) {
      ticket.release({ receivedAt: clock.now(), attempt: opts.attemptNo }); // counted as spent: never less safe
      throw error;
    }
  }
  // The attempt may not outlive the call (never 0: a zero timeout would mean "no timer" below).
  const timeoutMs =
    opts.deadlineAt === Number.POSITIVE_INFINITY
      ? opts.timeoutMs
      : Math.max(1, Math.min(opts.timeoutMs, opts.deadlineAt - clock.now()));
  const requestId = deps.newRequestId();
  let toSend: AttemptRequest | PreparedRequest;
  if ("request" in req) {
    req.request.headers.set("x-request-id", requestId);
    toSend = req;
  } else {
    toSend = {
      url: req.url,
      method: req.method,
      headers: { ...req.headers, "x-request-id": requestId },
      body: req.body,
    };
  }
  let span: AttemptTelemetry | undefined;
  if (opts.telemetry) span = startAttemptTelemetry(opts.telemetry, ticket, toSend, requestId, opts);
  opts.onSend();
  let transport: AttemptTransport | undefined;
  let rateLimit: RateLimitSnapshot | undefined;
  try {
    transport = await sendAttempt(opts.fetchFn, toSend, {
      clock,
      timeoutMs,
      signal: opts.signal,
      redactor: deps.redactor,
      maxResponseBytes: deps.maxResponseBytes,
      signalInInit: deps.signalInInit,
    });
  } finally {
    // Exactly one release per attempt (pacing.ts), whatever happened.
    const raw = transport?.ok ? transport.raw : undefined;
    if (raw) {
      const headers = raw.headers;
      const rl = readRateLimit(headers);
      if (rl.limit !== null || rl.remaining !== null) rateLimit = rl;
      if (rl.limit !== null) pacer.learnLimit(apiKeyId, rl.limit);
      ticket.release({
        receivedAt: clock.now(),
        status: raw.status,
        limit: rl.limit,
        remaining: rl.remaining,
        retryAfter: headers.get("retry-after"),
        isRateLimit: raw.status === 429,
        attempt: opts.attemptNo,
      });
    } else {
      ticket.release({ receivedAt: clock.now(), attempt: opts.attemptNo });
    }
    if (span) {
      span.end({
        status: transport?.ok ? transport.raw.status : undefined,
        transportError: transport && !transport.ok ? transport.error : transport ? undefined : "network",
        requestId: (transport?.ok && transport.raw.headers.get("x-request-id")) || requestId,
        rateLimitLimit: rateLimit?.limit,
        rateLimitRemaining: rateLimit?.remaining,
      });
    }
  }
  return { transport, requestId, waitedMs: ticket.waitedMs, rateLimit };
}

/** Reports the pacer wait and opens the attempt's telemetry, which may add headers (traceparent). */
function startAttemptTelemetry(
  telemetry: CommandTelemetry,
  ticket: { waitedMs: number; waitReason?: Exclude<WaitKind, "backoff"> },
  toSend: AttemptRequest | PreparedRequest,
  requestId: string,
  opts: { attemptOfCommand?: number; pathTemplate?: string },
): AttemptTelemetry {
  // Every slot is reported, 0 ms included, so the wait histogram shows how often the pacer binds.
  telemetry.slot(ticket.waitedMs, ticket.waitedMs > 0 ? (ticket.waitReason ?? "spacing") : undefined);
  const isPrepared = "request" in toSend;
  const method = isPrepared ? toSend.request.method : toSend.method;
  const url = isPrepared ? toSend.request.url : toSend.url;
  const setHeader = isPrepared
    ? (name: string, value: string) => toSend.request.headers.set(name, value)
    : (name: string, value: string) => void (toSend.headers[name.toLowerCase()] = value);
  return telemetry.startAttempt(
    { attempt: opts.attemptOfCommand ?? 1, method, url, pathTemplate: opts.pathTemplate, requestId },
    setHeader,
  );
}
