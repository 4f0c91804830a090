// Public types of the emulator (`reseller-api/emulator`). Everything here is JSON-serialisable
// except the Clock, so the same shapes travel over the /_emulator control routes.
import type { Clock } from "../runtime/clock";

export type Environment = "test" | "live";
export type Language = "ru" | "en" | "kk";
export type ResellerStatus = "active" | "restricted";

/**
 * A7: the key's API mode. `read_only` keys may use the safe methods (GET/HEAD) only; every write
 * answers 403 `forbidden` (not counted, C6).
 */
export type ApiMode = "full" | "read_only";

/** A7: the key's tariff: operations (by operationId) it does not include answer 403 `forbidden`. */
export interface TariffInput {
  name: string;
  excluded_operations: string[];
}

/** How an async domain operation moves through its lifecycle (F3), evaluated lazily from the clock. */
export interface OperationPolicy {
  /** Time spent in `pending` after acceptance (default 1000 ms). */
  pendingMs?: number | undefined;
  /** Time spent in `processing` after `pending` (default 2000 ms). */
  processingMs?: number | undefined;
  /** Where the operation ends (default "completed"). */
  outcome?: "completed" | "failed" | "uncertain" | undefined;
  /** For "uncertain": when the scheduled re-check resolves it to `completed` (default 300000 ms). */
  uncertainRecheckMs?: number | undefined;
}

export interface CreateKeyInput {
  environment: Environment;
  /** Default: every scope the API knows. */
  scopes?: string[] | undefined;
  /** C1: 1..10000, default the emulator's defaultRateLimit (120). */
  rate_limit_per_minute?: number | undefined;
  reseller_status?: ResellerStatus | undefined;
  ip_allowlist?: string[] | undefined;
  expires_at?: string | null | undefined;
  /** A7, default "full". */
  api_mode?: ApiMode | undefined;
  /** A7, default: a tariff that includes every operation. */
  tariff?: TariffInput | undefined;
  /** Omit to create a new reseller. */
  reseller_uuid?: string | undefined;
}

export interface CreatedKey {
  token: string;
  public_key_id: string;
  reseller_uuid: string;
  environment: Environment;
  scopes: string[];
  rate_limit_per_minute: number;
}

export interface KeyInfo extends CreatedKey {
  ip_allowlist: string[];
  expires_at: string | null;
  revoked: boolean;
  reseller_status: ResellerStatus;
  api_mode: ApiMode;
  tariff: TariffInput | null;
  /** A7: false when the API is disabled for the key's reseller (every request then answers 404). */
  reseller_api_enabled: boolean;
}

export interface UpdateKeyInput {
  scopes?: string[] | undefined;
  rate_limit_per_minute?: number | undefined;
  ip_allowlist?: string[] | undefined;
  expires_at?: string | null | undefined;
  api_mode?: ApiMode | undefined;
  /** null: back to a tariff that includes everything. */
  tariff?: TariffInput | null | undefined;
}

/** Bulk seeding (tests, benches): `names`, or `count` names `${prefix}${i}${zone}` for i = 1..count. */
export interface SeedDomainsInput {
  token?: string | undefined;
  public_key_id?: string | undefined;
  names?: string[] | undefined;
  count?: number | undefined;
  /** Default "bulk-". */
  prefix?: string | undefined;
  /** Default ".kz". */
  zone?: string | undefined;
  expires_at?: string | undefined;
}

export interface SeededDomains {
  created: number;
  names: string[];
}

/** A seed key may fix its token so that setups are reproducible. */
export interface SeedKey extends CreateKeyInput {
  token?: string | undefined;
}

export interface SeedDomain {
  /** The owning key (by token or public key id); the domain belongs to its reseller and environment. */
  token?: string | undefined;
  public_key_id?: string | undefined;
  name: string;
  uuid?: string | undefined;
  expires_at?: string | undefined;
}

export interface EmulatorSeed {
  keys?: SeedKey[] | undefined;
  domains?: SeedDomain[] | undefined;
}

export interface EmulatorOptions {
  clock?: Clock | undefined;
  windowMs?: number | undefined;
  replayTtlMs?: number | undefined;
  defaultRateLimit?: number | undefined;
  random?: (() => number) | undefined;
  seed?: EmulatorSeed | undefined;
  /**
   * One test and one live key (same reseller, every scope) with three domains each.
   * Default: false for `createEmulator`; for `startEmulatorServer`, true unless a `seed` is given (as the CLI).
   */
  withDefaultKeys?: boolean | undefined;
  operationPolicy?: OperationPolicy | undefined;
  language?: Language | undefined;
  /**
   * A span per API request (the control routes are not traced). The emulator only calls this hook;
   * `emulatorTracer(…)` from `reseller-api/otel` implements it with OpenTelemetry, continuing the
   * caller's W3C `traceparent`, so one trace crosses the client and the emulator.
   */
  tracer?: EmulatorTracer | undefined;
}

