// D1–D9: Idempotency-Key validation, the SHA-256 fingerprint and the per-API-key records.
// Every function here is synchronous: the pipeline looks a key up and reserves it without an
// await in between, so concurrent requests with one key can never both execute (D5).
import { createHash } from "node:crypto";
import type { ApiKey, IdempotencyRecord, State } from "./state";

/** D2: trimmed, 1..160 characters; null when missing or invalid. */
export function readIdempotencyKey(headers: Headers): string | null {
  const raw = headers.get("idempotency-key");
  if (raw === null) return null;
  const value = raw.trim();
  return value.length >= 1 && value.length <= 160 ? value : null;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** HTTP normalisation of percent-encoding (RFC 3986 §6.2.2): upper-case hex, decode unreserved. */
function normalisePercentEncoding(text: string): string {
  return text.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
  });
}

/**
 * D4: SHA-256 over the method, the normalised path with its query and the exact body bytes.
 * Headers (X-Language, X-Request-ID, …) are not part of it; `{}` and an empty body differ.
 */
export function fingerprint(method: string, url: URL, body: Uint8Array): string {
  const target = normalisePercentEncoding(url.pathname) + (url.search ? normalisePercentEncoding(url.search) : "");
  const hash = createHash("sha256");
  hash.update(method.toUpperCase());
  hash.update("\n");
  hash.update(target);
  hash.update("\n");
  hash.update(body);
  return hash.digest("hex");
}

export type Lookup =
  | { kind: "reserved"; record: IdempotencyRecord }
  | { kind: "replay"; status: number; body: string | null }
  | { kind: "bound"; operationUuid: string }
  | { kind: "conflict"; reason: "mismatch" | "processing" };

/** Finds the key's record or reserves a new one (D5, D6, D7). */
export function lookupOrReserve(state: State, key: ApiKey, idemKey: string, print: string): Lookup {
  const records = state.idempotencyFor(key.publicKeyId);
  const now = state.now();
  let record = records.get(idemKey);
  // D6: the TTL runs from the first reservation and repeats never extend it; an expired record
  // is deleted on the next use of its key.
  if (record && now >= record.reservedAt + state.config.replayTtlMs) {
    records.delete(idemKey);
    record = undefined;
  }
  if (record) {
    if (record.fingerprint !== print) return { kind: "conflict", reason: "mismatch" };
    if (record.state === "processing") return { kind: "conflict", reason: "processing" };
    return { kind: "replay", status: record.status!, body: record.body ?? null };
  }
  // D7: an async domain operation stays bound to its key beyond the HTTP TTL.
  const binding = state.bindingsFor(key.publicKeyId).get(idemKey);
  if (binding) {
    if (binding.fingerprint !== print) return { kind: "conflict", reason: "mismatch" };
    return { kind: "bound", operationUuid: binding.operationUuid };
  }
  const fresh: IdempotencyRecord = { fingerprint: print, reservedAt: now, state: "processing" };
  records.set(idemKey, fresh);
  if (++state.reservationsSinceSweep >= 1024) sweep(state, now);
  return { kind: "reserved", record: fresh };
}

/** Drops every expired record now and then, so long runs with fresh keys stay bounded (D6). */
function sweep(state: State, now: number): void {
  state.reservationsSinceSweep = 0;
  for (const records of state.idempotency.values()) {
    for (const [key, record] of records) if (now >= record.reservedAt + state.config.replayTtlMs) records.delete(key);
  }
}

/** Stores the response of a finished attempt (D5: 2xx and 4xx are replayed). */
export function complete(record: IdempotencyRecord, status: number, body: string | null): void {
  record.state = "completed";
  record.status = status;
  record.body = body;
}

/** D5: after an exception or a 5xx no replay is kept — the next attempt runs again. */
export function release(state: State, key: ApiKey, idemKey: string, record: IdempotencyRecord): void {
  const records = state.idempotencyFor(key.publicKeyId);
  if (records.get(idemKey) === record) records.delete(idemKey);
}

export function bindOperation(state: State, key: ApiKey, idemKey: string, print: string, operationUuid: string): void {
  state.bindingsFor(key.publicKeyId).set(idemKey, { fingerprint: print, operationUuid });
}
