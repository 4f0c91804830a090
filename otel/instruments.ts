/**
 * The client's metric instruments (names.ts lists them). Counters and histograms are recorded by
 * the span hooks and the client's events; gauges are observed from each bound client when the
 * meter collects: the pacer's window, the retry budget and the journal's non-terminal states.
 */
import { ValueType, type Attributes, type Histogram, type Meter } from "@opentelemetry/api";
import type { ClientEvent, TelemetrySource } from "../src/index";
import { ATTR, DURATION_BUCKETS, METRIC, WAIT_BUCKETS } from "./names";

export interface Instruments {
  requestDuration: Histogram;
  /** Counts one finished command (an asynchronous counter: no SDK work per command, see below). */
  outcome(operationId: string, kind: string, reason: string | undefined): void;
  pacerWait: Histogram;
  /** Adds one client's observable views (called by bind()). */
  observe(source: TelemetrySource, clientName: string): void;
  /** Retries, 429s, recovery results, deadlines and proxy anomalies, from the client's (redacted) events. */
  onEvent: (event: ClientEvent) => void;
}

/** "status 503" → "server_error"; "timeout", "network", "malformed_response" as they are. */
function retryReason(reason: string): string {
  const m = /^status (\d)\d\d$/.exec(reason);
  if (!m) return reason === "timeout" || reason === "network" || reason === "malformed_response" ? reason : "other";
  return m[1] === "5" ? "server_error" : `status_${m[1]}xx`;
}

export function createInstruments(meter: Meter): Instruments {
  const requestDuration = meter.createHistogram(METRIC.requestDuration, {
    description:
      "Duration of HTTP client requests, one per attempt; its count by reseller.status_class is the request count.",
    unit: "s",
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const retries = meter.createCounter(METRIC.retries, {
    description: "Retries of a command with the same key and bytes, by reason (rate_limited for a 429 pause).",
    unit: "{retry}",
    valueType: ValueType.INT,
  });
  const rateLimited = meter.createCounter(METRIC.rateLimited, {
    description: "429 answers, by source: api (the limiter's rate_limit_exceeded envelope) or proxy.",
    unit: "{response}",
    valueType: ValueType.INT,
  });
  const outcomes = meter.createObservableCounter(METRIC.outcomes, {
    description: "Commands finished, by outcome kind (succeeded, accepted, rejected, conflict, unknown).",
    unit: "{command}",
    valueType: ValueType.INT,
  });
  const pacerWait = meter.createHistogram(METRIC.pacerWait, {
    description:
      "Time an attempt waited for the pacer's slot, by reason; attempts whose slot was free at once are not recorded.",
    unit: "s",
    advice: { explicitBucketBoundaries: WAIT_BUCKETS },
  });
  const recoveries = meter.createCounter(METRIC.recoveries, {
    description: "Journalled commands settled by recover(), by the state they reached (needs_manual_check included).",
    unit: "{command}",
    valueType: ValueType.INT,
  });
  const deadlines = meter.createCounter(METRIC.deadlines, {
    description:
      "Calls stopped at their deadlineMs instead of waiting on, by what they waited for and whether they had sent anything.",
    unit: "{call}",
    valueType: ValueType.INT,
  });
  const proxyAnomalies = meter.createCounter(METRIC.proxyAnomalies, {
    description:
      "429 answers whose Retry-After is longer than one rate-limit window: a proxy's or a WAF's, not the API's.",
    unit: "{response}",
    valueType: ValueType.INT,
  });
  const utilization = meter.createObservableGauge(METRIC.windowUtilization, {
    description: "Sends counted in the key's open rate-limit window divided by its limit, as the pacer sees it.",
    unit: "1",
  });
  const used = meter.createObservableGauge(METRIC.windowUsed, {
    description: "Sends counted in the key's open rate-limit window.",
    unit: "{request}",
    valueType: ValueType.INT,
  });
  const limit = meter.createObservableGauge(METRIC.windowLimit, {
    description: "The key's limit per rate-limit window, as learnt from GET /context or X-RateLimit-Limit.",
    unit: "{request}",
    valueType: ValueType.INT,
  });
  const budget = meter.createObservableGauge(METRIC.retryBudget, {
    description: "Tokens left in the client's retry budget; at 0 every command makes one attempt only.",
    unit: "{token}",
  });
  const journal = meter.createObservableUpDownCounter(METRIC.journalCommands, {
    description: "Journalled commands of this key in each non-terminal state; needs_manual_check waits for a human.",
    unit: "{command}",
    valueType: ValueType.INT,
  });

  // Outcomes happen once per command: counted here with a string key and reported as a cumulative
  // asynchronous counter at collection, so the SDK hashes their attributes per export, not per command.
  const outcomeCounts = new Map<string, { n: number; attrs: Attributes }>();
  outcomes.addCallback((result) => {
    for (const { n, attrs } of outcomeCounts.values()) result.observe(n, attrs);
  });

  const sources: { source: TelemetrySource; attrs: Attributes }[] = [];
  meter.addBatchObservableCallback(
    (result) => {
      for (const { source, attrs } of sources) {
        const w = source.window();
        result.observe(used, w.used, attrs);
        result.observe(limit, w.limit, attrs);
        result.observe(utilization, w.limit > 0 ? w.used / w.limit : 0, attrs);
        result.observe(budget, source.retryBudget().available, attrs);
      }
    },
    [used, limit, utilization, budget],
  );
  journal.addCallback(async (result) => {
    for (const { source, attrs } of sources) {
      if (!source.journalCounts) continue;
      const counts = await source.journalCounts();
      for (const [state, n] of Object.entries(counts)) result.observe(n ?? 0, { ...attrs, [ATTR.commandState]: state });
    }
  });

  return {
    requestDuration,
    outcome(operationId, kind, reason) {
      const key = reason === undefined ? `${operationId}\n${kind}` : `${operationId}\n${kind}\n${reason}`;
      const entry = outcomeCounts.get(key);
      if (entry) entry.n += 1;
      else {
        const attrs: Attributes = { [ATTR.operationId]: operationId, [ATTR.outcomeKind]: kind };
        if (reason !== undefined) attrs[ATTR.outcomeReason] = reason;
        outcomeCounts.set(key, { n: 1, attrs });
      }
    },
    pacerWait,
    observe(source, clientName) {
      sources.push({ source, attrs: { [ATTR.environment]: source.environment, [ATTR.clientName]: clientName } });
    },
    onEvent: (event) => {
      switch (event.type) {
        case "retry":
          retries.add(1, { [ATTR.operationId]: event.operationId, [ATTR.retryReason]: retryReason(event.reason) });
          break;
        case "pause":
          retries.add(1, { [ATTR.operationId]: event.operationId, [ATTR.retryReason]: "rate_limited" });
          rateLimited.add(1, { [ATTR.operationId]: event.operationId, [ATTR.rateLimitSource]: event.source });
          break;
        case "recovery":
          if (event.event.type === "recovery-result") {
            recoveries.add(1, {
              [ATTR.operationId]: event.event.operationId,
              [ATTR.recoveryFrom]: event.event.from,
              [ATTR.recoveryResult]: event.event.to,
            });
          }
          break;
        case "deadline":
          deadlines.add(1, {
            [ATTR.operationId]: event.operationId,
            [ATTR.deadlineWaitingFor]: event.waitingFor,
            [ATTR.deadlineSent]: event.sent,
          });
          break;
        case "proxy-anomaly":
          proxyAnomalies.add(1, { [ATTR.operationId]: event.operationId });
          break;
        default:
          break; // the client hands telemetry only TELEMETRY_EVENT_TYPES
      }
    },
  };
}
