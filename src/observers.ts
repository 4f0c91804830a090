/**
 * Who observes a client: onEvent, the `logger` and the `telemetry` option. Built once per client;
 * with none of them, the event sink is disabled and the runner skips every observation (I7).
 */
import { quietly, type ClientTelemetry, type EventHandler } from "../core";
import { LOCK_HOLDING_STATES, type CommandState, type Journal } from "../journal";
import type { Pacer } from "../pacing";
import type { RetryBudget } from "../runner";
import type { Logger } from "./logging";
import type { ResellerClientOptions } from "./options";

/**
 * The logger's line formatting is a chunk of its own, loaded when the client is created with a
 * logger. Events that arrive before it has loaded wait in order and are written as soon as it has
 * (so no line is lost or reordered); `ready` settles then, and calls wait for it before they start,
 * so every line of a call is written by the time the call resolves.
 */
function lazyLogHandler(logger: Logger): { handle: EventHandler; ready: Promise<void> } {
  let handle: EventHandler | undefined;
  let pending: Parameters<EventHandler>[0][] | undefined = [];
  const ready = import("./logging").then(({ createLogHandler }) => {
    handle = createLogHandler(logger);
    const queued = pending ?? [];
    pending = undefined;
    for (const event of queued) {
      try {
        handle(event); // a log handler: the logger's own result is made quiet in logging.ts
      } catch {
        // As for a live event: a broken logger never changes an outcome.
      }
    }
  });
  return {
    handle: (event) => {
      if (handle) handle(event);
      else pending?.push(event);
    },
    ready,
  };
}

/** onEvent and the logger, each isolated from the other's failures (telemetry has its own, narrower handler). */
export function eventHandlerOf(options: ResellerClientOptions): {
  handler: EventHandler | undefined;
  /** Settles once the logger can write (undefined without a logger). */
  loggerReady?: Promise<void>;
} {
  const handlers: EventHandler[] = [];
  if (options.onEvent) handlers.push(options.onEvent);
  const log = options.logger ? lazyLogHandler(options.logger) : undefined;
  if (log) handlers.push(log.handle);
  if (handlers.length <= 1) return { handler: handlers[0], loggerReady: log?.ready };
  return { handler: fanOut(handlers), loggerReady: log?.ready };
}

function fanOut(handlers: EventHandler[]): EventHandler {
  return (event) => {
    for (const handle of handlers) {
      try {
        quietly(handle(event));
      } catch {
        // One broken sink must not silence the others, nor change the outcome of a purchase.
      }
    }
  };
}

type Counts = Partial<Record<CommandState, number>>;
const COUNTERS = new WeakMap<Journal, () => Promise<Counts>>();

/**
 * The journal's commands in each non-terminal state, zero-filled. One function per journal, so that
 * telemetry counts a journal shared by several clients once (otel/instruments.ts relies on it); the
 * count is the store's own (`countByState`), no rows are loaded.
 */
function journalCountsOf(journal: Journal): () => Promise<Counts> {
  let count = COUNTERS.get(journal);
  if (!count) {
    count = async () => {
      // Over the unsettled states only: the stores read their unsettled index, never the history.
      const all = await journal.countByState({ states: LOCK_HOLDING_STATES });
      const counts: Counts = {};
      for (const state of LOCK_HOLDING_STATES) counts[state] = all[state] ?? 0;
      return counts;
    };
    COUNTERS.set(journal, count);
  }
  return count;
}

/**
 * What the telemetry's observable instruments read: the pacer's window, the budget, the journal.
 * Returns the telemetry this client uses (bind() may hand back one of its own).
 */
export function bindTelemetry(
  telemetry: ClientTelemetry,
  options: ResellerClientOptions,
  environment: "test" | "live",
  apiKeyId: string,
  pacer: Pacer,
  budget: RetryBudget,
  /** The budget's capacity, as resolved (resolved-options.ts applies the default). */
  capacity: number,
): ClientTelemetry {
  const url = new URL(options.baseUrl);
  const journal: Journal | undefined = options.journal;
  if (!telemetry.bind) return telemetry;
  const bound = telemetry.bind({
    environment,
    serverAddress: url.hostname,
    serverPort: url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80,
    basePath: url.pathname.replace(/\/+$/, ""),
    window() {
      const snap = pacer.snapshot(apiKeyId);
      return {
        used: snap.remaining === null ? 0 : snap.limit - snap.remaining,
        limit: snap.limit,
        pausedUntil: snap.pausedUntil,
      };
    },
    retryBudget: () => ({ available: budget.available(), capacity }),
    journalCounts: journal ? journalCountsOf(journal) : undefined,
  });
  return bound ?? telemetry;
}
