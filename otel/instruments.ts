/**
 * The client's metric instruments (names.ts lists them). Counters and histograms are recorded by
 * the span hooks and the client's events; gauges are observed from each bound client when the
 * meter collects: the pacer's window, the retry budget and the journal's non-terminal states.
 *
 * One set per meter provider (I7): every otelTelemetry() on a provider — one per key, or one per
 * client on the sdk-node global provider — shares these instruments and their ONE callback each, so
 * an asynchronous instrument never sees the same attributes observed twice in a collection (which
 * the SDK would not sum, and which made the cumulative counts drift between idle collections).
 */
import { ValueType, type Attributes, type Histogram, type Meter, type MeterProvider } from "@opentelemetry/api";
import type { ClientEvent, TelemetrySource } from "../src/index";
import { ATTR, DURATION_BUCKETS, METRIC, WAIT_BUCKETS } from "./names";

export interface Instruments {
  requestDuration: Histogram;
  /** Counts one finished command (an asynchronous counter: no SDK work per command, see below). */
  outcome(operationId: string, kind: string, reason: string | undefined): void;
  pacerWait: Histogram;
  /** A command sends again after a 429's pause: counted when the repeat starts, never for one the deadline stopped. */
  rateLimitedRetry(operationId: string): void;
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

const BY_PROVIDER = new WeakMap<MeterProvider, Instruments>();

/** The instruments of this provider's `reseller-api` meter, created on first use. */
export function instrumentsFor(provider: MeterProvider, meter: () => Meter): Instruments {
  let instruments = BY_PROVIDER.get(provider);
  if (!instruments) BY_PROVIDER.set(provider, (instruments = createInstruments(meter())));
  return instruments;
}

/** One bound client as the gauges see it; clients of one name and environment share one point. */
interface Bound {
  source: TelemetrySource;
  key: string;
  attrs: Attributes;
}

function createInstruments(meter: Meter): Instruments {
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
  const used = meter.createObservableGauge(METRIC.windowUsage, {
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
  const journal = meter.createObservableUpDownCounter(METRIC.journalCommandCount, {
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

  const bound: Bound[] = [];
  // Clients of one (environment, name) are one series: the fullest window and the emptiest budget
  // among them (they are one key, by the guide's advice), and each of their journals counted once.
  meter.addBatchObservableCallback(
    (result) => {
      const points = new Map<string, { attrs: Attributes; used: number; limit: number; budget: number }>();
      for (const { source, key, attrs } of bound) {
        const w = source.window();
        const available = source.retryBudget().available;
        const p = points.get(key);
        if (!p) points.set(key, { attrs, used: w.used, limit: w.limit, budget: available });
        else {
          if (w.limit > 0 && (p.limit === 0 || w.used / w.limit > p.used / p.limit))
            [p.used, p.limit] = [w.used, w.limit];
          p.budget = Math.min(p.budget, available);
        }
      }
      for (const p of points.values()) {
        result.observe(used, p.used, p.attrs);
        result.observe(limit, p.limit, p.attrs);
        result.observe(utilization, p.limit > 0 ? p.used / p.limit : 0, p.attrs);
        result.observe(budget, p.budget, p.attrs);
      }
    },
    [used, limit, utilization, budget],
  );
  journal.addCallback(async (result) => {
    const points = new Map<string, { attrs: Attributes; counted: Set<unknown>; counts: Map<string, number> }>();
    for (const { source, key, attrs } of bound) {
      const count = source.journalCounts;
      if (!count) continue;
      let p = points.get(key);
      if (!p) points.set(key, (p = { attrs, counted: new Set(), counts: new Map() }));
      // The same function means the same journal (src/observers.ts keeps one per journal).
      if (p.counted.has(count)) continue;
      p.counted.add(count);
      for (const [state, n] of Object.entries(await count()))
        p.counts.set(state, (p.counts.get(state) ?? 0) + (n ?? 0));
    }
    for (const p of points.values())
      for (const [state, n] of p.counts) result.observe(n, { ...p.attrs, [ATTR.commandState]: state });
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
    rateLimitedRetry(operationId) {
      retries.add(1, { [ATTR.operationId]: operationId, [ATTR.retryReason]: "rate_limited" });
    },
    observe(source, clientName) {
      const attrs = { [ATTR.environment]: source.environment, [ATTR.clientName]: clientName };
      bound.push({ source, key: `${source.environment}\n${clientName}`, attrs });
    },
    onEvent: (event) => {
      switch (event.type) {
        case "retry":
          retries.add(1, { [ATTR.operationId]: event.operationId, [ATTR.retryReason]: retryReason(event.reason) });
          break;
        case "pause":
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
