/**
 * Metric and attribute names, in one place so dashboards, the guide and the tests agree. They follow
 * the OpenTelemetry naming rules: dot-separated lowercase namespaces, UCUM units set on the
 * instrument (never in the name), no `_total` suffix, and only bounded attributes — never a domain,
 * a UUID, an Idempotency-Key or a key id on a metric. An amount in use, its limit and their ratio are
 * `.usage`, `.limit` and `.utilization` (as `system.memory.*`); an UpDownCounter of things is the
 * singular `.count`, never a plural; counters of discrete events (retries, outcomes) are plural.
 */

export const INSTRUMENTATION_NAME = "reseller-api";

/** Stable HTTP client semantic conventions (v1.23+) used on attempt spans and the duration histogram. */
export const HTTP = {
  method: "http.request.method",
  statusCode: "http.response.status_code",
  resendCount: "http.request.resend_count",
  urlTemplate: "url.template",
  urlFull: "url.full",
  serverAddress: "server.address",
  serverPort: "server.port",
  errorType: "error.type",
  route: "http.route",
  urlPath: "url.path",
} as const;

/** This library's own attributes (the `reseller.` namespace). */
export const ATTR = {
  operationId: "reseller.operation_id",
  idempotencyKey: "reseller.idempotency_key",
  commandId: "reseller.command_id",
  requestId: "reseller.request_id",
  outcomeKind: "reseller.outcome.kind",
  outcomeReason: "reseller.outcome.reason",
  errorCode: "reseller.error.code",
  reconciled: "reseller.reconciled",
  replayed: "reseller.replayed",
  /** Answered without sending: `journal`, `joined` or `in_flight_elsewhere` (D5, G4). */
  localReplay: "reseller.local_replay",
  statusClass: "reseller.status_class",
  retryReason: "reseller.retry.reason",
  rateLimitSource: "reseller.rate_limit.source",
  waitKind: "reseller.wait.kind",
  waitReason: "reseller.wait.reason",
  waitMs: "reseller.wait.duration_ms",
  rateLimitLimit: "reseller.rate_limit.limit",
  rateLimitRemaining: "reseller.rate_limit.remaining",
  commandState: "reseller.command.state",
  recoveryFrom: "reseller.recovery.from",
  recoveryResult: "reseller.recovery.result",
  environment: "reseller.environment",
  clientName: "reseller.client.name",
  deadlineWaitingFor: "reseller.deadline.waiting_for",
  deadlineSent: "reseller.deadline.sent",
  deadlineRetryAt: "reseller.deadline.retry_at",
  retryAfterMs: "reseller.rate_limit.retry_after_ms",
  windowMs: "reseller.rate_limit.window_ms",
  fault: "reseller.emulator.fault",
  counted: "reseller.emulator.counted",
} as const;

export const METRIC = {
  /**
   * Histogram, s: every HTTP attempt (stable semconv name). Its count, by `reseller.status_class`
   * (2xx, 4xx, 5xx, none when no response came), is the request count: no separate counter to pay for.
   */
  requestDuration: "http.client.request.duration",
  /** Counter, {retry}: retries by reason, counted when the repeat starts (a repeat after a 429 pause: reason `rate_limited`). */
  retries: "reseller.client.retries",
  /** Counter, {response}: 429 answers, by source (the API's limiter or a proxy). */
  rateLimited: "reseller.client.rate_limited",
  /** Counter (asynchronous, cumulative), {command}: command outcomes by kind. */
  outcomes: "reseller.client.outcomes",
  /** Histogram, s: time an attempt waited for the pacer's slot, by reason (only attempts that waited). */
  pacerWait: "reseller.client.pacer.wait.duration",
  /** Gauge, 1: sends counted in the key's open window ÷ its limit, as the pacer sees it. */
  windowUtilization: "reseller.client.window.utilization",
  /** Gauge, {request}: sends counted in the open window. */
  windowUsage: "reseller.client.window.usage",
  /** Gauge, {request}: the key's limit per window. */
  windowLimit: "reseller.client.window.limit",
  /** Gauge, {token}: tokens left in the retry budget. */
  retryBudget: "reseller.client.retry_budget.tokens",
  /** UpDownCounter (observable), {command}: journalled commands in each non-terminal state. */
  journalCommandCount: "reseller.client.journal.command.count",
  /** Counter, {command}: recovery results by target state (needs_manual_check included). */
  recoveries: "reseller.client.recoveries",
  /**
   * Counter, {call}: calls stopped at their `deadlineMs`, by what they were waiting for (pause, window,
   * queue, backoff, attempt) and whether they had sent anything (`reseller.deadline.sent`).
   */
  deadlines: "reseller.client.deadlines",
  /** Counter, {response}: 429s whose Retry-After exceeds one rate-limit window — a proxy's, not the API's. */
  proxyAnomalies: "reseller.client.proxy_anomalies",
} as const;

/** Span event names on the command span (pacing, Retry-After and backoff waits are `reseller.wait`). */
export const SPAN_EVENT = {
  wait: "reseller.wait",
  deadline: "reseller.deadline",
  proxyAnomaly: "reseller.proxy_anomaly",
} as const;

/** Pacer-wait histogram buckets, s: from "free at once" to a full 60 s window. */
export const WAIT_BUCKETS = [0, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60];
/** HTTP duration buckets recommended by the HTTP semantic conventions, s. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
