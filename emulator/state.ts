// The emulator's whole memory. Resources carry reseller + environment so every lookup can scope (A8).
import type { Clock } from "../runtime/clock";
import type {
  ApiMode,
  Effect,
  Environment,
  FaultInfo,
  Language,
  OperationPolicy,
  RequestLogEntry,
  ResellerStatus,
} from "./types";
import { DomainMap, MultiIndex, OwnedMap, ownerKeyOf } from "./indexes";
import type { Random } from "./util";

export interface Reseller {
  uuid: string;
  status: ResellerStatus;
  /** A7: false = the API is disabled for this reseller (404 everywhere). */
  apiEnabled: boolean;
}

export interface ApiKey {
  publicKeyId: string;
  secret: string;
  environment: Environment;
  resellerUuid: string;
  scopes: string[];
  rateLimit: number;
  ipAllowlist: string[];
  expiresAt: number | null;
  revoked: boolean;
  /** A7. */
  apiMode: ApiMode;
  /** A7: operationIds the key's tariff does not include; null = everything included. */
  tariff: { name: string; excluded: Set<string> } | null;
}

/** Everything owned by one reseller in one environment (A3: test and live never share data). */
interface Owned {
  seq: number;
  resellerUuid: string;
  environment: Environment;
}

export interface Domain extends Owned {
  uuid: string;
  name: string;
  expiresAt: number;
  autoRenew: boolean;
  nameservers: string[];
  createdAt: number;
  updatedAt: number;
  /** Generated on first request (sensitive, never logged). */
  authCode?: string;
}

export type OperationAction = "renew" | "sync" | "update_nameservers";

export interface Operation extends Owned {
  uuid: string;
  domainUuid: string;
  action: OperationAction;
  createdAt: number;
  /** Lifecycle timings fixed at acceptance (F3); status is derived from them and the clock. */
  policy: Required<OperationPolicy>;
  /** A status forced through the control API; the lifecycle stops there. */
  forcedStatus: string | null;
  forcedAt: number | null;
  /** Set once completion/failure side effects (domain change, refund) have been applied. */
  settled: boolean;
  /** What the operation does on completion. */
  payload: { period?: number; nameservers?: string[]; chargeMinor?: number };
  /** Cached for the snapshot: status and times as of the last settle(). */
  status: string;
  completedAt: number | null;
  nextCheckAt: number | null;
  error: { code: string; message: string } | null;
  /** [] until completed, then what changed (F2: `result` is [] or an object). */
  result: unknown;
}

export interface Order extends Owned {
  uuid: string;
  externalId: string;
  action: "register";
  domain: string;
  period: number;
  nameservers: string[];
  amountMinor: number;
  createdAt: number;
  updatedAt: number;
  policy: Required<OperationPolicy>;
  forcedStatus: string | null;
  status: string;
  domainUuid: string | null;
  settled: boolean;
}

export interface LedgerEntry extends Owned {
  uuid: string;
  type: "charge" | "refund" | "deposit";
  amountMinor: number;
  balanceAfterMinor: number;
  description: string;
  orderUuid: string | null;
  operationUuid: string | null;
  createdAt: number;
}

export interface Webhook extends Owned {
  uuid: string;
  url: string;
  events: string[];
  isActive: boolean;
  signingSecret: string;
  createdAt: number;
  updatedAt: number;
  deleted: boolean;
}

export interface TicketMessage {
  uuid: string;
  author: "reseller" | "support";
  body: string;
  createdAt: number;
}

export interface Ticket extends Owned {
  uuid: string;
  subject: string;
  status: "open" | "answered" | "closed";
  messages: TicketMessage[];
  createdAt: number;
  updatedAt: number;
}

/** An HTTP idempotency record (D5, D6), scoped per API-key record. */
export interface IdempotencyRecord {
  fingerprint: string;
  reservedAt: number;
  state: "processing" | "completed";
  status?: number;
  body?: string | null;
}

/** D7: the durable key → task binding of async domain operations, beyond the replay TTL. */
export interface OperationBinding {
  fingerprint: string;
  operationUuid: string;
}

export interface Window {
  startedAt: number;
  count: number;
}

