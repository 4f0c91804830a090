/**
 * The event hook (I7: log every retry and failure). Every event passes through the redactor
 * before it reaches the integrator's logger (A4, H2), and a throwing logger never breaks a call.
 */
import type { OperationId, OperationOfRole } from "../generated/operations";
import type { Redactor } from "./redact";
import type { CommandState } from "./states";
import type { OutcomeKind } from "./outcome";

/** What the pacer did for a key (C12, C3): pauses, learned limits, window waits, store failures. */
export type PacingEvent =
  | {
      type: "pause";
      apiKeyId: string;
      untilMs: number;
      reason: "retry-after" | "backoff" | "retry-after-zero";
      retryAfterMs: number | null;
    }
  | { type: "limit-learned"; apiKeyId: string; limit: number }
  | { type: "window-wait"; apiKeyId: string; waitMs: number }
  | { type: "store-error"; apiKeyId: string; error: unknown };

/** What client.recover() did to a journalled command (I7).*/
export type RecoveryEvent =
  | { type: "recovery-start"; examined: number; apiKeyId: string }
  | { type: "recovery-pause"; untilMs: number; reason: "journalled-429" }
  | { type: "recovery-step"; commandId: string; operationId: string; from: CommandState; action: string }
  | {
      type: "recovery-result";
      commandId: string;
      operationId: string;
      /** The command's Idempotency-Key: a support ticket quotes it with the request ids (F4). */
      idempotencyKey: string;
      from: CommandState;
      to: CommandState;
      note?: string;
      /** F4: what a support ticket needs, when the command now waits for a manual check. */
      manualCheck?: {
        reason: string;
        operationUuid?: string;
        domainUuid?: string;
        orderUuid?: string;
        requestIds: string[];
      };
    }
  | { type: "recovery-skip"; commandId: string; operationId: string; reason: string }
  /** A background (fleet) recovery round failed; the next round tries again. */
  | { type: "recovery-error"; error: unknown };

export type ClientEvent =
  | {
      type: "attempt";
      operationId: OperationId;
      /** Set when the request is the command's reconcile lookup (GET /orders?external_id=…, I4), not the command itself. */
      lookup?: OperationOfRole<"reconcileLookup">;
      /** 1-based: the command's attempt, or the lookup's own for a lookup. */
      attempt: number;
      status?: number;
      requestId?: string;
      delayMs: number;
      error?: string;
      idempotencyKey?: string;
      commandId?: string;
    }
  | {
      type: "retry";
      operationId: OperationId;
      attempt: number;
      delayMs: number;
      reason: string;
      idempotencyKey?: string;
    }
  | {
      type: "pause";
      operationId: OperationId;
      status: 429;
      retryAfter: string | null;
      requestId?: string;
      /** C11: the API's limiter (its `rate_limit_exceeded` envelope) or anything else in between (a proxy). */
      source: "api" | "proxy";
      idempotencyKey?: string;
      commandId?: string;
    }
  | { type: "replay"; operationId: OperationId; status: number; idempotencyKey?: string; requestId?: string }
  /**
   * A call answered WITHOUT sending (D5, G4): `journal` — the key belongs to a settled command, its
   * journalled outcome is returned; `joined` — the same call was in flight in this process;
   * `in_flight_elsewhere` — another live worker holds the command (the outcome is a `conflict`).
   */
  | {
      type: "local-replay";
      operationId: OperationId;
      source: "journal" | "joined" | "in_flight_elsewhere";
      kind: OutcomeKind;
      state?: CommandState;
      idempotencyKey?: string;
      commandId?: string;
    }
  /** The journal refused a write after a send (another worker took the command over): resolved into the Outcome, never thrown. */
  | {
      type: "journal-race";
      operationId: OperationId;
      error: "lease_lost" | "invalid_transition" | "journal_error";
      currentOwner?: string | null;
      idempotencyKey?: string;
      commandId?: string;
    }
  | {
      type: "unknown-outcome";
      operationId: OperationId;
      reason: string;
      status?: number;
      idempotencyKey?: string;
      commandId?: string;
      requestIds: string[];
    }
  | {
      type: "reconcile";
      operationId: OperationId;
      externalId?: string;
      result: "found" | "not_found" | "lookup_failed";
      idempotencyKey?: string;
    }
  | {
      type: "budget-exhausted";
      operationId: OperationId;
      available: number;
      idempotencyKey?: string;
      commandId?: string;
    }
  /** One per command, when it has its Outcome (the same fields a support ticket quotes). */
  | {
      type: "outcome";
      operationId: OperationId;
      kind: OutcomeKind;
      status?: number;
      reason?: string;
      errorCode?: string;
      reconciled?: boolean;
      idempotencyKey?: string;
      commandId?: string;
      requestIds: string[];
    }
  /**
   * The call stopped instead of waiting past its `deadlineMs`: `waitingFor` the pacer (a 429 pause,
   * a full window, the queue) or a backoff; `sent` = this call put an attempt on the wire.
   */
  | {
      type: "deadline";
      operationId: OperationId;
      waitingFor: "pause" | "window" | "queue" | "backoff" | "attempt";
      sent: boolean;
      retryAt: number | null;
      deadlineAt: number;
      idempotencyKey?: string;
      commandId?: string;
    }
  /**
   * A 429 whose Retry-After is longer than one rate-limit window: the API's own limiter never sends
   * that (C3, C11), so a proxy or WAF in between answered. The key is still paused (capped at 1 h).
   */
  | {
      type: "proxy-anomaly";
      operationId: OperationId;
      status: 429;
      retryAfter: string;
      retryAfterMs: number;
      windowMs: number;
      requestId?: string;
    }
  | { type: "pacing"; event: PacingEvent }
  /** What client.recover() did to a journalled command (I7: log every retry and reconciliation). */
  | { type: "recovery"; event: RecoveryEvent }
  /**
   * Fleet mode: this worker lost its lease on a command (it paused longer than the lease, or could
   * not reach the journal) and another worker took it over; this worker will not write or send it again.
   */
  | { type: "lease-lost"; commandId: string; workerId: string; currentOwner: string | null }
  /** Fleet mode: a heartbeat could not reach the journal; leases run out unless a later one succeeds. */
  | { type: "lease-renew-failed"; workerId: string; commands: number; error: unknown };

