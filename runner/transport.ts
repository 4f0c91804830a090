/**
 * One HTTP attempt with a per-attempt timeout on the injected Clock (so a VirtualClock drives it)
 * and the caller's AbortSignal. The whole body is read inside the deadline, and never past
 * `maxResponseBytes`: a connection reset mid-body is a transport failure, not a response (E4), and a
 * longer body is cut (only its head is kept, for the snippet). Whatever `fetch` does — rejects with a
 * non-Error, resolves with something that is not a Response, never settles — the attempt settles
 * with a typed result; nothing here throws.
 */
import { systemClock, type Clock } from "../runtime/clock";
import { NetworkError, TimeoutError } from "../core";
import type { RawResponse } from "./classify";
import type { Redactor } from "../core";

/**
 * The fetch an attempt goes through, with one Request. The attempt's abort signal is either on that
 * Request (a custom `fetch`) or given as fetch's documented `init.signal` (the platform's own fetch).
 */
export type FetchLike = (input: Request, init?: { signal?: AbortSignal }) => Promise<Response>;

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
 * The Request openapi-fetch built, sent as the FIRST attempt. Its body bytes are the frozen ones (D4).
 */
export interface PreparedRequest {
  request: Request;
  /**
   * A custom `fetch`: the controller whose signal the Request carries (given to openapi-fetch as the
   * documented `signal` init). Absent with the platform's fetch: the attempt's own controller's signal
   * goes as `init.signal` (the Fetch standard's Request constructor takes it instead of the input's).
   */
  controller?: AbortController;
}

function errorCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown } })?.cause;
  const code = cause?.code ?? (error as { code?: unknown })?.code;
  return typeof code === "string" ? code : undefined;
}

const noop = (): void => undefined;

/** Cancels a body reader without ever throwing (a foreign stream may not even have `cancel`). */
function cancelQuietly(reader: ReadableStreamDefaultReader<Uint8Array> | undefined, reason?: unknown): void {
  try {
    reader?.cancel(reason).catch(noop);
  } catch {
    // nothing left to free
  }
}

/** Bytes kept of a body cut at maxResponseBytes: enough for the ≤ 2 KiB snippet (E5). */
const TRUNCATED_HEAD_BYTES = 2048;

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** Abort reason once an attempt is over (a constant: no DOMException per request). */
const ATTEMPT_OVER = Object.freeze({ attemptOver: true });

interface SendOptions {
  clock: Clock;
  /**
   * The platform's fetch (undici in Node): the signal goes as `init.signal`, not on the Request.
   * undici's Request follows the signal it is given (a listener, a WeakRef and a finalizer each), and
   * fetch's own copy of the Request follows the input's signal again: one signal per attempt, not two.
   */
  signalInInit?: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
  redactor: Redactor;
  /** Longest body read into memory; a longer one is cut and marked `truncated`. */
  maxResponseBytes: number;
}

/** What settles an attempt whose own code threw: the cause, named (E4: the outcome is unknown). */
function internalFailure(error: unknown, redactor: Redactor, step: string): AttemptTransport {
  let text = "an exception";
  try {
    text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  } catch {
    // a value that cannot even be printed: the step is still named
  }
  return {
    ok: false,
    error: "network",
    cause: new NetworkError(redactor.text(`Transport failure while ${step}: ${text}`), "transport_failure"),
  };
}

/**
 * One attempt in flight. The response, the body read, the timer and the caller's abort all settle
 * the same promise, whichever comes first, and everything after that is ignored. Every step that can
 * throw (a foreign fetch, Response, stream, signal, Clock or timer) is caught and settles the attempt:
 * no throw inside the completion path leaves a call pending (E4).
 */
class Attempt {
  settled = false;
  /** A plain timer (setTimeout/clearTimeout only: every runtime has them; workerd's returns a number). */
  private timer: ReturnType<typeof setTimeout> | undefined;
  private clockTimer: AbortController | undefined;
  private onCallerAbort: (() => void) | undefined;
  private reader: ReadableStreamDefaultReader<Uint8Array> | undefined;

  constructor(
    private readonly opts: SendOptions,
    private readonly ac: AbortController,
    private readonly resolve: (t: AttemptTransport) => void,
  ) {}