export interface Config {
  clock: Clock;
  random: Random;
  windowMs: number;
  replayTtlMs: number;
  defaultRateLimit: number;
  policy: Required<OperationPolicy>;
  language: Language;
}

export const BASE_PATH = "/api/reseller/v1";
export const CONTROL_PATH = "/_emulator";
/** Every reseller-environment starts with this deposit (minor units): 1,000,000.00 KZT. */
export const INITIAL_DEPOSIT_MINOR = 100_000_000;
/** Keeps long soak runs from growing the request log without bound. */
export const REQUEST_LOG_LIMIT = 50_000;

export class State {
  seq = 0;
  resellers = new Map<string, Reseller>();
  keys = new Map<string, ApiKey>();
  domains = new DomainMap<Domain>();
  /** "owner:external_id" → orders (F5's lookup), domain UUID → operations: list filters cost a page. */
  ordersByExternalId = new MultiIndex<Order>();
  operationsByDomain = new MultiIndex<Operation>();
  operations = new OwnedMap<Operation>((op) => this.operationsByDomain.add(op.domainUuid, op));
  orders = new OwnedMap<Order>((o) => this.ordersByExternalId.add(`${ownerKeyOf(o)}:${o.externalId}`, o));
  ledger: LedgerEntry[] = [];
  /** Ledger entries per owner, in seq order. */
  ledgerByOwner = new MultiIndex<LedgerEntry>();
  /** Latest ledger entry per reseller-environment ("uuid:env"), so balances are O(1). */
  ledgerHead = new Map<string, LedgerEntry>();
  /** Operations and orders whose lifecycle has not reached a final state (settle() walks only these). */
  unsettledOperations = new Set<string>();
  unsettledOrders = new Set<string>();
  /** Reservations since the last sweep of expired idempotency records. */
  reservationsSinceSweep = 0;
  webhooks = new OwnedMap<Webhook>();
  tickets = new OwnedMap<Ticket>();
  effects: Effect[] = [];
  /** The last REQUEST_LOG_LIMIT API requests (control.requests()). */
  requestLog: RequestLogEntry[] = [];
  /** publicKeyId → fixed window (C2: one counter per key record). */
  windows = new Map<string, Window>();
  /** publicKeyId → Idempotency-Key → record. */
  idempotency = new Map<string, Map<string, IdempotencyRecord>>();
  bindings = new Map<string, Map<string, OperationBinding>>();
  faults: FaultInfo[] = [];
  faultSeq = 0;

  constructor(readonly config: Config) {}

  /** Forgets everything (control.reset); the clock and the config stay. */
  clear(): void {
    this.seq = 0;
    this.resellers.clear();
    this.keys.clear();
    this.domains.clear();
    this.operations.clear();
    this.orders.clear();
    this.ordersByExternalId.clear();
    this.operationsByDomain.clear();
    this.ledger = [];
    this.ledgerByOwner.clear();
    this.ledgerHead.clear();
    this.unsettledOperations.clear();
    this.unsettledOrders.clear();
    this.reservationsSinceSweep = 0;
    this.webhooks.clear();
    this.tickets.clear();
    this.effects = [];
    this.requestLog = [];
    this.windows.clear();
    this.idempotency.clear();
    this.bindings.clear();
    this.faults = [];
    this.faultSeq = 0;
  }

  now(): number {
    return this.config.clock.now();
  }

  nextSeq(): number {
    return ++this.seq;
  }

  owns(item: Owned | undefined, key: ApiKey): boolean {
    return !!item && item.resellerUuid === key.resellerUuid && item.environment === key.environment;
  }

  /** The caller's ledger entries in seq order (A8) — the live index, never mutate it. */
  ownedLedger(key: ApiKey): readonly LedgerEntry[] {
    return this.ledgerByOwner.get(ownerKeyOf(key));
  }

  idempotencyFor(publicKeyId: string): Map<string, IdempotencyRecord> {
    let map = this.idempotency.get(publicKeyId);
    if (!map) this.idempotency.set(publicKeyId, (map = new Map<string, IdempotencyRecord>()));
    return map;
  }

  bindingsFor(publicKeyId: string): Map<string, OperationBinding> {
    let map = this.bindings.get(publicKeyId);
    if (!map) this.bindings.set(publicKeyId, (map = new Map<string, OperationBinding>()));
    return map;
  }
}
