/**
 * Row ↔ record mapping shared by the SQLite and PostgreSQL journals (same column names).
 */
import type { AttemptRecord, CommandRecord, CommandState, ManualCheck, NewCommand } from "../journal";
import { isCommandState, JournalCorruptError } from "../journal";
import type { MutableFields } from "./journal-common";

export interface CommandRow {
  id: string;
  environment: string;
  api_key_id: string;
  operation_id: string;
  method: string;
  path: string;
  query: string;
  body: Uint8Array | null;
  idempotency_key: string;
  /** D4 fingerprint (version 3; backfilled for older rows when the journal opens). */
  fingerprint: string | null;
  /** 1/true once the request body was dropped (prune, or at settle for a sensitive request). */
  body_pruned: number | boolean;
  /** 1/true: the request carries sensitive fields (H2), its body is dropped at settle. */
  body_sensitive: number | boolean;
  external_id: string | null;
  lock_key: string | null;
  state: string;
  version: number | string;
  created_at: number | string;
  updated_at: number | string;
  order_uuid: string | null;
  domain_uuid: string | null;
  operation_uuid: string | null;
  response_status: number | null;
  /** JSON text (SQLite) or an already parsed value (pg parses `json`). */
  response_body: unknown;
  reconciliation: string | null;
  manual_check: unknown;
  owner: string | null;
  lease_until: number | string | null;
}

export interface AttemptRow {
  command_id: string;
  at: number | string;
  delay_ms: number | string;
  status: number | null;
  error_code: string | null;
  request_id: string | null;
  transport_error: string | null;
  replayed: number | boolean | null;
}

const parse = (v: unknown, asText: boolean): unknown => (asText && typeof v === "string" ? JSON.parse(v) : v);

export function rowState(row: Pick<CommandRow, "state" | "id">): CommandState {
  // An unknown value means a newer schema or manual edits: refuse loudly rather than guess (F3 spirit).
  if (!isCommandState(row.state))
    throw new JournalCorruptError(`Command ${row.id} has an unknown state "${row.state}".`);
  return row.state;
}

/** Values the caller already holds (e.g. a patch it just wrote), used instead of re-parsing the JSON columns. */
export interface KnownJson {
  response?: MutableFields["response"];
  manualCheck?: MutableFields["manualCheck"];
}

export function rowToMutable(row: CommandRow, jsonAsText: boolean, known?: KnownJson): MutableFields {
  const resources: MutableFields["resources"] = {};
  if (row.order_uuid !== null) resources.orderUuid = row.order_uuid;
  if (row.domain_uuid !== null) resources.domainUuid = row.domain_uuid;
  if (row.operation_uuid !== null) resources.operationUuid = row.operation_uuid;
  return {
    resources,
    response:
      known?.response !== undefined
        ? known.response
        : row.response_status === null
          ? null
          : { status: row.response_status, body: parse(row.response_body, jsonAsText) ?? null },
    reconciliation: row.reconciliation,
    manualCheck:
      known?.manualCheck !== undefined
        ? known.manualCheck
        : ((parse(row.manual_check, jsonAsText) as ManualCheck | null) ?? null),
  };
}

function attemptFromRow(a: AttemptRow): AttemptRecord {
  const out: AttemptRecord = { at: Number(a.at), delayMs: Number(a.delay_ms) };
  if (a.status !== null) out.status = a.status;
  if (a.error_code !== null) out.errorCode = a.error_code;
  if (a.request_id !== null) out.requestId = a.request_id;
  if (a.transport_error !== null) out.transportError = a.transport_error;
  if (a.replayed !== null) out.replayed = Boolean(a.replayed);
  return out;
}

export function rowToRecord(
  row: CommandRow,
  attempts: AttemptRow[],
  jsonAsText: boolean,
  known?: KnownJson,
): CommandRecord {
  return {
    id: row.id,
    environment: row.environment as CommandRecord["environment"],
    apiKeyId: row.api_key_id,
    operationId: row.operation_id as CommandRecord["operationId"],
    method: row.method as CommandRecord["method"],
    path: row.path,
    query: row.query,
    // A plain Uint8Array copy, not the driver's Buffer view (D3: bytes, nothing else).
    body: row.body === null ? null : new Uint8Array(row.body),
    bodyPruned: Boolean(row.body_pruned),
    fingerprint: row.fingerprint ?? "",
    idempotencyKey: row.idempotency_key,
    externalId: row.external_id,
    lockKey: row.lock_key,
    createdAt: Number(row.created_at),
    state: rowState(row),
    updatedAt: Number(row.updated_at),
    owner: row.owner ?? null,
    leaseUntil: row.lease_until === null || row.lease_until === undefined ? null : Number(row.lease_until),
    attempts: attempts.map(attemptFromRow),
    ...rowToMutable(row, jsonAsText, known),
  };
}

/** Column values for the mutable fields, JSON serialised by us (never by the driver). */
export function mutableToColumns(m: MutableFields) {
  return {
    order_uuid: m.resources.orderUuid ?? null,
    domain_uuid: m.resources.domainUuid ?? null,
    operation_uuid: m.resources.operationUuid ?? null,
    response_status: m.response === null ? null : m.response.status,
    response_body: m.response === null ? null : JSON.stringify(m.response.body ?? null),
    reconciliation: m.reconciliation,
    manual_check: m.manualCheck === null ? null : JSON.stringify(m.manualCheck),
  };
}

/** The record a fresh insert stores (state "recorded", no attempts), built without reading it back. */
export function newRecordFrom(
  c: NewCommand,
  owner: string | null = null,
  leaseUntil: number | null = null,
): CommandRecord {
  return {
    id: c.id,
    environment: c.environment,
    apiKeyId: c.apiKeyId,
    operationId: c.operationId,
    method: c.method,
    path: c.path,
    query: c.query,
    body: c.body === null ? null : new Uint8Array(c.body), // our own copy (D3)
    bodyPruned: false,
    fingerprint: c.fingerprint,
    idempotencyKey: c.idempotencyKey,
    externalId: c.externalId,
    lockKey: c.lockKey,
    createdAt: c.createdAt,
    state: "recorded",
    updatedAt: c.createdAt,
    owner,
    leaseUntil,
    attempts: [],
    resources: {},
    response: null,
    reconciliation: null,
    manualCheck: null,
  };
}

/** The row a fresh insert writes (version 0), as SQLite returns it; its body is a private copy (D3). */
export function insertedRow(
  c: NewCommand,
  owner: string | null = null,
  leaseUntil: number | null = null,
  sensitive = false,
): CommandRow & { version: number; lock_held: number } {
  return {
    id: c.id,
    environment: c.environment,
    api_key_id: c.apiKeyId,
    operation_id: c.operationId,
    method: c.method,
    path: c.path,
    query: c.query,
    body: c.body === null ? null : new Uint8Array(c.body),
    idempotency_key: c.idempotencyKey,
    fingerprint: c.fingerprint,
    body_pruned: 0,
    body_sensitive: sensitive ? 1 : 0,
    external_id: c.externalId,
    lock_key: c.lockKey,
    lock_held: c.lockKey === null ? 0 : 1,
    state: "recorded",
    version: 0,
    created_at: c.createdAt,
    updated_at: c.createdAt,
    order_uuid: null,
    domain_uuid: null,
    operation_uuid: null,
    response_status: null,
    response_body: null,
    reconciliation: null,
    manual_check: null,
    owner,
    lease_until: leaseUntil,
  };
}