/** Whatever it returns is ignored; a promise it returns (a handler that ships events) may reject: that is dropped, never the call's. */
export type EventHandler = (event: ClientEvent) => unknown;

export interface EventSink {
  /** Someone wants every event (onEvent, a logger): per-attempt events are built only then. */
  readonly enabled: boolean;
  /** Someone wants at least the rare events (retries, pauses, recovery): also true for telemetry alone. */
  readonly observed: boolean;
  emit(event: ClientEvent): void;
}

/** The events a telemetry integration counts: rare ones, so a client with telemetry alone builds no per-attempt event. */
const TELEMETRY_EVENT_TYPES: ReadonlySet<ClientEvent["type"]> = new Set([
  "retry",
  "pause",
  "recovery",
  "deadline",
  "proxy-anomaly",
  "local-replay",
  "journal-race",
]);

/**
 * What a user's observer returned (onEvent, a logger's method, a telemetry hook), made harmless: a
 * promise it returns may reject, and that rejection must neither end the process as unhandled nor
 * change the call it observed (I7). Called on the result of every such callback.
 */
export function quietly(returned: unknown): void {
  if (returned === null || typeof returned !== "object") return;
  try {
    const thenable = returned as Partial<PromiseLike<unknown>>;
    if (typeof thenable.then === "function") void thenable.then(undefined, ignore);
  } catch {
    // a thenable whose `then` throws: nothing of it can reach the call
  }
}

const ignore = (): void => undefined;

/**
 * @param onEvent receives every event.
 * @param onTelemetryEvent receives only TELEMETRY_EVENT_TYPES.
 */
export function createEventSink(
  onEvent: EventHandler | undefined,
  redactor: Redactor,
  onTelemetryEvent?: EventHandler,
): EventSink {
  return {
    enabled: onEvent !== undefined,
    observed: onEvent !== undefined || onTelemetryEvent !== undefined,
    emit(event) {
      if (!onEvent && !(onTelemetryEvent && TELEMETRY_EVENT_TYPES.has(event.type))) return;
      let redacted: ClientEvent;
      try {
        redacted = redactor.value(event);
      } catch {
        return;
      }
      for (const handle of [onEvent, onTelemetryEvent]) {
        if (!handle || (handle === onTelemetryEvent && !TELEMETRY_EVENT_TYPES.has(event.type))) continue;
        try {
          quietly(handle(redacted));
        } catch {
          // A broken logger must not change the outcome of a purchase.
        }
      }
    },
  };
}
