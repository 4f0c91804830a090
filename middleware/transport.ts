/**
 * One HTTP attempt with a per-attempt timeout on the injected Clock (so a VirtualClock drives it)
 * and the caller's AbortSignal. The whole body is read inside the deadline: a connection reset
 * mid-body is a transport failure, not a response (E4). Transport failures never throw.
 */
import { systemClock, type Clock } from "../runtime/clock";
import { NetworkError, TimeoutError } from "./errors";
import type { RawResponse } from "./classify";
import type { Redactor } from "./redact";

export type FetchLike = (input: Request) => Promise<Response>;

export type AttemptTransport =
  | { ok: true; raw: RawResponse }
  | { ok: false; error: "timeout"; cause: TimeoutError }
  | { ok: false; error: "network"; cause: NetworkError }
  | { ok: false; error: "aborted"; reason: unknown };

export interface AttemptRequest {
  url: string;
  method: string;
  /** Lower-case header names (as Headers iteration yields them). */
  headers: Record<string, string>;
  /** Exact bytes (a fresh copy is sent each time so nothing can detach the original). */
  body: Uint8Array | null;
}

/**
 * A Request built once by openapi-fetch with `controller.signal`, reused for the FIRST attempt so
 * the common path builds no second Request. Its body bytes are the frozen ones (D4).
 */
export interface PreparedRequest {
  request: Request;
  controller: AbortController;
}

function errorCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown } })?.cause;
  const code = cause?.code ?? (error as { code?: unknown })?.code;
  return typeof code === "string" ? code : undefined;
}

/** Calls `onTimeout` after `ms` on the clock; returns a canceller. The real clock skips AbortSignals. */
function startTimer(clock: Clock, ms: number, onTimeout: () => void): () => void {
  if (!(Number.isFinite(ms) && ms > 0)) return () => undefined;
  if (clock === systemClock) {
    const t = setTimeout(onTimeout, ms);
    return () => clearTimeout(t);
  }
  const cancel = new AbortController();
  clock.sleep(ms, cancel.signal).then(onTimeout, () => undefined);
  return () => cancel.abort(ATTEMPT_OVER);
}

/** Abort reason once an attempt is over (a constant: no DOMException per request). */
const ATTEMPT_OVER = Object.freeze({ attemptOver: true });

export async function sendAttempt(
  fetchFn: FetchLike,
  req: AttemptRequest | PreparedRequest,
  opts: { clock: Clock; timeoutMs: number; signal?: AbortSignal; redactor: Redactor },
): Promise<AttemptTransport> {
  const { clock, timeoutMs, signal } = opts;
  if (signal?.aborted) return { ok: false, error: "aborted", reason: signal.reason };
  const ac = "controller" in req ? req.controller : new AbortController();
  let timedOut = false;
  let settled = false;
  // A fetch that ignores its signal must not hang the command: race against the stop too.
  let stop!: (reason: unknown) => void;
  const stopped = new Promise<never>((_, reject) => (stop = reject));
  stopped.catch(() => undefined);
  const end = (reason: unknown) => {
    if (settled) return;
    stop(reason);
    ac.abort(reason); // ends the real request (socket) too
  };
  const onCallerAbort = () => end(signal?.reason ?? ATTEMPT_OVER);
  signal?.addEventListener("abort", onCallerAbort, { once: true });
  const cancelTimer = startTimer(clock, timeoutMs, () => {
    if (settled) return;
    timedOut = true;
    end(new TimeoutError(timeoutMs));
  });
  try {
    const work = (async (): Promise<RawResponse> => {
      const request =
        "controller" in req
          ? req.request
          : new Request(req.url, {
              method: req.method,
              headers: req.headers,
              body: req.body ? (req.body.slice() as BodyInit) : undefined,
              signal: ac.signal,
              redirect: "manual",
            });
      const response = await fetchFn(request);
      const bytes = new Uint8Array(await response.arrayBuffer());
      return { status: response.status, headers: response.headers, bytes };
    })();
    work.catch(() => undefined);
    const raw = await Promise.race([work, stopped]);
    return { ok: true, raw };
  } catch (error) {
    if (timedOut) return { ok: false, error: "timeout", cause: new TimeoutError(timeoutMs) };
    if (signal?.aborted) return { ok: false, error: "aborted", reason: signal.reason };
    const message = error instanceof Error ? error.message : "fetch failed";
    return {
      ok: false,
      error: "network",
      cause: new NetworkError(opts.redactor.text(`Network failure: ${message}`), errorCode(error)),
    };
  } finally {
    settled = true;
    cancelTimer();
    signal?.removeEventListener("abort", onCallerAbort);
  }
}
