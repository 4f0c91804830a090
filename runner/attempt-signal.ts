/**
 * The per-attempt abort signal (timeouts, caller aborts — E4), used by transport.ts and the facade
 * (src/client.ts). Not a DOM AbortController: creating a real AbortSignal
 * (transferable, C++-backed) and having undici follow it costs ≈ 10–25 µs per request — a large
 * share of the in-process overhead. undici's Request accepts any EventTarget with `aborted` and
 * `reason` (WebIDL converter with strict: false) and follows it with its OWN real AbortSignal, so
 * `request.signal` (what a fetch, custom or native, sees) is still a genuine AbortSignal that aborts
 * when the attempt times out or the caller aborts — a real socket is still closed.
 */
class AttemptSignal extends EventTarget {
  aborted = false;
  reason: unknown = undefined;
  onabort: ((event: Event) => void) | null = null;
  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }
}

/**
 * Whether this runtime's Request follows an AttemptSignal with a real AbortSignal (Node's undici
 * does); checked once. A stricter Request (a replaced global) gets real AbortControllers instead.
 */
let lightweightSignals: boolean | undefined;
function lightweight(): boolean {
  if (lightweightSignals === undefined) {
    try {
      const probe = new AttemptSignal();
      const request = new Request("http://127.0.0.1/", { signal: probe as unknown as AbortSignal });
      probe.aborted = true;
      probe.dispatchEvent(new Event("abort"));
      lightweightSignals = request.signal instanceof AbortSignal && request.signal.aborted;
    } catch {
      lightweightSignals = false;
    }
  }
  return lightweightSignals;
}

export class AttemptController {
  private readonly light: AttemptSignal | undefined;
  private readonly native: AbortController | undefined;

  /**
   * `real`: a genuine AbortController — for a signal handed to code other than undici's Request (a
   * custom fetch's `init.signal` may meet `AbortSignal.any()` or an `instanceof` check).
   */
  constructor(real = false) {
    this.light = !real && lightweight() ? new AttemptSignal() : undefined;
    this.native = this.light ? undefined : new AbortController();
  }

  /** The signal to hand to `new Request()` / openapi-fetch's init. */
  get requestSignal(): AbortSignal {
    return this.light ?? this.native!.signal;
  }

  /** `{ signal: requestSignal }`, for a fetch that takes the signal as its second argument. */
  get fetchInit(): { signal: AbortSignal } {
    return { signal: this.requestSignal };
  }

  abort(reason?: unknown): void {
    const signal = this.light;
    if (!signal) return void this.native!.abort(reason);
    if (signal.aborted) return;
    signal.aborted = true;
    signal.reason = reason ?? new DOMException("This operation was aborted", "AbortError");
    const event = new Event("abort");
    signal.onabort?.(event);
    signal.dispatchEvent(event);
  }
}
