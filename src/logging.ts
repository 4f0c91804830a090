/**
 * The `logger` option (I7: log every retry and failure): client events become structured log lines
 * on a standard logger — pino (fields first, message second) or anything console-shaped (message
 * first, fields second). Events are redacted before they get here (A4, H2), and every line carries
 * the ids a support ticket quotes: operation, Idempotency-Key, command id and X-Request-IDs.
 */
import { quietly, type ClientEvent, type EventHandler, type PacingEvent, type RecoveryEvent } from "../core";

/** A log method: console's `(message, fields)` or pino's `(fields, message)`. */
/** Whatever it returns is ignored; a promise it returns (a logger that ships lines) may reject: that is dropped, never the call's. */
export type LogMethod = (...args: unknown[]) => unknown;

/** What the `logger` option takes: `console`, a pino logger, or any object with these methods. */
export interface Logger {
  debug?: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
}

type LogLevel = "debug" | "info" | "warn" | "error";

/** A structured line: the level, a human sentence and flat fields (`event` names what happened). */
interface Line {
  level: LogLevel;
  msg: string;
  fields: Record<string, unknown>;
}

/**
 * pino and bunyan take `(fields, message)`; console, winston and most others `(message, fields)`.
 * pino is recognised by its `levels.values` map, bunyan by its `levels()` method.
 */
function fieldsFirst(logger: Logger): boolean {
  const levels = (logger as { levels?: unknown }).levels;
  if (typeof levels === "function") return true;
  return typeof levels === "object" && levels !== null && typeof (levels as { values?: unknown }).values === "object";
}

/** Drops undefined fields so a line holds only what is known. */
function clean(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in fields) if (fields[k] !== undefined) out[k] = fields[k];
  return out;
}

export function createLogHandler(logger: Logger): EventHandler {
  const objectFirst = fieldsFirst(logger);
  return (event) => {
    const line = lineOf(event);
    if (!line) return;
    const method = logger[line.level];
    if (typeof method !== "function") return; // e.g. a logger without debug
    const fields = clean(line.fields);
    // A logger that ships lines may return a promise: its rejection is the logger's, not the call's (I7).
    quietly(objectFirst ? method.call(logger, fields, line.msg) : method.call(logger, line.msg, fields));
  };
}

const ids = (e: { idempotencyKey?: string; commandId?: string }) => ({
  idempotencyKey: e.idempotencyKey,
  commandId: e.commandId,
});

