/**
 * Telemetry hooks (I7: monitor retries to tune the settings): what a tracer/meter integration such
 * as `reseller-api/otel` receives. The runner calls them only when a `telemetry` option was given,
 * so a client without one does no extra work per call. Nothing passed here carries a body, the
 * token or a header value other than the ones listed: an integration cannot leak what it never sees.
 */
import type { ClientEvent } from "./events";
import type { OutcomeKind } from "./outcome";
import type { CommandState } from "./states";

/** Why an attempt waited before it was sent. */
export type WaitKind =
  /** The key's queue after a 429 (C12): Retry-After plus margin, or backoff when it had none. */
  | "retry_after"
  /** The fixed window's sends were used up; the next window opens later (C3, I3). */
  | "window_full"
  /** Even spacing between sends of one key (C8). */
  | "spacing"
  /** Too many requests of this key in flight in this process (C8). */
  | "concurrency"
  /** Exponential backoff with jitter before a retry after a 5xx, a reset or a timeout (I2). */
  | "backoff";

export interface CommandStartInfo {
  operationId: string;
  /** HTTP method of the operation. */
  method: string;
  /** The operation's path template relative to the base path, e.g. "/domains/{domainUuid}/renew". */
  pathTemplate: string;
  /** The Idempotency-Key sent (writes only, D1). */
  idempotencyKey?: string;
  /** The journal's command id, when a journal records the call. */
  commandId?: string;
}

export interface AttemptStartInfo {
  /** 1 for the first attempt of the command. */
  attempt: number;
  method: string;
  /** Absolute URL of this attempt (its query may hold an external_id; never a secret). */
  url: string;
  /** Path template relative to the base path when it is not the command's own ("/orders" for a reconcile lookup). */
  pathTemplate?: string;
  /** The X-Request-ID this attempt sends (G2). */
  requestId: string;
}

export interface AttemptEndInfo {
  /** HTTP status, absent when no response came. */
  status?: number;
  /** "timeout" | "network" | "aborted" when no response came. */
  transportError?: "timeout" | "network" | "aborted";
  /** X-Request-ID the server answered with (or the one sent). */
  requestId: string;
  /** X-RateLimit-Limit / -Remaining of the response, when present (C10). */
  rateLimitLimit?: number | null;
  rateLimitRemaining?: number | null;
}

export interface CommandEndInfo {
  /** The Outcome's kind; absent when the call threw instead (see `thrown`). */
  kind?: OutcomeKind;
  /** Why an `unknown` outcome is unknown (timeout, network, server_error, …). */
  reason?: string;
  /** Last HTTP status, when one came. */
  status?: number;
  /** ErrorEnvelope code of the last response, when it had one. */
  errorCode?: string;
  /** Found by external_id after an unknown outcome (I4). */
  reconciled?: boolean;
  replayed?: boolean;
  /**
   * Answered without sending: from the journal (a settled command's key), joined to a call in flight
   * in this process, or a command another worker holds (D5, G4).
   */
  localReplay?: "journal" | "joined" | "in_flight_elsewhere";
  /** reason "deadline" only: whether the call put an attempt on the wire (false: calling again is safe). */
  sent?: boolean;
  /** reason "deadline" only: the earliest time worth calling again (ms since the epoch), null when unknown. */
  retryAt?: number | null;
  /** Every attempt's X-Request-ID, in order. */
  requestIds: string[];
  /** A thrown error instead of an outcome (caller abort before sending, a broken journal). */
  thrown?: { name: string; message: string };
}

export interface AttemptTelemetry {
  end(info: AttemptEndInfo): void;
}

export interface CommandTelemetry {
  /** The pacer granted the next attempt's slot after `ms` (0 when it was free at once) and why it waited. */
  slot(ms: number, reason?: Exclude<WaitKind, "backoff">): void;
  /** A backoff sleep of `ms` before a retry (I2); `reason` is what failed ("timeout", "status 503" …). */
  backoff(ms: number, reason: string): void;
  /**
   * An attempt is about to be sent. `setHeader` adds a header to THIS attempt (e.g. W3C
   * `traceparent`); it never touches the Idempotency-Key, the body or the fingerprint (D4).
   */
  startAttempt(info: AttemptStartInfo, setHeader: (name: string, value: string) => void): AttemptTelemetry;
  end(info: CommandEndInfo): void;
}

