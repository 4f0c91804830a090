/**
 * The seams where the simulation takes over: the fetch every client uses, each worker's view of the
 * shared journal and of the shared window store. Each call stops at a scheduler point first (so the
 * schedule decides when it proceeds), fails while its store is "unavailable", and reports what it did
 * to the tracker, which checks the invariants.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { inlineSha256 } from "../support/inline-digest";
import type { Emulator } from "../../emulator/index";
import type { Journal } from "../../journal";
import type { WindowStore } from "../../pacing";
import type { Activity, Scheduler } from "./scheduler";
import type { Tracker } from "./invariants";

/** The activity (an application call, a wait, a recovery round…) that the current code runs for. */
export const context = new AsyncLocalStorage<Activity>();

export interface Outages {
  journalDown(worker: string): boolean;
  storeDown(worker: string): boolean;
}

/** The emulator's fetch handler behind two points: before the server sees the request, before the answer returns. */
export function scheduledFetch(
  emulator: Emulator,
  sched: Scheduler,
  tracker: Tracker,
  worker: string,
): (input: Request | string | URL, init?: RequestInit) => Promise<Response> {
  // Two parameters: the client passes the attempt's signal in `init` (see takesSignalAsInit).
  return async function simFetch(input: Request | string | URL, init?: RequestInit): Promise<Response> {
    const request = new Request(input, init);
    const signal = init?.signal ?? request.signal;
    const act = context.getStore();
    const path = new URL(request.url).pathname.replace(/^\/api\/reseller\/v1/, "");
    const label = `${request.method} ${path.replace(/\/[0-9a-f-]{36}/g, "/:id")}`;
    await sched.point(worker, `send ${label}`, act, signal);
    const key = request.headers.get("idempotency-key");
    if (request.method !== "GET") tracker.onSend(worker, act, key);
    try {
      // The answer — or the dropped connection (reset_*) — reaches the client only when the schedule says.
      const answer = await emulator.fetch(request, { signal }).then(
        (response) => ({ response }),
        (error: unknown) => ({ error }),
      );
      await sched.point(worker, `recv ${label}`, act, signal);
      if ("error" in answer) throw answer.error;
      return answer.response;
    } finally {
      if (request.method !== "GET") tracker.onSendEnd(worker, key);
    }
  };
}

const WRITES = new Set([
  "record",
  "addAttempt",
  "transition",
  "claim",
  "renewLeases",
  "resolveManualCheck",
  "prune",
  "withdraw",
]);

/**
 * One worker's connection to the shared journal. Every method (including ones this file does not
 * know by name) is a scheduled point and fails while the journal is unavailable to this worker.
 */
export function scheduledJournal(
  inner: Journal,
  sched: Scheduler,
  tracker: Tracker,
  worker: string,
  outages: Outages,
): Journal {
  const cache = new Map<PropertyKey, unknown>();
  return new Proxy(inner, {
    get(target, name) {
      const value = Reflect.get(target, name) as unknown;
      if (typeof value !== "function" || name === "close") return value;
      if (cache.has(name)) return cache.get(name);
      const method = String(name);
      const wrapped = async (...args: unknown[]) => {
        const act = context.getStore();
        const label =
          method === "transition"
            ? `journal.transition→${String(args[1])}`
            : method === "addAttempt" && args[2]
              ? `journal.addAttempt→${(args[2] as { to: string }).to}`
              : `journal.${method}`;
        if (!WRITES.has(method)) return call(act, label, args);
        tracker.onAttempt(worker, method, args);
        try {
          return await call(act, label, args);
        } finally {
          tracker.onAttemptEnd(worker, method, args);
        }
      };
      const call = async (act: Activity | undefined, label: string, args: unknown[]) => {
        await sched.point(worker, label, act);
        if (outages.journalDown(worker)) {
          tracker.cover("journal unavailable");
          throw new Error("connect ECONNREFUSED 127.0.0.1:5432 (the simulation's journal outage)");
        }
        if (method === "claim") tracker.onClaimStart(worker, act);
        const id = typeof args[0] === "string" && method !== "findByIdempotencyKey" ? args[0] : undefined;
        return sched.withIo(async () => {
          const before = WRITES.has(method) && id ? await inner.get(id) : undefined;
          const result: unknown = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          if (WRITES.has(method)) {
            const after = id ? await inner.get(id) : undefined;
            tracker.onJournalWrite(worker, act, method, args, before, after, result);
          }
          return result;
        });
      };
      cache.set(name, wrapped);
      return wrapped;
    },
  });
}

/** One worker's connection to the shared window store (Redis in production): scheduled and failable. */
export function scheduledStore(
  inner: WindowStore,
  sched: Scheduler,
  tracker: Tracker,
  worker: string,
  outages: Outages,
): WindowStore {
  const wrap =
    <A extends unknown[], R>(name: string, fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await sched.point(worker, `store.${name}`, context.getStore());
      if (outages.storeDown(worker)) {
        tracker.cover("window store unavailable");
        throw new Error("connect ECONNREFUSED 127.0.0.1:6379 (the simulation's window store outage)");
      }
      return fn(...args);
    };
  return {
    reserve: wrap("reserve", (k, p) => inner.reserve(k, p)),
    refund: wrap("refund", (k, id) => inner.refund(k, id)),
    confirmWindowStart: wrap("confirmWindowStart", (k, id, at) => inner.confirmWindowStart(k, id, at)),
    observe: wrap("observe", (k, p) => inner.observe(k, p)),
    pauseUntil: wrap("pauseUntil", (k, u, id, closes) => inner.pauseUntil(k, u, id, closes)),
    peek: wrap("peek", (k, n) => inner.peek(k, n)),
  } as WindowStore;
}

/**
 * Randomness and hashing the client takes from the platform: UUIDs (command ids order ties in the
 * journal) come from the run's seed, and SHA-256 runs inline instead of on the thread pool, so no
 * step of a run depends on anything but its schedule.
 */
export function deterministicPlatform(random: () => number): () => void {
  const c = globalThis.crypto as Crypto & { randomUUID: () => string };
  const originalUuid = c.randomUUID.bind(c);
  const hex = () => Math.floor(random() * 16).toString(16);
  const uuid = () => {
    const s = Array.from({ length: 32 }, hex).join("");
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-4${s.slice(13, 16)}-a${s.slice(17, 20)}-${s.slice(20)}` as `${string}-${string}-${string}-${string}-${string}`;
  };
  Object.defineProperty(c, "randomUUID", { value: uuid, configurable: true, writable: true });
  const restoreDigest = inlineSha256();
  return () => {
    Object.defineProperty(c, "randomUUID", { value: originalUuid, configurable: true, writable: true });
    restoreDigest();
  };
}