function lineOf(event: ClientEvent): Line | undefined {
  switch (event.type) {
    case "attempt":
      return {
        level: "debug",
        msg: `${event.operationId}${event.lookup ? ` lookup (${event.lookup})` : ""} attempt ${event.attempt}: ${
          event.status ?? event.error ?? "no response"
        }`,
        fields: {
          event: "reseller.attempt",
          operationId: event.operationId,
          lookup: event.lookup,
          attempt: event.attempt,
          status: event.status,
          error: event.error,
          requestId: event.requestId,
          delayMs: event.delayMs,
          ...ids(event),
        },
      };
    case "retry":
      return {
        level: "info",
        msg: `${event.operationId}: retry after ${event.reason} in ${Math.round(
          event.delayMs,
        )} ms (same key and bytes)`,
        fields: {
          event: "reseller.retry",
          operationId: event.operationId,
          attempt: event.attempt,
          reason: event.reason,
          delayMs: event.delayMs,
          idempotencyKey: event.idempotencyKey,
        },
      };
    case "pause":
      return {
        level: "warn",
        msg: `${event.operationId}: 429 from the ${
          event.source === "api" ? "API limiter" : "proxy"
        }; the key's queue pauses (Retry-After ${event.retryAfter ?? "absent"})`,
        fields: {
          event: "reseller.rate_limited",
          operationId: event.operationId,
          source: event.source,
          retryAfter: event.retryAfter,
          requestId: event.requestId,
          ...ids(event),
        },
      };
    case "replay":
      return {
        level: "info",
        msg: `${event.operationId}: the server replayed its stored answer (${event.status})`,
        fields: {
          event: "reseller.replay",
          operationId: event.operationId,
          status: event.status,
          requestId: event.requestId,
          idempotencyKey: event.idempotencyKey,
        },
      };
    case "local-replay":
      return {
        level: "info",
        msg: `${event.operationId}: answered without sending (${event.source}${event.state ? `, command ${event.state}` : ""}): ${event.kind}`,
        fields: {
          event: "reseller.local_replay",
          operationId: event.operationId,
          source: event.source,
          kind: event.kind,
          state: event.state,
          ...ids(event),
        },
      };
    case "journal-race":
      return {
        level: "warn",
        msg: `${event.operationId}: the journal refused a write after the send (${event.error}); the outcome is returned, the command is ${event.currentOwner ?? "another mover"}'s now`,
        fields: {
          event: "reseller.journal_race",
          operationId: event.operationId,
          error: event.error,
          currentOwner: event.currentOwner,
          ...ids(event),
        },
      };
    case "unknown-outcome":
      return {
        level: "warn",
        msg: `${event.operationId}: outcome unknown (${event.reason}) — it may have happened; reconcile, never buy again`,
        fields: {
          event: "reseller.unknown_outcome",
          operationId: event.operationId,
          reason: event.reason,
          status: event.status,
          requestIds: event.requestIds,
          ...ids(event),
        },
      };
    case "reconcile":
      return {
        level: event.result === "lookup_failed" ? "warn" : "info",
        msg: `${event.operationId}: order lookup by external_id → ${event.result}`,
        fields: {
          event: "reseller.reconcile",
          operationId: event.operationId,
          result: event.result,
          externalId: event.externalId,
          idempotencyKey: event.idempotencyKey,
        },
      };
    case "budget-exhausted":
      return {
        level: "warn",
        msg: `${event.operationId}: retry budget exhausted (${event.available} tokens left); no more retries until calls succeed`,
        fields: {
          event: "reseller.retry_budget_exhausted",
          operationId: event.operationId,
          available: event.available,
          ...ids(event),
        },
      };
    case "deadline":
      return {
        level: "warn",
        msg: `${event.operationId}: stopped at its deadline waiting for the ${event.waitingFor}; ${
          event.sent ? "an attempt was sent — reconcile" : "nothing was sent"
        }${event.retryAt !== null ? `; the key may send again at ${new Date(event.retryAt).toISOString()}` : ""}`,
        fields: {
          event: "reseller.deadline",
          operationId: event.operationId,
          waitingFor: event.waitingFor,
          sent: event.sent,
          retryAt: event.retryAt,
          deadlineAt: event.deadlineAt,
          ...ids(event),
        },
      };
    case "proxy-anomaly":
      return {
        level: "warn",
        msg: `${event.operationId}: a 429 asked for Retry-After ${event.retryAfter}, longer than the API's own window (${event.windowMs} ms): a proxy or WAF answered`,
        fields: {
          event: "reseller.proxy_anomaly",
          operationId: event.operationId,
          retryAfter: event.retryAfter,
          retryAfterMs: event.retryAfterMs,
          windowMs: event.windowMs,
          requestId: event.requestId,
        },
      };
    case "outcome":
      return {
        level: "info",
        msg: `${event.operationId}: ${event.kind}${event.status !== undefined ? ` ${event.status}` : ""}${
          event.reason ? ` (${event.reason})` : ""
        }`,
        fields: {
          event: "reseller.outcome",
          operationId: event.operationId,
          kind: event.kind,
          status: event.status,
          reason: event.reason,
          errorCode: event.errorCode,
          reconciled: event.reconciled,
          requestIds: event.requestIds,
          ...ids(event),
        },
      };
    case "pacing":
      return pacingLine(event.event);
    case "recovery":
      return recoveryLine(event.event);
    case "lease-lost":
      return {
        level: "warn",
        msg: `fleet: worker ${event.workerId} lost its lease on command ${event.commandId} to ${event.currentOwner ?? "nobody"}; it will not send it again`,
        fields: {
          event: "reseller.fleet.lease_lost",
          commandId: event.commandId,
          workerId: event.workerId,
          currentOwner: event.currentOwner,
        },
      };
    case "lease-renew-failed":
      return {
        level: "error",
        msg: `fleet: worker ${event.workerId} could not renew its leases on ${event.commands} commands; they run out unless the journal answers again`,
        fields: {
          event: "reseller.fleet.lease_renew_failed",
          workerId: event.workerId,
          commands: event.commands,
          error: event.error instanceof Error ? event.error.message : String(event.error),
        },
      };
  }
}

