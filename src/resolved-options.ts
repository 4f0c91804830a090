/**
 * The client's options resolved ONCE: every default applied here, from core/defaults.ts, into one
 * object that the composition root (client.ts), call(), the runner, the pacer, recover() and fleet
 * mode read. Nothing downstream re-applies a default (`?? DEFAULT_*`). Validation comes first
 * (options.ts: checkOptions), so what is resolved here is already known to be well-formed.
 */
import { systemClock, type Clock } from "../runtime/clock";
import { DEFAULT_CALL, DEFAULT_FLEET, DEFAULT_PACING, DEFAULT_RETRY, DEFAULT_RETRY_BUDGET } from "../core";
import type { RecoverSummary } from "../recovery";
import type { WindowStore } from "../pacing";
import type { ResellerClientOptions } from "./options";

export interface ResolvedFleet {
  workerId: string;
  leaseMs: number;
  heartbeatMs: number;
  /** Background recovery rounds; undefined when `continuousRecovery` is off. */
  continuousRecovery:
    { intervalMs: number; batch: number; concurrency: number; onRound?: (summary: RecoverSummary) => void } | undefined;
}

export interface ResolvedOptions {
  clock: Clock;
  random: () => number;
  timeoutMs: number;
  deadlineMs: number;
  maxResponseBytes: number;
  retry: {
    maxAttempts: number;
    baseMs: number;
    capMs: number;
    maxRateLimitRetries: number;
    budget: { capacity: number; retryCost: number; timeoutCost: number; successRefill: number };
  };
  pacing: {
    windowMs: number;
    initialLimit: number;
    maxConcurrency: number;
    /** undefined: the process-wide in-memory store of this clock (client.ts). */
    store: WindowStore | undefined;
  };
  allowLiveOnlyWithTestKey: boolean;
  allowInsecureHttp: boolean;
  /** Fleet mode with every default applied; undefined without `fleet` (or without a journal). */
  fleet: ResolvedFleet | undefined;
}

/** Applies every default once. `options` has passed checkOptions(). */
export function resolveOptions(options: ResellerClientOptions): ResolvedOptions {
  const retry = options.retry ?? {};
  const pacing = options.pacing ?? {};
  return {
    clock: options.clock ?? systemClock,
    random: options.random ?? Math.random,
    timeoutMs: options.timeoutMs ?? DEFAULT_CALL.timeoutMs,
    deadlineMs: options.deadlineMs ?? DEFAULT_CALL.deadlineMs,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_CALL.maxResponseBytes,
    retry: {
      maxAttempts: retry.maxAttempts ?? DEFAULT_RETRY.maxAttempts,
      baseMs: retry.baseMs ?? DEFAULT_RETRY.baseMs,
      capMs: retry.capMs ?? DEFAULT_RETRY.capMs,
      maxRateLimitRetries: retry.maxRateLimitRetries ?? DEFAULT_RETRY.maxRateLimitRetries,
      budget: { ...DEFAULT_RETRY_BUDGET, ...definedOnly(retry.budget) },
    },
    pacing: {
      windowMs: pacing.windowMs ?? DEFAULT_PACING.windowMs,
      initialLimit: pacing.initialLimit ?? DEFAULT_PACING.initialLimit,
      maxConcurrency: pacing.maxConcurrency ?? DEFAULT_PACING.maxConcurrency,
      store: pacing.store,
    },
    allowLiveOnlyWithTestKey: options.allowLiveOnlyWithTestKey ?? false,
    allowInsecureHttp: options.allowInsecureHttp ?? false,
    fleet: options.fleet && options.journal ? resolveFleet(options.fleet) : undefined,
  };
}

function resolveFleet(fleet: NonNullable<ResellerClientOptions["fleet"]>): ResolvedFleet {
  const leaseMs = fleet.leaseMs ?? DEFAULT_FLEET.leaseMs;
  const cr = fleet.continuousRecovery;
  const config = cr === true ? {} : cr === false ? undefined : cr;
  return {
    workerId: fleet.workerId ?? `worker-${crypto.randomUUID()}`,
    leaseMs,
    heartbeatMs: fleet.heartbeatMs ?? leaseMs / DEFAULT_FLEET.heartbeatsPerLease,
    continuousRecovery: config && {
      intervalMs: config.intervalMs ?? DEFAULT_FLEET.recoveryIntervalMs,
      batch: config.batch ?? DEFAULT_FLEET.recoveryBatch,
      concurrency: config.concurrency ?? DEFAULT_FLEET.recoveryConcurrency,
      onRound: config.onRound,
    },
  };
}

/** `{ capacity: undefined }` must not override a default with undefined. */
function definedOnly<T extends object>(value: T | undefined): Partial<T> {
  if (!value) return {};
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
