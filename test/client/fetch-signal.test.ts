// How each attempt's abort signal reaches a custom fetch (src/options.ts `fetch`): on the Request,
// as a genuine AbortSignal of a plain AbortController (one per attempt), whatever the fetch declares.
// A timed-out attempt aborts what the fetch started — here the emulator's hung request
// (timeout_before), which ends only when the signal it was given aborts.
import { describe, expect, it } from "vitest";
import { setup } from "./harness";

describe("client: the attempt's abort signal reaches the fetch", () => {
  it("E4: a two-parameter fetch gets no init: the signal is on the Request, and the timeout aborts it", async () => {
    const h = setup();
    const seen: { requestSignal: AbortSignal; init?: unknown }[] = [];
    const hung: Promise<unknown>[] = [];
    const client = h.makeClient({
      timeoutMs: 2_000,
      retry: { maxAttempts: 2 },
      fetch: (request, init) => {
        seen.push({ requestSignal: request.signal, init });
        const response = h.emulator.fetch(request);
        hung.push(response.catch((error: unknown) => error));
        return response;
      },
    });
    h.emulator.control.addFault({ method: "GET", path: "/context", kind: "timeout_before", times: 2 });
    const out = await client.context.get();
    expect(out.kind).toBe("unknown");
    expect(out.attempts.map((a) => a.error)).toEqual(["timeout", "timeout"]);
    expect(seen).toHaveLength(2); // the first attempt (openapi-fetch's Request) and the rebuilt retry
    for (const s of seen) {
      expect(s.init).toBeUndefined();
      expect(s.requestSignal).toBeInstanceOf(AbortSignal);
      expect(s.requestSignal.aborted).toBe(true);
    }
    // The emulator's hang ended because the signal it was given aborted (nothing closed the emulator).
    for (const h2 of hung) expect(await h2).toMatchObject({ name: "TimeoutError" });
  });

  it("E4: a one-parameter fetch gets it on the Request, and the timeout aborts it there", async () => {
    const h = setup();
    const signals: AbortSignal[] = [];
    const ended: Promise<unknown>[] = [];
    const client = h.makeClient({
      timeoutMs: 2_000,
      retry: { maxAttempts: 1 },
      fetch: (request) => {
        signals.push(request.signal);
        const response = h.emulator.fetch(request);
        ended.push(response.catch((error: unknown) => error));
        return response;
      },
    });
    h.emulator.control.addFault({ method: "GET", path: "/context", kind: "timeout_before" });
    const out = await client.context.get();
    expect(out.kind).toBe("unknown");
    expect(out.attempts.map((a) => a.error)).toEqual(["timeout"]);
    expect(signals).toHaveLength(1);
    expect(signals[0].aborted).toBe(true);
    expect(await ended[0]).toMatchObject({ name: "TimeoutError" });
  });

  it("the same call succeeds through either kind of fetch (the signal moves, nothing else)", async () => {
    const h = setup();
    const two = h.makeClient({ fetch: (request, init) => h.emulator.fetch(request, init) });
    const one = h.makeClient({ fetch: (request) => h.emulator.fetch(request) });
    const [a, b] = [await two.context.get(), await one.context.get()];
    expect(a.kind).toBe("succeeded");
    expect(b.kind).toBe("succeeded");
    if (a.kind !== "succeeded" || b.kind !== "succeeded") return;
    expect(a.data).toEqual(b.data);
  });
});
