// Balance and ledger (live only, B3). Every reseller-environment starts with a deposit; renewals
// charge at acceptance, orders at creation, so a duplicate purchase shows as two charges.
import { validationError } from "../errors";
import type { Handler } from "../handler";
import { paginate, readPage } from "../pagination";
import { INITIAL_DEPOSIT_MINOR, type LedgerEntry, type State } from "../state";
import type { Environment } from "../types";
import { iso, money, uuidV4 } from "../util";

/** Price per year in minor units, by zone (longest suffix wins). */
const PRICES: Record<string, number> = {
  "com.kz": 350_000,
  "org.kz": 350_000,
  "net.kz": 350_000,
  kz: 450_000,
  қаз: 450_000,
};

export function priceFor(domain: string): number | null {
  const labels = domain.toLowerCase().split(".");
  for (let i = 1; i < labels.length; i++) {
    const zone = labels.slice(i).join(".");
    if (PRICES[zone] !== undefined) return PRICES[zone];
  }
  return null;
}

interface Owner {
  resellerUuid: string;
  environment: Environment;
}

const ownerKey = (owner: Owner) => `${owner.resellerUuid}:${owner.environment}`;

export function ensureDeposit(state: State, owner: Owner): void {
  if (state.ledgerHead.has(ownerKey(owner))) return;
  addEntry(state, owner, "deposit", INITIAL_DEPOSIT_MINOR, "Initial deposit", null, null);
}

function balanceMinor(state: State, owner: Owner): number {
  return state.ledgerHead.get(ownerKey(owner))?.balanceAfterMinor ?? 0;
}

function addEntry(
  state: State,
  owner: Owner,
  type: LedgerEntry["type"],
  amountMinor: number,
  description: string,
  orderUuid: string | null,
  operationUuid: string | null,
): LedgerEntry {
  const entry: LedgerEntry = {
    seq: state.nextSeq(),
    resellerUuid: owner.resellerUuid,
    environment: owner.environment,
    uuid: uuidV4(state.config.random),
    type,
    amountMinor,
    balanceAfterMinor: balanceMinor(state, owner) + amountMinor,
    description,
    orderUuid,
    operationUuid,
    createdAt: state.now(),
  };
  state.ledger.push(entry);
  state.ledgerByOwner.add(ownerKey(owner), entry);
  state.ledgerHead.set(ownerKey(owner), entry);
  return entry;
}

/** Charges or answers 422 when the balance cannot cover it (nothing is executed then). */
export function charge(
  state: State,
  owner: Owner,
  amountMinor: number,
  description: string,
  refs: { orderUuid?: string; operationUuid?: string },
  tr: (key: string, params?: Record<string, string | number>) => string,
): void {
  ensureDeposit(state, owner);
  if (balanceMinor(state, owner) < amountMinor)
    throw validationError({ balance: [tr("v.balance", { field: "operation" })] });
  addEntry(state, owner, "charge", -amountMinor, description, refs.orderUuid ?? null, refs.operationUuid ?? null);
}

/** A deposit on the key's reseller account (the control API's top-up, for long test runs). */
export function deposit(state: State, owner: Owner, amountMinor: number): void {
  ensureDeposit(state, owner);
  addEntry(state, owner, "deposit", amountMinor, "Deposit", null, null);
}

export function refund(
  state: State,
  owner: Owner,
  amountMinor: number,
  description: string,
  refs: { orderUuid?: string; operationUuid?: string },
): void {
  if (amountMinor <= 0) return;
  addEntry(state, owner, "refund", amountMinor, description, refs.orderUuid ?? null, refs.operationUuid ?? null);
}

export const getBalance: Handler = (ctx) => {
  const owner = { resellerUuid: ctx.key.resellerUuid, environment: ctx.key.environment };
  ensureDeposit(ctx.state, owner);
  const head = ctx.state.ledgerHead.get(ownerKey(owner))!;
  return {
    status: 200,
    body: {
      data: {
        available: money(balanceMinor(ctx.state, owner)),
        reserved: money(0),
        updated_at: iso(head.createdAt),
      },
    },
  };
};

export const listLedger: Handler = (ctx) => {
  const owner = { resellerUuid: ctx.key.resellerUuid, environment: ctx.key.environment };
  ensureDeposit(ctx.state, owner);
  const page = readPage(ctx.query, ctx.tr);
  const items = ctx.state.ownedLedger(ctx.key);
  return { status: 200, body: paginate(items, page, ctx.op.pagination ?? "links", ctx.url, presentLedger) };
};

function presentLedger(e: LedgerEntry): unknown {
  return {
    uuid: e.uuid,
    type: e.type,
    amount: money(e.amountMinor),
    balance_after: money(e.balanceAfterMinor),
    description: e.description,
    order_uuid: e.orderUuid,
    operation_uuid: e.operationUuid,
    created_at: iso(e.createdAt),
  };
}