function pacingLine(e: PacingEvent): Line {
  switch (e.type) {
    case "pause":
      return {
        level: "debug",
        msg: `pacer: key paused for ${e.reason}`,
        fields: { event: "reseller.pacer.pause", reason: e.reason, untilMs: e.untilMs, retryAfterMs: e.retryAfterMs },
      };
    case "limit-learned":
      return {
        level: "info",
        msg: `pacer: the key's limit is ${e.limit} per window`,
        fields: { event: "reseller.pacer.limit", limit: e.limit },
      };
    case "window-wait":
      return {
        level: "debug",
        msg: `pacer: window full, waiting ${Math.round(e.waitMs)} ms`,
        fields: { event: "reseller.pacer.window_wait", waitMs: e.waitMs },
      };
    case "store-error":
      return {
        level: "error",
        msg: `pacer: the window store failed; requests of this key wait or fail until it is back`,
        fields: {
          event: "reseller.pacer.store_error",
          error: e.error instanceof Error ? e.error.message : String(e.error),
        },
      };
  }
}

function recoveryLine(e: RecoveryEvent): Line {
  switch (e.type) {
    case "recovery-start":
      return {
        level: "info",
        msg: `recovery: examining ${e.examined} journalled commands`,
        fields: { event: "reseller.recovery.start", examined: e.examined },
      };
    case "recovery-pause":
      return {
        level: "warn",
        msg: `recovery: waiting out a journalled 429 pause`,
        fields: { event: "reseller.recovery.pause", untilMs: e.untilMs },
      };
    case "recovery-step":
      return {
        level: "debug",
        msg: `recovery: ${e.operationId} ${e.from}: ${e.action}`,
        fields: {
          event: "reseller.recovery.step",
          commandId: e.commandId,
          operationId: e.operationId,
          from: e.from,
          action: e.action,
        },
      };
    case "recovery-error":
      return {
        level: "error",
        msg: "recovery: a background round failed; the next round tries again",
        fields: {
          event: "reseller.recovery.error",
          error: e.error instanceof Error ? e.error.message : String(e.error),
        },
      };
    case "recovery-skip":
      return {
        level: "info",
        msg: `recovery: skipped ${e.operationId}: ${e.reason}`,
        fields: {
          event: "reseller.recovery.skip",
          commandId: e.commandId,
          operationId: e.operationId,
          reason: e.reason,
        },
      };
    case "recovery-result": {
      const manual = e.to === "needs_manual_check";
      return {
        level: manual ? "error" : "info",
        msg: manual
          ? `recovery: ${e.operationId} needs a manual check — open a ticket with these ids, do not buy again: ${
              e.note ?? ""
            }`
          : `recovery: ${e.operationId} ${e.from} → ${e.to}`,
        fields: {
          event: manual ? "reseller.manual_check" : "reseller.recovery.result",
          operationId: e.operationId,
          idempotencyKey: e.idempotencyKey,
          commandId: e.commandId,
          from: e.from,
          to: e.to,
          note: e.note,
          operationUuid: e.manualCheck?.operationUuid,
          domainUuid: e.manualCheck?.domainUuid,
          orderUuid: e.manualCheck?.orderUuid,
          requestIds: e.manualCheck?.requestIds,
        },
      };
    }
  }
}
