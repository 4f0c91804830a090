// How each attempt's abort signal reaches a custom fetch (src/options.ts `fetch`): as `init.signal`
// for a fetch declared with two parameters, on the Request for a one-parameter fetch. Either way a
// timed-out attempt aborts what the fetch started — here the emulator's hung request (timeout_before),
// which ends only when the signal it was given aborts.
import { describe, expect, it } from "vitest";
import { setup } from "./harness";

describe("client: the attempt's abort signal reaches the fetch", () => {
  it("E4: a two-parameter fetch gets it as init.signal; the timeout aborts it and ends the emulator's hung request", async () => {
    const h = setup();
    const seen: { requestSignal: AbortSignal; initSignal?: AbortSignal }[] = [];
    const hung: Promise<unknown>[] = [];
    const client = h.makeClient({
      timeoutMs: 2_000,
      retry: { maxAttempts: 1 },
      fetch: (request, init) => {
        seen.push({ requestSignal: request.signal, initSignal: init?.signal });
        const response = h.emulator.fetch(request, init);
        hung.push(response.catch((error: unknown) => error));
        return response;
      },
    });
    h.emulator.control.addFault({ method: "GET", path: "/context", kind: "timeout_before" });
    const out = await client.context.get();
    expect(out.kind).toBe("unknown");
    expect(out.attempts.map((a) => a.error)).toEqual(["timeout"]);
    expect(seen).toHaveLength(1);
    expect(seen[0].initSignal).toBeInstanceOf(AbortSignal); // a real one: the fetch may pass it to AbortSignal.any()
    expect(seen[0].initSignal?.aborted).toBe(true);
    expect(seen[0].requestSignal.aborted).toBe(false); // not hooked up twice
    // The emulator's hang ended because the signal it was given aborted (nothing closed the emulator).
    expect(await hung[0]).toMatchObject({ name: "TimeoutError" });
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