  start(fetchFn: FetchLike, req: AttemptRequest | PreparedRequest): void {
    try {
      this.arm();
    } catch (error) {
      this.settle(internalFailure(error, this.opts.redactor, "arming the attempt's timeout and abort"));
      return;
    }
    let sent: Promise<Response>;
    try {
      // A prepared Request carries its controller's signal when it has one (a custom fetch).
      const inInit = "request" in req ? !req.controller : this.opts.signalInInit;
      let request: Request;
      if ("request" in req) {
        request = req.request;
      } else {
        request = new Request(req.url, {
          method: req.method,
          headers: req.headers,
          body: req.body ? (req.body.slice() as BodyInit) : undefined,
          signal: inInit ? undefined : this.ac.signal,
          redirect: "manual",
        });
      }
      // Promise.resolve: the same promise when it already is one.
      sent = Promise.resolve(inInit ? fetchFn(request, { signal: this.ac.signal }) : fetchFn(request));
    } catch (error) {
      this.failed(error);
      return;
    }
    // A fetch that ignores its signal cannot hang the command: the timer settles it regardless.
    sent.then(
      (response) => this.received(response),
      (error: unknown) => this.failed(error),
    );
  }

  /** The per-attempt timeout (on the injected Clock unless it is the real one) and the caller's abort. */
  private arm(): void {
    const { clock, timeoutMs, signal } = this.opts;
    if (signal) {
      this.onCallerAbort = () =>
        this.end(signal.reason ?? ATTEMPT_OVER, { ok: false, error: "aborted", reason: signal.reason });
      signal.addEventListener("abort", this.onCallerAbort, { once: true });
    }
    if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) return;
    if (clock === systemClock) {
      this.timer = setTimeout(fireTimeout, timeoutMs, this);
    } else {
      // Any other Clock (VirtualClock in tests) sleeps on itself.
      this.clockTimer = new AbortController();
      clock.sleep(timeoutMs, this.clockTimer.signal).then(
        () => fireTimeout(this),
        () => undefined,
      );
    }
  }

  timedOut(): void {
    const { timeoutMs } = this.opts;
    this.end(new TimeoutError(timeoutMs), { ok: false, error: "timeout", cause: new TimeoutError(timeoutMs) });
  }

  private received(response: Response): void {
    if (this.settled) return;
    let status: number;
    let headers: Headers;
    let body: ReadableStream<Uint8Array> | null;
    try {
      status = response.status;
      headers = response.headers;
      if (typeof status !== "number" || typeof headers?.get !== "function") throw new TypeError("not a Response");
      body = response.body;
    } catch {
      this.failed(new TypeError("fetch resolved with a value that is not an HTTP Response"));
      return;
    }
    // E4: the whole body is read inside the deadline; a reset mid-body is a transport failure.
    let read: Promise<{ bytes: Uint8Array; truncated: boolean }>;
    try {
      read =
        body === null || body === undefined
          ? Promise.resolve({ bytes: new Uint8Array(0), truncated: false })
          : typeof body.getReader === "function"
            ? this.readBounded(body)
            : this.readWhole(response);
    } catch (error) {
      this.failed(error);
      return;
    }
    read.then(
      ({ bytes, truncated }) =>
        this.finish({ ok: true, raw: truncated ? { status, headers, bytes, truncated } : { status, headers, bytes } }),
      (error: unknown) => this.failed(error),
    );
  }

  /** Reads at most maxResponseBytes; past that, keeps only the head and cancels the stream. */
  private async readBounded(body: ReadableStream<Uint8Array>): Promise<{ bytes: Uint8Array; truncated: boolean }> {
    const max = this.opts.maxResponseBytes;
    const reader = body.getReader();
    this.reader = reader;
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes: concat(chunks, size), truncated: false };
      if (!(value instanceof Uint8Array)) throw new TypeError("the response body yielded something that is not bytes");
      if (this.settled) throw new TypeError("attempt already over");
      chunks.push(value);
      size += value.byteLength;
      if (size > max) {
        cancelQuietly(reader); // frees the connection; a stream that ignores it is simply dropped
        const head = concat(chunks, size);
        return { bytes: head.slice(0, Math.min(TRUNCATED_HEAD_BYTES, max)), truncated: true };
      }
    }
  }

  /** A Response-like without a web stream body (another fetch implementation): read, then bound. */
  private async readWhole(response: Response): Promise<{ bytes: Uint8Array; truncated: boolean }> {
    const bytes = new Uint8Array(await response.arrayBuffer());
    const max = this.opts.maxResponseBytes;
    return bytes.byteLength > max
      ? { bytes: bytes.slice(0, Math.min(TRUNCATED_HEAD_BYTES, max)), truncated: true }
      : { bytes, truncated: false };
  }

  private failed(error: unknown): void {
    if (this.settled) return;
    let result: AttemptTransport;
    try {
      const signal = this.opts.signal;
      if (signal?.aborted) {
        result = { ok: false, error: "aborted", reason: signal.reason };
      } else {
        // `fetch` may reject with anything (a string, null, an object whose getters throw): never rethrow.
        let message = "fetch failed";
        let code: string | undefined;
        try {
          if (error instanceof Error && typeof error.message === "string") message = error.message;
          code = errorCode(error);
        } catch {
          code = undefined;
        }
        const cause = new NetworkError(this.opts.redactor.text(`Network failure: ${message}`), code);
        result = { ok: false, error: "network", cause };
      }
    } catch (thrown) {
      result = internalFailure(thrown, this.opts.redactor, "reading the failure");
    }
    this.finish(result);
  }

  /** Timeout or caller abort: settle, then abort the request's signal (closes a real socket). */
  private end(reason: unknown, result: AttemptTransport): void {
    if (this.settled) return;
    this.finish(result);
    try {
      this.ac.abort(reason);
    } catch {
      // an abort listener of a foreign fetch threw: the attempt is settled either way
    }
    // A body that keeps streaming after the attempt is over is dropped, not read on.
    cancelQuietly(this.reader, reason);
  }

  /**
   * Settles the attempt once. The clean-up runs first; if any of it throws, the attempt settles
   * with that cause instead (an `unknown` outcome, E4) — never a promise left pending.
   */
  private finish(result: AttemptTransport): void {
    if (this.settled) return;
    this.settled = true;
    let settledWith = result;
    try {
      if (this.timer !== undefined) clearTimeout(this.timer);
      if (this.clockTimer) this.clockTimer.abort(ATTEMPT_OVER);
      if (this.onCallerAbort) this.opts.signal?.removeEventListener("abort", this.onCallerAbort);
    } catch (error) {
      settledWith = internalFailure(error, this.opts.redactor, "completing the attempt");
    }
    this.resolve(settledWith);
  }

  /** Settles without clean-up: for a failure before anything was armed completely. */
  private settle(result: AttemptTransport): void {
    if (this.settled) return;
    this.settled = true;
    try {
      if (this.timer !== undefined) clearTimeout(this.timer);
      if (this.clockTimer) this.clockTimer.abort(ATTEMPT_OVER);
      if (this.onCallerAbort) this.opts.signal?.removeEventListener("abort", this.onCallerAbort);
    } catch {
      // the first failure is the one reported
    }
    this.resolve(result);
  }
}

function fireTimeout(attempt: Attempt): void {
  attempt.timedOut();
}

export function sendAttempt(
  fetchFn: FetchLike,
  req: AttemptRequest | PreparedRequest,
  opts: SendOptions,
): Promise<AttemptTransport> {
  const { signal } = opts;
  if (signal?.aborted) return Promise.resolve({ ok: false, error: "aborted", reason: signal.reason as unknown });
  return new Promise<AttemptTransport>((resolve) => {
    let attempt: Attempt | undefined;
    try {
      const ac = ("request" in req ? req.controller : undefined) ?? new AbortController();
      attempt = new Attempt(opts, ac, resolve);
      attempt.start(fetchFn, req);
    } catch (error) {
      // Nothing in start() should throw; if it does, the attempt still settles with the cause.
      if (!attempt?.settled) resolve(internalFailure(error, opts.redactor, "starting the attempt"));
    }
  });
}
