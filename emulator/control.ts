// The control API: keys, domains, faults, effects, counters, clock. In-process methods here;
// control-http.ts exposes the same under /_emulator.
import { operationList, operationTable } from "../generated/operations";
import { formatToken, parseToken } from "./auth";
import { addFault } from "./faults";
import { forceStatus, settle } from "./operations-lifecycle";
import { presentDomain } from "./resources/domains";
import { deposit, ensureDeposit } from "./resources/finance";
import type { ApiKey, Domain, State } from "./state";
import type {
  CounterInfo,
  CreatedKey,
  CreateKeyInput,
  DomainInfo,
  EmulatorControl,
  KeyInfo,
  SeedDomain,
  SeedDomainsInput,
  SeededDomains,
  SeedKey,
  TariffInput,
  UpdateKeyInput,
} from "./types";
import { addYears, iso, keySecret, parseTime, publicKeyId, uuidV4 } from "./util";
import { isDomainName } from "./validation";
import { EmulatorControlError } from "./control-error";

/** Every scope the operations table mentions. */
export const ALL_SCOPES: string[] = [...new Set(operationList.flatMap((op) => [...op.scopes]))].sort();

function checkLimit(limit: number): number {
  // C1: the provider may set 1..10000 per window.
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
    throw new EmulatorControlError(422, "rate_limit_per_minute must be 1..10000.");
  return limit;
}

const API_MODES = ["full", "read_only"] as const;

function checkMode(mode: unknown): ApiKey["apiMode"] {
  if (!(API_MODES as readonly unknown[]).includes(mode))
    throw new EmulatorControlError(422, "api_mode must be full or read_only.");
  return mode as ApiKey["apiMode"];
}

/** A7: a tariff names the operations it leaves out; they must be real operationIds. */
function checkTariff(input: TariffInput | null | undefined): ApiKey["tariff"] {
  if (input === null || input === undefined) return null;
  const excluded = Array.isArray(input.excluded_operations) ? input.excluded_operations : null;
  if (typeof input.name !== "string" || !input.name || !excluded)
    throw new EmulatorControlError(422, "tariff must be {name, excluded_operations: [operationId, …]}.");
  const unknown = excluded.filter((id) => !Object.hasOwn(operationTable, id));
  if (unknown.length > 0)
    throw new EmulatorControlError(422, `tariff.excluded_operations: unknown ${unknown.join(", ")}.`);
  return { name: input.name, excluded: new Set(excluded) };
}

function keyOr404(state: State, publicKeyId: string): ApiKey {
  const key = state.keys.get(publicKeyId);
  if (!key) throw new EmulatorControlError(404, `No API key ${publicKeyId}.`);
  return key;
}

function keyInfo(state: State, key: ApiKey): KeyInfo {
  return {
    token: formatToken(key),
    public_key_id: key.publicKeyId,
    reseller_uuid: key.resellerUuid,
    environment: key.environment,
    scopes: [...key.scopes],
    rate_limit_per_minute: key.rateLimit,
    ip_allowlist: [...key.ipAllowlist],
    expires_at: key.expiresAt === null ? null : iso(key.expiresAt),
    revoked: key.revoked,
    reseller_status: state.resellers.get(key.resellerUuid)?.status ?? "active",
    api_mode: key.apiMode,
    tariff: key.tariff && { name: key.tariff.name, excluded_operations: [...key.tariff.excluded] },
    reseller_api_enabled: state.resellers.get(key.resellerUuid)?.apiEnabled ?? true,
  };
}

