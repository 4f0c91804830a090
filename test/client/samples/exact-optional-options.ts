// A user's app with `exactOptionalPropertyTypes: true` (type-checked by path by
// test/client/exact-optional-options.test.ts with that flag): every optional field of a public
// option type takes an explicit `undefined`, as `cond ? value : undefined` produces. Under the
// repository's own flags the checks below are vacuous, so this file compiles there too.
import {
  createResellerClient,
  type EventHandler,
  type FleetOptions,
  type ListCommandsFilter,
  type PruneOptions,
  type ResellerClientOptions,
  type RetryBudgetOptions,
  type StatePage,
  type VirtualClockOptions,
  type WriteOptions,
  type RecoverOptions,
  type PacerOptions,
  type PauseOptions,
  type BackoffOptions,
} from "../../../src/index";
import type { RedisWindowStoreOptions } from "../../../stores/redis-window-store";
import type { MemoryJournalOptions } from "../../../stores/memory-journal";
import type { SqliteJournalOptions } from "../../../stores/sqlite-journal";
import type { PgJournalOptions } from "../../../stores/pg-journal";
import type { OtelTelemetryOptions } from "../../../otel/index";
import type { EmulatorTracerOptions } from "../../../otel/emulator";
import type { EmulatorServerOptions, ServeOptions } from "../../../emulator/server";
import type {
  CreateKeyInput,
  EmulatorOptions,
  EmulatorSeed,
  FaultInput,
  OperationPolicy,
  SeedDomain,
  SeedDomainsInput,
  SeedKey,
  UpdateKeyInput,
} from "../../../emulator/types";

/** The optional keys of T. */
type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];
/** The optional keys of T that refuse an explicit `undefined` (none, for a type declared `k?: V | undefined`). */
export type RefusesUndefined<T> = {
  [K in OptionalKeys<T>]-?: Record<K, undefined> extends Pick<T, K> ? never : K;
}[OptionalKeys<T>];
/** `true` only when no optional key of T refuses `undefined`; else a type error naming the keys. */
type AcceptsUndefined<T> = [RefusesUndefined<T>] extends [never] ? true : { refusesUndefined: RefusesUndefined<T> };

type Retry = NonNullable<ResellerClientOptions["retry"]>;
type Pacing = NonNullable<ResellerClientOptions["pacing"]>;
type Continuous = Exclude<FleetOptions["continuousRecovery"], boolean | undefined>;

export const checked: true[] = [
  true satisfies AcceptsUndefined<ResellerClientOptions>,
  true satisfies AcceptsUndefined<Retry>,
  true satisfies AcceptsUndefined<Pacing>,
  true satisfies AcceptsUndefined<FleetOptions>,
  true satisfies AcceptsUndefined<Continuous>,
  true satisfies AcceptsUndefined<RetryBudgetOptions>,
  true satisfies AcceptsUndefined<VirtualClockOptions>,
  true satisfies AcceptsUndefined<WriteOptions>,
  true satisfies AcceptsUndefined<PruneOptions>,
  true satisfies AcceptsUndefined<ListCommandsFilter>,
  true satisfies AcceptsUndefined<StatePage>,
  true satisfies AcceptsUndefined<MemoryJournalOptions>,
  true satisfies AcceptsUndefined<SqliteJournalOptions>,
  true satisfies AcceptsUndefined<PgJournalOptions>,
  true satisfies AcceptsUndefined<OtelTelemetryOptions>,
  true satisfies AcceptsUndefined<EmulatorTracerOptions>,
  true satisfies AcceptsUndefined<EmulatorOptions>,
  true satisfies AcceptsUndefined<EmulatorServerOptions>,
  true satisfies AcceptsUndefined<ServeOptions>,
  true satisfies AcceptsUndefined<OperationPolicy>,
  true satisfies AcceptsUndefined<CreateKeyInput>,
  true satisfies AcceptsUndefined<UpdateKeyInput>,
  true satisfies AcceptsUndefined<SeedKey>,
  true satisfies AcceptsUndefined<SeedDomain>,
  true satisfies AcceptsUndefined<SeedDomainsInput>,
  true satisfies AcceptsUndefined<EmulatorSeed>,
  true satisfies AcceptsUndefined<FaultInput>,
  true satisfies AcceptsUndefined<RecoverOptions>,
  true satisfies AcceptsUndefined<PacerOptions>,
  true satisfies AcceptsUndefined<PauseOptions>,
  true satisfies AcceptsUndefined<BackoffOptions>,
  true satisfies AcceptsUndefined<RedisWindowStoreOptions>,
  true satisfies AcceptsUndefined<NonNullable<RedisWindowStoreOptions["failover"]>>,
];

/** What the user trial wrote: options chosen by a condition, `undefined` when it is off. */
export function clientFromConfig(config: { baseUrl: string; token: string; fast: boolean; log?: EventHandler }) {
  return createResellerClient({
    baseUrl: config.baseUrl,
    token: config.token,
    pacing: config.fast ? { maxConcurrency: 8, windowMs: undefined } : undefined,
    retry: config.fast ? undefined : { maxAttempts: 3, budget: { capacity: undefined } },
    onEvent: config.fast ? undefined : config.log,
    logger: undefined,
    journal: undefined,
    fleet: undefined,
    recoverOnStart: undefined,
  });
}