/** What the emulator tells its tracer about one API request as it arrives. */
export interface EmulatorRequestStart {
  method: string;
  url: string;
  /** The request's headers, to continue the caller's trace (`traceparent`); never logged by the emulator. */
  headers: Headers;
  /** The spec's path template under the base path, e.g. "/domains/{domainUuid}/renew"; null for an unknown route. */
  route: string | null;
  operationId: string | null;
}

/** How that request ended. */
export interface EmulatorRequestEnd {
  /** The answer's status; absent when the emulator hung or reset the connection instead (a fault). */
  status?: number;
  /** "hang" | "reset" when no answer was sent. */
  socketFault?: "hang" | "reset";
  requestId: string | null;
  /** The injected fault that fired, if any. */
  fault: FaultKind | null;
  /** C5: the request spent quota. */
  counted: boolean;
  /** D5: answered from the idempotency store. */
  replayed: boolean;
}

export interface EmulatorTracer {
  startRequest(request: EmulatorRequestStart): { end(result: EmulatorRequestEnd): void };
}

/** What the server adapter does with the socket instead of answering. */
export type SocketFault = { kind: "hang" } | { kind: "reset" };

export type FaultKind =
  | "timeout_before"
  | "timeout_after"
  | "reset_before"
  | "reset_after"
  | "error_500_after"
  | "error_503_before"
  | "proxy_502_html"
  | "proxy_429_date"
  | "retry_after_zero"
  | "rate_limit_no_header"
  | "truncated_json"
  | "empty_body"
  | "stuck_processing";

export interface FaultInput {
  /** HTTP method, or "*" for any. */
  method: string;
  /** Spec path template relative to the base path, e.g. "/domains/{domainUuid}/renew", or "*". */
  path: string;
  kind: FaultKind;
  /** How many matching requests it fires on (default 1). */
  times?: number | undefined;
  /** Chance per matching request, drawn from options.random (default 1). */
  probability?: number | undefined;
  /** proxy_429_date: how far ahead the HTTP-date Retry-After points (default 5 s). */
  retry_after_seconds?: number | undefined;
}

export interface FaultInfo extends Required<Omit<FaultInput, "retry_after_seconds">> {
  id: string;
  retry_after_seconds: number;
}

export interface Effect {
  kind: string;
  resource_uuid: string;
  idempotency_key: string | null;
  at: string;
  environment: Environment;
  api_key_id: string;
  reseller_uuid: string;
}

export interface RequestLogEntry {
  at: string;
  method: string;
  path: string;
  operation_id: string | null;
  public_key_id: string | null;
  status: number | null;
  /** Whether the request spent a hit of the key's window (C5, C6). */
  counted: boolean;
  replayed: boolean;
  request_id: string | null;
  fault: FaultKind | null;
}

export interface CounterInfo {
  window_started_at: string | null;
  window_ends_at: string | null;
  count: number;
  limit: number;
}

export interface DomainInfo {
  uuid: string;
  name: string;
  status: string;
  expires_at: string;
  auto_renew: boolean;
  nameservers: string[];
  created_at: string;
  updated_at: string;
}

export interface EmulatorControl {
  createKey(input: CreateKeyInput): CreatedKey;
  revokeKey(publicKeyId: string): void;
  /** New secret, same public key id, same rate counter (C7). Returns the new token. */
  rotateKey(publicKeyId: string): { token: string };
  /** Adds `amount_minor` (minor units, > 0) to the balance of the key's reseller in its environment. */
  deposit(publicKeyId: string, amountMinor: number): void;
  updateKey(publicKeyId: string, input: UpdateKeyInput): KeyInfo;
  setResellerStatus(resellerUuid: string, status: ResellerStatus): void;
  /** A7: disable (or re-enable) the API for a reseller: every request of its keys then answers 404. */
  setResellerApi(resellerUuid: string, input: { enabled: boolean }): void;
  keys(): KeyInfo[];
  createDomain(input: { token: string; name: string; expires_at?: string }): DomainInfo;
  domains(token: string): DomainInfo[];
  /** Many domains at once for one key (O(1) each; 100k in well under a second or two). */
  seedDomains(input: SeedDomainsInput): SeededDomains;
  addFault(input: FaultInput): FaultInfo;
  clearFaults(): void;
  faults(): FaultInfo[];
  effects(): Effect[];
  requests(): RequestLogEntry[];
  counters(): Record<string, CounterInfo>;
  /** Forces an operation's (or an order's) status, known or not (F3); the lifecycle stops there. */
  setOperationStatus(uuid: string, status: string): void;
  /** Only when the clock is a VirtualClock (has advance()). */
  advanceClock(ms: number): { now: string };
  /** Back to the initial state (seed and default keys, with the same tokens). */
  reset(): void;
}

export interface Emulator {
  fetch: (input: Request | string | URL, init?: RequestInit) => Promise<Response>;
  handle(request: Request, info?: { remoteAddress?: string }): Promise<Response | SocketFault>;
  control: EmulatorControl;
  close(): Promise<void>;
}