export function createKey(state: State, input: SeedKey): CreatedKey {
  if (input.environment !== "test" && input.environment !== "live")
    throw new EmulatorControlError(
      422,
      `environment must be test or live, got ${JSON.stringify(input.environment) ?? "nothing"}.`,
    );
  const random = state.config.random;
  const fixed = input.token ? parseToken(input.token) : null;
  if (input.token && fixed?.environment !== input.environment)
    throw new EmulatorControlError(422, "token does not match A3.");
  const id = fixed?.publicKeyId ?? publicKeyId(random);
  if (state.keys.has(id)) throw new EmulatorControlError(409, `API key ${id} exists.`);
  let resellerUuid = input.reseller_uuid?.toLowerCase();
  resellerUuid ??= uuidV4(random);
  const reseller = state.resellers.get(resellerUuid) ?? {
    uuid: resellerUuid,
    status: "active" as const,
    apiEnabled: true,
  };
  if (input.reseller_status) reseller.status = input.reseller_status;
  state.resellers.set(resellerUuid, reseller);
  const key: ApiKey = {
    publicKeyId: id,
    secret: fixed?.secret ?? keySecret(random),
    environment: input.environment,
    resellerUuid,
    scopes: input.scopes ? [...input.scopes] : [...ALL_SCOPES],
    rateLimit: checkLimit(input.rate_limit_per_minute ?? state.config.defaultRateLimit),
    ipAllowlist: [...(input.ip_allowlist ?? [])],
    expiresAt: input.expires_at ? parseTime(input.expires_at) : null,
    revoked: false,
    apiMode: checkMode(input.api_mode ?? "full"),
    tariff: checkTariff(input.tariff),
  };
  state.keys.set(id, key);
  ensureDeposit(state, key);
  const info = keyInfo(state, key);
  return {
    token: info.token,
    public_key_id: id,
    reseller_uuid: resellerUuid,
    environment: key.environment,
    scopes: info.scopes,
    rate_limit_per_minute: key.rateLimit,
  };
}

function keyForToken(state: State, token: string | undefined, id: string | undefined): ApiKey {
  const parsed = token ? parseToken(token) : null;
  const key = state.keys.get(parsed?.publicKeyId ?? id ?? "");
  if (!key || (parsed && parsed.secret !== key.secret))
    throw new EmulatorControlError(404, "Unknown API key for the domain.");
  return key;
}

export function createDomain(state: State, input: SeedDomain): DomainInfo {
  const key = keyForToken(state, input.token, input.public_key_id);
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-conversion -- a control request's JSON may carry a non-string name
  const name = String(input.name ?? "").toLowerCase();
  if (!isDomainName(name)) throw new EmulatorControlError(422, "name must be a domain name.");
  if (state.domains.byName(key.environment, name)) {
    throw new EmulatorControlError(409, `${name} is already registered in ${key.environment}.`);
  }
  const now = state.now();
  const domain: Domain = {
    seq: state.nextSeq(),
    resellerUuid: key.resellerUuid,
    environment: key.environment,
    uuid: input.uuid?.toLowerCase() ?? uuidV4(state.config.random),
    name,
    expiresAt: parseTime(input.expires_at) ?? addYears(now, 1),
    autoRenew: false,
    nameservers: ["ns1.example.kz", "ns2.example.kz"],
    createdAt: now,
    updatedAt: now,
  };
  state.domains.set(domain.uuid, domain);
  return presentDomain(domain, now) as unknown as DomainInfo;
}

const SEED_LIMIT = 1_000_000;

/** Bulk seeding: validate everything first (nothing is created on a 409/422), then O(1) inserts. */
function seedDomains(state: State, input: SeedDomainsInput): SeededDomains {
  const key = keyForToken(state, input.token, input.public_key_id);
  let names: string[];
  if (input.names !== undefined) {
    if (!Array.isArray(input.names)) throw new EmulatorControlError(422, "names must be an array of domain names.");
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-conversion -- a control request's JSON may carry non-strings
    names = input.names.map((n) => String(n).toLowerCase());
  } else {
    const count = input.count;
    if (!Number.isSafeInteger(count) || count! < 1 || count! > SEED_LIMIT)
      throw new EmulatorControlError(422, `count must be 1..${SEED_LIMIT} (or give names).`);
    const prefix = input.prefix ?? "bulk-";
    const zone = input.zone ?? ".kz";
    names = Array.from({ length: count! }, (_, i) => `${prefix}${i + 1}${zone}`.toLowerCase());
  }
  if (names.length > SEED_LIMIT) throw new EmulatorControlError(422, `at most ${SEED_LIMIT} names at once.`);
  const fresh = new Set<string>();
  for (const name of names) {
    if (!isDomainName(name)) throw new EmulatorControlError(422, `${name} is not a domain name.`);
    if (fresh.has(name) || state.domains.byName(key.environment, name))
      throw new EmulatorControlError(409, `${name} is already registered in ${key.environment}.`);
    fresh.add(name);
  }
  const now = state.now();
  const expiresAt = parseTime(input.expires_at) ?? addYears(now, 1);
  for (const name of names) {
    const domain: Domain = {
      seq: state.nextSeq(),
      resellerUuid: key.resellerUuid,
      environment: key.environment,
      uuid: uuidV4(state.config.random),
      name,
      expiresAt,
      autoRenew: false,
      nameservers: ["ns1.example.kz", "ns2.example.kz"],
      createdAt: now,
      updatedAt: now,
    };
    state.domains.set(domain.uuid, domain);
  }
  return { created: names.length, names };
}

