/**
 * One attempt through the key's pacer (G2, C10, C12, I1): acquire a slot, set this attempt's own
 * X-Request-ID, send (transport.ts), and release the slot exactly once with what the response said —
 * status, X-RateLimit-* and Retry-After — so a 429 pauses the whole key and the limit is learnt.
 */
import { readRateLimit } from "./classify";
import type { RateLimitSnapshot } from "../core";
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
  deps: Pick<RunnerDeps, "pacer" | "apiKeyId" | "clock" | "redactor" | "newRequestId">,
  req: AttemptRequest | PreparedRequest,
  opts: { attemptNo: number; signal?: AbortSignal; timeoutMs: number; fetchFn: FetchLike; onSend(): void },
): Promise<PacedAttemptResult> {
  const { pacer, apiKeyId, clock } = deps;
  const ticket = await pacer.acquire(apiKeyId, opts.signal);
  const requestId = deps.newRequestId();
  let toSend: AttemptRequest | PreparedRequest;
  if ("controller" in req) {
    req.request.headers.set("x-request-id", requestId);
    toSend = req;
  } else {
    toSend = { url: req.url, method: req.method, headers: { ...req.headers, "x-request-id": requestId }, body: req.body };
  }
  opts.onSend();
  let transport: AttemptTransport | undefined;
  let rateLimit: RateLimitSnapshot | undefined;
  try {
    transport = await sendAttempt(opts.fetchFn, toSend, {
      clock,
      timeoutMs: opts.timeoutMs,
      signal: opts.signal,
      redactor: deps.redactor,
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
  }
  return { transport, requestId, waitedMs: ticket.waitedMs, rateLimit };
}
