// E4: every attempt settles. A throw at any step of the transport (runner/transport.ts) — the fetch,
// the Response, its body stream, the caller's signal, the Clock, the timers — ends the attempt with a
// typed result, and a call through the client ends as an Outcome (`unknown` with the cause), never
// as a promise left pending. Workers runtimes (workerd) return a number from setTimeout: no
// ref()/unref() is ever called on it.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createEmulator } from "../../emulator/index";
import { createRedactor, NetworkError } from "../../core";
import { sendAttempt, type AttemptTransport } from "../../runner";
import { systemClock, VirtualClock, type Clock } from "../../runtime/clock";
import { createResellerClient } from "../../src/index";
import { createMemoryJournal } from "../../stores/memory-journal";
import { setup } from "./harness";

const URL_ = "http://127.0.0.1/api/reseller/v1/context";
const redactor = createRedactor(["secret-token"]);
const ok = () => new Response('{"data":{}}', { status: 200, headers: { "content-type": "application/json" } });

function send(
  fetchFn: (r: Request) => Promise<Response>,
  opts: { clock?: Clock; signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<AttemptTransport> {
  return sendAttempt(
    fetchFn,
    { url: URL_, method: "GET", headers: { accept: "application/json" }, body: null },
    {
      clock: opts.clock ?? systemClock,
      timeoutMs: opts.timeoutMs ?? 30_000,
      signal: opts.signal,
      redactor,
      maxResponseBytes: 1 << 20,
    },
  );
}

/** A Response-like whose one property throws when read. */
function throwingResponse(prop: "status" | "headers" | "body"): Response {
  const real = ok();
  return new Proxy(real, {
    get(target, key) {
      if (key === prop) throw new TypeError(`${prop} exploded`);
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function withBody(body: unknown, extra: Record<string, unknown> = {}): Response {
  return { status: 200, headers: new Headers({ "content-type": "application/json" }), body, ...extra } as never;
}

/** workerd's timers: setTimeout returns a number, which has no ref()/unref(). */
function numericTimers(): void {
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  const handles = new Map<number, ReturnType<typeof realSet>>();
  let next = 1;
  vi.stubGlobal("setTimeout", (fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const id = next++;
    handles.set(
      id,
      realSet(() => {
        handles.delete(id);
        fn(...args);
      }, ms),
    );
    return id;
  });
  vi.stubGlobal("clearTimeout", (id: number | undefined) => {
    if (id === undefined) return;
    realClear(handles.get(id));
    handles.delete(id);
  });
}

afterEach(() => {
  vi.unstubAllGlobals();
});

// First in the file: the timers this module arms before are Node timers, which would hide the defect.
describe("E4: workerd's timers (setTimeout returns a number)", () => {
  it("E4: workerd's numeric timers: an attempt settles with its response (no ref/unref)", async () => {
    numericTimers();
    const results = [await send(async () => ok()), await send(async () => ok()), await send(async () => ok())];
    for (const r of results) expect(r).toMatchObject({ ok: true, raw: { status: 200 } });
  });

  it("E4: workerd's numeric timers: a fetch that never answers still times out", async () => {
    numericTimers();
    const result = await send(() => new Promise<Response>(() => undefined), { timeoutMs: 5 });
    expect(result).toMatchObject({ ok: false, error: "timeout" });
  });
  it("E4: workerd's numeric timers — context, a journalled renew and a second call all settle (real clock)", async () => {
    numericTimers();
    const emulator = createEmulator({ clock: systemClock, defaultRateLimit: 10_000 });
    const key = emulator.control.createKey({ environment: "test", rate_limit_per_minute: 10_000 });
    const domain = emulator.control.createDomain({ token: key.token, name: "example.kz" });
    const client = createResellerClient({
      baseUrl: "http://127.0.0.1/api/reseller/v1",
      token: key.token,
      fetch: (r: Request) => emulator.fetch(r),
      journal: createMemoryJournal(),
      pacing: { initialLimit: 10_000 },
    });
    expect((await client.context.get()).kind).toBe("succeeded");
    const renewed = await client.domains.renew({ domainUuid: domain.uuid, body: { period: 1 } });
    expect(renewed.kind).toBe("accepted");
    expect((await client.context.get()).kind).toBe("succeeded");
  });
});

const FETCH_STEPS: [string, (r: Request) => Promise<Response>][] = [
  [
    "fetch throws synchronously",
    () => {
      throw new TypeError("fetch exploded");
    },
  ],
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the fault under test
  ["fetch rejects with a non-Error", () => Promise.reject("a string")],
  [
    "fetch rejects with an object whose getters throw",
    () =>
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the fault under test
      Promise.reject(
        Object.defineProperty({}, "message", {
          get() {
            throw new Error("getter");
          },
        }),
      ),
  ],
  ["fetch resolves with a non-Response", () => Promise.resolve(42 as never)],
  ["the Response's status getter throws", async () => throwingResponse("status")],
  ["the Response's headers getter throws", async () => throwingResponse("headers")],
  ["the Response's body getter throws", async () => throwingResponse("body")],
  [
    "body.getReader() throws",
    async () =>
      withBody({
        getReader() {
          throw new TypeError("no reader");
        },
      }),
  ],
  [
    "reader.read() throws synchronously",
    async () =>
      withBody({
        getReader: () => ({
          read() {
            throw new TypeError("read exploded");
          },
          cancel: () => Promise.resolve(),
        }),
      }),
  ],
  [
    "reader.read() yields something that is not bytes",
    async () =>
      withBody({
        getReader: () => ({ read: () => Promise.resolve({ done: false, value: "text" }), cancel: () => undefined }),
      }),
  ],
  [
    "a body without getReader whose arrayBuffer() throws",
    async () =>
      withBody(
        {},
        {
          arrayBuffer() {
            throw new TypeError("arrayBuffer exploded");
          },
        },
      ),
  ],
];

describe("transport: a throw at each step settles the attempt", () => {
  it.each(FETCH_STEPS)("E4: %s → a network failure, settled", async (_step, fetchFn) => {
    const result = await send(fetchFn);
    expect(result).toMatchObject({ ok: false, error: "network" });
    if (!result.ok && result.error === "network") expect(result.cause).toBeInstanceOf(NetworkError);
  });

  it("E4: reader.cancel() throwing on a cut body still settles (truncated head kept)", async () => {
    const big = new Uint8Array(4096).fill(0x20);
    const result = await sendAttempt(
      async () =>
        withBody({
          getReader: () => ({
            read: () => Promise.resolve({ done: false, value: big }),
            cancel() {
              throw new TypeError("cancel exploded");
            },
          }),
        }),
      { url: URL_, method: "GET", headers: {}, body: null },
      { clock: systemClock, timeoutMs: 30_000, redactor, maxResponseBytes: 1024 },
    );
    expect(result).toMatchObject({ ok: true, raw: { status: 200, truncated: true } });
  });

  it("E4: setTimeout throwing while the timeout is armed → settled with the cause", async () => {
    vi.stubGlobal("setTimeout", () => {
      throw new TypeError("no timers here");
    });
    const result = await send(async () => ok());
    expect(result).toMatchObject({ ok: false, error: "network" });
    if (!result.ok && result.error === "network") expect(result.cause.message).toMatch(/no timers here/);
  });

  it("E4: clearTimeout throwing in the completion path → settled with the cause, not pending", async () => {
    const realClear = globalThis.clearTimeout;
    vi.stubGlobal("clearTimeout", (id: unknown) => {
      realClear(id as never);
      throw new TypeError("clearTimeout exploded");
    });
    const result = await send(async () => ok());
    expect(result).toMatchObject({ ok: false, error: "network" });
    if (!result.ok && result.error === "network") {
      expect(result.cause.message).toMatch(/completing the attempt: TypeError: clearTimeout exploded/);
    }
  });

  it("E4: the caller's signal throwing in addEventListener → settled with the cause", async () => {
    const signal = new AbortController().signal;
    Object.defineProperty(signal, "addEventListener", {
      value: () => {
        throw new TypeError("addEventListener exploded");
      },
    });
    const result = await send(async () => ok(), { signal });
    expect(result).toMatchObject({ ok: false, error: "network" });
  });

  it("E4: the caller's signal throwing in removeEventListener (completion path) → settled, not pending", async () => {
    const signal = new AbortController().signal;
    Object.defineProperty(signal, "removeEventListener", {
      value: () => {
        throw new TypeError("removeEventListener exploded");
      },
    });
    const result = await send(async () => ok(), { signal });
    expect(result).toMatchObject({ ok: false, error: "network" });
    if (!result.ok && result.error === "network") expect(result.cause.message).toMatch(/removeEventListener exploded/);
  });

  it("E4: a Clock whose sleep() throws synchronously → settled with the cause", async () => {
    const clock: Clock = {
      now: () => 0,
      sleep: () => {
        throw new TypeError("sleep exploded");
      },
    };
    const result = await send(async () => ok(), { clock });
    expect(result).toMatchObject({ ok: false, error: "network" });
  });
});

describe("client: a throw inside the transport ends the call as an Outcome", () => {
  it("E4: clearTimeout throwing after every response → the GET ends as unknown with the cause", async () => {
    const h = setup();
    const client = h.makeClient({ clock: systemClock, retry: { maxAttempts: 1 } });
    const realClear = globalThis.clearTimeout;
    vi.stubGlobal("clearTimeout", (id: unknown) => {
      realClear(id as never);
      throw new TypeError("clearTimeout exploded");
    });
    const out = await client.context.get();
    vi.unstubAllGlobals();
    expect(out.kind).toBe("unknown");
    if (out.kind !== "unknown") return;
    expect(out.reason).toBe("network");
    expect(out.cause).toBeInstanceOf(NetworkError);
    expect(out.cause?.message).toMatch(/clearTimeout exploded/);
  });

  it("E4: a throwing Response getter on a write → unknown with the cause, journalled for recover()", async () => {
    const h = setup();
    const journal = createMemoryJournal();
    const client = h.makeClient({
      journal,
      retry: { maxAttempts: 1 },
      fetch: async (r: Request) => {
        await h.fetch(r); // the server did the work
        return throwingResponse("headers");
      },
    });
    const out = await client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
    expect(out.kind).toBe("unknown");
    if (out.kind !== "unknown") return;
    expect(out.cause).toBeInstanceOf(NetworkError);
    expect((await journal.get(out.commandId!))?.state).toBe("unknown");
  });

  it("E4: a Clock whose sleep throws — the call still ends as an Outcome (VirtualClock otherwise)", async () => {
    const h = setup();
    const virtual = h.clock;
    let throwNext = true;
    const clock: Clock = {
      now: () => virtual.now(),
      sleep: (ms, signal) => {
        if (throwNext && ms === 30_000) {
          throwNext = false;
          throw new TypeError("sleep exploded");
        }
        return virtual.sleep(ms, signal);
      },
    };
    const client = h.makeClient({ clock, retry: { maxAttempts: 2 } });
    const out = await client.context.get();
    // The first attempt settled with the cause; the retry went through.
    expect(out.kind).toBe("succeeded");
    expect(out.attempts.map((a) => a.error ?? a.status)).toEqual(["network", 200]);
    expect(virtual).toBeInstanceOf(VirtualClock);
  });
});