/** The in-process control object over one State. `reinit` restores the initial state (reset). */
export function createControl(state: State, reinit: () => void): EmulatorControl {
  return {
    createKey: (input: CreateKeyInput) => createKey(state, input),
    revokeKey(id) {
      keyOr404(state, id).revoked = true;
    },
    rotateKey(id) {
      // C7: a new secret on the same key record, so the same window and idempotency records.
      const key = keyOr404(state, id);
      key.secret = keySecret(state.config.random);
      return { token: formatToken(key) };
    },
    deposit(id, amountMinor) {
      const key = keyOr404(state, id);
      if (!Number.isSafeInteger(amountMinor) || amountMinor <= 0)
        throw new EmulatorControlError(422, "amount_minor must be a positive integer.");
      deposit(state, { resellerUuid: key.resellerUuid, environment: key.environment }, amountMinor);
    },
    updateKey(id, input: UpdateKeyInput) {
      const key = keyOr404(state, id);
      if (input.scopes) key.scopes = [...input.scopes];
      if (input.rate_limit_per_minute !== undefined) key.rateLimit = checkLimit(input.rate_limit_per_minute);
      if (input.ip_allowlist) key.ipAllowlist = [...input.ip_allowlist];
      if (input.expires_at !== undefined)
        key.expiresAt = input.expires_at === null ? null : parseTime(input.expires_at);
      if (input.api_mode !== undefined) key.apiMode = checkMode(input.api_mode);
      if (input.tariff !== undefined) key.tariff = checkTariff(input.tariff);
      return keyInfo(state, key);
    },
    setResellerStatus(uuid, status) {
      const reseller = state.resellers.get(uuid);
      if (!reseller) throw new EmulatorControlError(404, `No reseller ${uuid}.`);
      reseller.status = status;
    },
    setResellerApi(uuid, input) {
      const reseller = state.resellers.get(uuid);
      if (!reseller) throw new EmulatorControlError(404, `No reseller ${uuid}.`);
      if (typeof input?.enabled !== "boolean") throw new EmulatorControlError(422, "enabled must be true or false.");
      reseller.apiEnabled = input.enabled;
    },
    keys: () => [...state.keys.values()].map((k) => keyInfo(state, k)),
    createDomain: (input) => createDomain(state, input),
    seedDomains: (input) => seedDomains(state, input),
    domains(token) {
      settle(state);
      const key = keyForToken(state, token, undefined);
      return state.domains.owned(key).map((d) => presentDomain(d, state.now()) as unknown as DomainInfo);
    },
    addFault(input) {
      try {
        return addFault(state, input);
      } catch (error) {
        throw new EmulatorControlError(422, (error as Error).message);
      }
    },
    clearFaults() {
      state.faults = [];
    },
    faults: () => state.faults.map((f) => ({ ...f })),
    effects: () => state.effects.map((e) => ({ ...e })),
    requests: () => state.requestLog.map((r) => ({ ...r })),
    counters() {
      const out: Record<string, CounterInfo> = {};
      const now = state.now();
      for (const key of state.keys.values()) {
        const w = state.windows.get(key.publicKeyId);
        const open = w && now < w.startedAt + state.config.windowMs;
        out[key.publicKeyId] = {
          window_started_at: open ? iso(w.startedAt) : null,
          window_ends_at: open ? iso(w.startedAt + state.config.windowMs) : null,
          count: open ? w.count : 0,
          limit: key.rateLimit,
        };
      }
      return out;
    },
    setOperationStatus(uuid, status) {
      settle(state);
      if (typeof status !== "string" || !status)
        throw new EmulatorControlError(422, "status must be a non-empty string.");
      if (!forceStatus(state, uuid.toLowerCase(), status))
        throw new EmulatorControlError(404, `No operation or order ${uuid}.`);
    },
    advanceClock(ms) {
      const clock = state.config.clock as { advance?: (ms: number) => void };
      if (typeof clock.advance !== "function") throw new EmulatorControlError(409, "The clock is not a VirtualClock.");
      if (!(ms >= 0)) throw new EmulatorControlError(422, "ms must be ≥ 0.");
      clock.advance(ms);
      settle(state);
      return { now: iso(state.now()) };
    },
    reset: reinit,
  };
}