/** Read-only views for observable instruments, polled by the integration when it collects. */
export interface TelemetrySource {
  environment: "test" | "live";
  /** The base URL's host and port (server.address / server.port). */
  serverAddress: string;
  serverPort: number;
  /** Base path of the API, e.g. "/api/reseller/v1" (url.template is base path + path template). */
  basePath: string;
  /** The key's window as the pacer sees it: sends counted in the open window, and the limit. */
  window(): { used: number; limit: number; pausedUntil: number | null };
  /** Tokens left in the retry budget (I2) and its capacity. */
  retryBudget(): { available: number; capacity: number };
  /** Commands in each non-terminal journal state (needs_manual_check included); absent without a journal. */
  journalCounts?: () => Promise<Partial<Record<CommandState, number>>>;
}

export interface ClientTelemetry {
  /**
   * Called once per client by createResellerClient with what observable instruments read. It may
   * return the telemetry that client should use (one that knows its server address), so that one
   * instance can serve several clients; nothing returned keeps this one.
   */
  bind?(source: TelemetrySource): ClientTelemetry | undefined;
  /** A command starts (a facade call, a paged call's page, a recovery resend, an operations.wait poll). */
  startCommand(info: CommandStartInfo): CommandTelemetry;
  /**
   * The rare client events it counts — `retry`, `pause`, `recovery`, `deadline` and `proxy-anomaly`
   * (TELEMETRY_EVENT_TYPES) — already redacted.
   */
  onEvent?: (event: ClientEvent) => void;
}

const noop = (): void => undefined;
const NOOP_ATTEMPT: AttemptTelemetry = { end: noop };
const NOOP_COMMAND: CommandTelemetry = {
  slot: noop,
  backoff: noop,
  startAttempt: () => NOOP_ATTEMPT,
  end: noop,
};

/** An attempt scope whose failures are swallowed. */
class GuardedAttempt implements AttemptTelemetry {
  constructor(private readonly inner: AttemptTelemetry) {}
  end(info: AttemptEndInfo): void {
    try {
      this.inner.end(info);
    } catch {
      // Telemetry must never change the outcome of a purchase (as with a broken logger).
    }
  }
}

/** A command scope whose failures are swallowed. */
class GuardedCommand implements CommandTelemetry {
  constructor(private readonly inner: CommandTelemetry) {}
  slot(ms: number, reason?: Exclude<WaitKind, "backoff">): void {
    try {
      this.inner.slot(ms, reason);
    } catch {
      // see GuardedAttempt
    }
  }
  backoff(ms: number, reason: string): void {
    try {
      this.inner.backoff(ms, reason);
    } catch {
      // see GuardedAttempt
    }
  }
  startAttempt(info: AttemptStartInfo, setHeader: (name: string, value: string) => void): AttemptTelemetry {
    try {
      return new GuardedAttempt(this.inner.startAttempt(info, setHeader));
    } catch {
      return NOOP_ATTEMPT;
    }
  }
  end(info: CommandEndInfo): void {
    try {
      this.inner.end(info);
    } catch {
      // see GuardedAttempt
    }
  }
}

/** Wraps a ClientTelemetry so that a throwing integration can never fail, or change, a call. */
export function guardTelemetry(telemetry: ClientTelemetry): ClientTelemetry {
  return {
    bind(source) {
      try {
        const bound = telemetry.bind?.(source);
        return bound ? guardTelemetry(bound) : undefined;
      } catch {
        return undefined; // no gauges then; calls go on
      }
    },
    onEvent: telemetry.onEvent ? (event) => telemetry.onEvent!(event) : undefined,
    startCommand(info) {
      try {
        return new GuardedCommand(telemetry.startCommand(info));
      } catch {
        return NOOP_COMMAND;
      }
    },
  };
}
