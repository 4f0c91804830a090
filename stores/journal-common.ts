/**
 * What every journal store shares: secret screening (A4, H2), defensive redaction of stored
 * responses, patch merging (G3) and copying records so callers never alias stored state.
 */
import type {
  AttemptRecord,
  ClaimRequest,
  CommandPatch,
  CommandRecord,
  CommandResources,
  Lease,
  ListCommandsFilter,
  StatePage,
  ManualCheck,
  ManualResolution,
  NewCommand,
  PruneOptions,
} from "../journal";
import { containsUrlSecret, InvalidArgumentError } from "../core";
import type { Journal } from "../journal";
import { latin1Text, utf8Text } from "../runtime/text";
import {
  JOURNAL_METHODS,
  JournalClosedError,
  SensitiveDataError,
  isFingerprint,
  requestSensitiveFields,
} from "../journal";

const REDACTED = "[REDACTED]";

/** H2: keys whose values never reach the journal, whatever the caller's redaction did. */
const SENSITIVE_KEYS = new Set(["signing_secret", "auth_code", "authorization", "token", "password"]);

/** A3 token shape, and the webhook secret shape from the shapes doc. */
const TOKEN_PATTERN = /rsl_(?:test|live)_[A-Za-z0-9]{24}\.[A-Za-z0-9_-]{64}/g;
const SECRET_PATTERN = /whsec_[A-Za-z0-9_-]{20,}/g;
/** A password in a URL's userinfo (`https://user:secret@host`, a webhook's basic auth): group 1 keeps the rest. */
const URL_PASSWORD_PATTERN = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:"']*:)[^\s/?#@"']*@/gi;

function containsToken(text: string): boolean {
  TOKEN_PATTERN.lastIndex = 0;
  return TOKEN_PATTERN.test(text);
}

function scrubString(text: string): string {
  return text
    .replace(TOKEN_PATTERN, REDACTED)
    .replace(SECRET_PATTERN, REDACTED)
    .replace(URL_PASSWORD_PATTERN, `$1${REDACTED}@`);
}

/**
 * H2: returns a copy of `value` with every sensitive key's value and every token-shaped string
 * replaced by "[REDACTED]". The caller is expected to redact already; this is the second line.
 */
function redactSensitive(value: unknown, depth = 0): unknown {
  if (depth > 64) return REDACTED; // a pathological structure is not worth keeping
  if (typeof value === "string") return scrubString(value);
  if (Array.isArray(value)) return value.map((v) => redactSensitive(v, depth + 1));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] =
        SENSITIVE_KEYS.has(k.toLowerCase()) && v !== null && v !== REDACTED ? REDACTED : redactSensitive(v, depth + 1);
    }
    return out;
  }
  return value;
}

const bad = (message: string, argument: string) => new InvalidArgumentError(message, argument);

/** A4/H2: refuse (before anything is written or sent) a malformed command or one that carries a token. */
export function screenNewCommand(command: NewCommand): void {
  if (command === null || typeof command !== "object") {
    throw bad("record() needs a NewCommand object (see the Journal interface).", "command");
  }
  const fields: [string, string | null][] = [
    ["path", command.path],
    ["query", command.query],
    ["idempotencyKey", command.idempotencyKey],
    ["externalId", command.externalId],
    ["lockKey", command.lockKey],
    ["apiKeyId", command.apiKeyId],
  ];
  for (const [name, v] of [
    ["id", command.id],
    ["apiKeyId", command.apiKeyId],
    ["path", command.path],
  ] as const) {
    if (typeof v !== "string" || v.length === 0) {
      throw bad(`NewCommand.${name} must be a non-empty string.`, name);
    }
  }
  if (typeof command.idempotencyKey !== "string" || command.idempotencyKey.length === 0) {
    throw bad("NewCommand.idempotencyKey must be a non-empty string (D2).", "idempotencyKey");
  }
  if (typeof command.query !== "string") throw bad('NewCommand.query must be a string ("" for none).', "query");
  if (!Number.isFinite(command.createdAt)) {
    throw bad("NewCommand.createdAt must be a finite number (ms since epoch).", "createdAt");
  }
  if (!(command.body === null || command.body instanceof Uint8Array)) {
    throw bad("NewCommand.body must be a Uint8Array (the exact bytes, D3) or null.", "body");
  }
  if (command.environment !== "test" && command.environment !== "live") {
    throw bad(`NewCommand.environment must be "test" or "live", got ${String(command.environment)}.`, "environment");
  }
  if (!isFingerprint(command.fingerprint)) {
    throw bad(
      "NewCommand.fingerprint must be the D4 fingerprint: 64 lowercase hex digits from commandFingerprint(method, path, query, body).",
      "fingerprint",
    );
  }
  for (const [name, text] of fields) if (text !== null && containsToken(text)) throw new SensitiveDataError(name);
  if (command.body !== null && containsToken(latin1Text(command.body))) {
    throw new SensitiveDataError("body");
  }
}

/**
 * H2: does this request body hold something a resend needs but the journal must not keep once the
 * command is settled — a field the spec marks `x-sensitive-fields` on the request, a key named like a
 * secret (auth_code, password, …) or a `whsec_` secret? Such a body is dropped at settle.
 */
export function isSensitiveRequest(command: Pick<NewCommand, "operationId" | "body">): boolean {
  if (command.body === null || command.body.byteLength === 0) return false;
  const text = latin1Text(command.body);
  SECRET_PATTERN.lastIndex = 0;
  URL_PASSWORD_PATTERN.lastIndex = 0;
  if (SECRET_PATTERN.test(text) || URL_PASSWORD_PATTERN.test(text) || containsUrlSecret(text)) return true;
  const marked = requestSensitiveFields(command.operationId);
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8Text(command.body));
  } catch {
    return false;
  }
  const walk = (v: unknown, depth: number): boolean => {
    if (depth > 32 || v === null || typeof v !== "object") return false;
    for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
      if ((SENSITIVE_KEYS.has(k.toLowerCase()) || marked.includes(k)) && child !== null && child !== "") return true;
      if (walk(child, depth + 1)) return true;
    }
    return false;
  };
  return walk(parsed, 0);
}

/** A stored copy of the exact bytes (D3); never shares memory with the caller's buffer. */
export function copyBytes(body: Uint8Array | null): Uint8Array | null {
  return body === null ? null : new Uint8Array(body);
}

export function cleanAttempt(a: AttemptRecord): AttemptRecord {
  // Whole milliseconds in every store (PostgreSQL's BIGINT columns refuse a backoff's fraction).
  const out: AttemptRecord = { at: Math.round(a.at), delayMs: Math.round(a.delayMs) };
  if (a.status !== undefined) out.status = a.status;
  if (a.errorCode !== undefined) out.errorCode = scrubString(a.errorCode);
  if (a.requestId !== undefined) out.requestId = scrubString(a.requestId);
  if (a.transportError !== undefined) out.transportError = scrubString(a.transportError);
  if (a.replayed !== undefined) out.replayed = a.replayed;
  return out;
}

function cleanResources(r: CommandResources): CommandResources {
  const out: CommandResources = {};
  if (r.orderUuid !== undefined) out.orderUuid = r.orderUuid;
  if (r.domainUuid !== undefined) out.domainUuid = r.domainUuid;
  if (r.operationUuid !== undefined) out.operationUuid = r.operationUuid;
  return out;
}

function cleanManualCheck(m: ManualCheck | null): ManualCheck | null {
  if (m === null) return null;
  const out = redactSensitive({ ...m, requestIds: [...m.requestIds] }) as ManualCheck;
  // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- three known optional keys, dropped when absent
  for (const k of ["operationUuid", "domainUuid", "orderUuid"] as const) if (out[k] === undefined) delete out[k];
  return out;
}

/** The mutable fields after applying `patch`: resources merge (UUIDs are learnt bit by bit), the rest replace. */
export interface MutableFields {
  resources: CommandResources;
  response: { status: number; body: unknown } | null;
  reconciliation: string | null;
  manualCheck: ManualCheck | null;
}

export function applyPatch(current: MutableFields, patch: CommandPatch | undefined): MutableFields {
  const next: MutableFields = { ...current };
  if (!patch) return next;
  if (patch.resources !== undefined) next.resources = cleanResources({ ...current.resources, ...patch.resources });
  if (patch.response !== undefined) {
    next.response =
      patch.response === null
        ? null
        : { status: patch.response.status, body: redactSensitive(patch.response.body ?? null) };
  }
  if (patch.reconciliation !== undefined) {
    next.reconciliation = patch.reconciliation === null ? null : scrubString(patch.reconciliation);
  }
  if (patch.manualCheck !== undefined) next.manualCheck = cleanManualCheck(patch.manualCheck);
  return next;
}

/** A deep copy handed to callers (Uint8Array stays a Uint8Array). */
export function cloneRecord(r: CommandRecord): CommandRecord {
  return {
    ...r,
    body: copyBytes(r.body),
    attempts: r.attempts.map((a) => ({ ...a })),
    resources: { ...r.resources },
    response: r.response === null ? null : { status: r.response.status, body: structuredClone(r.response.body) },
    manualCheck:
      r.manualCheck === null
        ? null
        : {
            ...r.manualCheck,
            requestIds: [...r.manualCheck.requestIds],
            ...(r.manualCheck.resolution ? { resolution: { ...r.manualCheck.resolution } } : {}),
          },
  };
}

/** Bounded retries for an optimistic update that lost a race (another process moved first). */
export const OPTIMISTIC_RETRIES = 8;

export interface JournalClock {
  now(): number;
}
export const defaultJournalClock: JournalClock = { now: () => Date.now() };

/**
 * Only what `patch` changes, cleaned like applyPatch() does (H2 redaction), so a store can write
 * just those columns: `resources` lists the UUID fields the patch names (undefined → cleared, as
 * in applyPatch's merge); the other fields are present only when the patch replaces them.
 */
export interface CleanPatch {
  resources: [keyof CommandResources, string | null][];
  response?: { status: number; body: unknown } | null;
  reconciliation?: string | null;
  manualCheck?: ManualCheck | null;
}

const RESOURCE_KEYS = ["orderUuid", "domainUuid", "operationUuid"] as const;

export function cleanPatch(patch: CommandPatch | undefined): CleanPatch {
  const out: CleanPatch = { resources: [] };
  if (!patch) return out;
  if (patch.resources !== undefined) {
    const r = patch.resources as Record<string, unknown>;
    for (const k of RESOURCE_KEYS) {
      if (Object.prototype.hasOwnProperty.call(r, k)) out.resources.push([k, (r[k] as string | undefined) ?? null]);
    }
  }
  if (patch.response !== undefined) {
    out.response =
      patch.response === null
        ? null
        : { status: patch.response.status, body: redactSensitive(patch.response.body ?? null) };
  }
  if (patch.reconciliation !== undefined) {
    out.reconciliation = patch.reconciliation === null ? null : scrubString(patch.reconciliation);
  }
  if (patch.manualCheck !== undefined) out.manualCheck = cleanManualCheck(patch.manualCheck);
  return out;
}

/** A lease must name its owner and last a positive, finite time. */
export function screenLease(lease: Lease | ClaimRequest): void {
  if (typeof lease.owner !== "string" || lease.owner.length === 0 || lease.owner.length > 200) {
    throw bad("Lease.owner must be a non-empty string of at most 200 characters (the worker id).", "owner");
  }
  if (!(Number.isFinite(lease.leaseMs) && lease.leaseMs > 0))
    throw bad("Lease.leaseMs must be a positive number (ms).", "leaseMs");
  if ("limit" in lease && !(Number.isInteger(lease.limit) && lease.limit > 0)) {
    throw bad("ClaimRequest.limit must be a positive integer.", "limit");
  }
}

/**
 * claim()'s rule, shared by the memory store (the SQL stores say the same in their WHERE): this
 * key's command in one of the states, and either ours already, or its lease has expired, or it was
 * written without a lease and has not been updated for `unownedStaleAfterMs`.
 */
export function claimable(
  r: Pick<CommandRecord, "id" | "apiKeyId" | "environment" | "state" | "owner" | "leaseUntil" | "updatedAt">,
  q: ClaimRequest,
  now: number,
): boolean {
  if (q.apiKeyId !== undefined && r.apiKeyId !== q.apiKeyId) return false;
  if (q.environment !== undefined && r.environment !== q.environment) return false;
  if (q.ids !== undefined && !q.ids.includes(r.id)) return false;
  if (q.excludeIds?.includes(r.id)) return false;
  if (!q.states.includes(r.state)) return false;
  if (r.owner === q.owner) return true;
  if (r.owner !== null) return r.leaseUntil === null || r.leaseUntil <= now;
  return r.updatedAt <= now - (q.unownedStaleAfterMs ?? 0);
}

/**
 * The columns record() sets from the command, in order — one list for the SQLite and PostgreSQL
 * INSERTs (each adds `state` and its own `lease_until` expression). `lock_held` is 1/0, which
 * PostgreSQL's boolean also accepts.
 */
export const COMMAND_INSERT_COLUMNS = [
  "id",
  "environment",
  "api_key_id",
  "operation_id",
  "method",
  "path",
  "query",
  "body",
  "idempotency_key",
  "fingerprint",
  "body_sensitive",
  "external_id",
  "lock_key",
  "lock_held",
  "created_at",
  "updated_at",
  "owner",
] as const;

/** The values of COMMAND_INSERT_COLUMNS for `c` (the body as the exact bytes, D3). */
export function commandInsertValues(
  c: NewCommand,
  owner: string | null,
  sensitive: boolean = isSensitiveRequest(c),
): unknown[] {
  const body = c.body === null ? null : Buffer.from(c.body.buffer, c.body.byteOffset, c.body.byteLength);
  return [
    c.id,
    c.environment,
    c.apiKeyId,
    c.operationId,
    c.method,
    c.path,
    c.query,
    body,
    c.idempotencyKey,
    c.fingerprint,
    sensitive ? 1 : 0,
    c.externalId,
    c.lockKey,
    c.lockKey === null ? 0 : 1,
    c.createdAt,
    c.createdAt,
    owner,
  ];
}

/** The attempt columns both SQL stores write after `command_id` (SQLite also writes `seq`). */
export const ATTEMPT_INSERT_COLUMNS = [
  "at",
  "delay_ms",
  "status",
  "error_code",
  "request_id",
  "transport_error",
  "replayed",
] as const;

/** The values of ATTEMPT_INSERT_COLUMNS for a cleaned attempt (`replayed` 1/0, as for lock_held). */
export function attemptInsertValues(a: AttemptRecord): unknown[] {
  return [
    a.at,
    a.delayMs,
    a.status ?? null,
    a.errorCode ?? null,
    a.requestId ?? null,
    a.transportError ?? null,
    a.replayed === undefined ? null : a.replayed ? 1 : 0,
  ];
}

/** `$from, $from+1, …` for `n` PostgreSQL parameters (or `?, ?, …` for SQLite when `from` is omitted). */
export function placeholders(n: number, from?: number): string {
  return Array.from({ length: n }, (_, i) => (from === undefined ? "?" : `$${from + i}`)).join(", ");
}

/** prune()'s options, checked: a finite time and, when given, a positive whole limit. */
export function screenPrune(options: PruneOptions): { settledBefore: number; limit: number | null } {
  if (options === null || typeof options !== "object" || !Number.isFinite(options.settledBefore)) {
    throw bad("prune() needs { settledBefore: <ms since epoch> }, e.g. Date.now() - 30 * 86_400_000.", "settledBefore");
  }
  if (options.limit !== undefined && !(Number.isInteger(options.limit) && options.limit > 0)) {
    throw bad("prune({ limit }) must be a positive integer (or left out for all).", "limit");
  }
  return { settledBefore: options.settledBefore, limit: options.limit ?? null };
}

/** listByState()'s page, checked (undefined: every command in the states). */
export function screenStatePage(page: StatePage | undefined): void {
  if (page === undefined) return;
  if (page === null || typeof page !== "object" || !(Number.isInteger(page.limit) && page.limit > 0)) {
    throw bad("listByState(states, { limit }) needs a positive integer limit (page with `after`).", "limit");
  }
  if (page.after !== undefined && !(Number.isFinite(page.after.createdAt) && typeof page.after.id === "string")) {
    throw bad(
      "listByState(states, { after }) must be the { createdAt, id } of the last command of the previous page.",
      "after",
    );
  }
}

/**
 * listCommands()' order: newest first, ties by id descending (ids are ASCII: code-unit order is
 * SQLite's and PostgreSQL's "C" byte order).
 */
export function newestFirst(aAt: number, aId: string, bAt: number, bId: string): number {
  return bAt - aAt || (aId < bId ? 1 : aId > bId ? -1 : 0);
}

/** listCommands()'s filter, checked. */
export function screenListFilter(filter: ListCommandsFilter): void {
  if (
    filter === null ||
    typeof filter !== "object" ||
    !(Number.isInteger(filter.limit) && filter.limit > 0 && filter.limit <= 1000)
  ) {
    throw bad("listCommands() needs { limit } between 1 and 1000 (page with `before`).", "limit");
  }
  if (
    filter.before !== undefined &&
    !(Number.isFinite(filter.before.createdAt) && typeof filter.before.id === "string")
  ) {
    throw bad(
      "listCommands({ before }) must be the { createdAt, id } of the last command of the previous page.",
      "before",
    );
  }
}

/** resolveManualCheck()'s verdict, checked and cleaned (token-shaped text redacted, H2). */
export function screenResolution(r: ManualResolution): ManualResolution {
  if (r === null || typeof r !== "object" || (r.as !== "completed" && r.as !== "failed")) {
    throw bad('resolveManualCheck() needs { as: "completed" | "failed", note, at }.', "as");
  }
  if (typeof r.note !== "string" || r.note.trim().length === 0) {
    throw bad("resolveManualCheck() needs a note saying what was checked.", "note");
  }
  if (!Number.isFinite(r.at)) throw bad("resolveManualCheck({ at }) must be a time in ms since epoch.", "at");
  if (r.reference !== undefined && typeof r.reference !== "string") {
    throw bad("resolveManualCheck({ reference }) must be a string.", "reference");
  }
  const out: ManualResolution = { as: r.as, note: scrubString(r.note), at: Math.round(r.at) };
  if (r.reference !== undefined) out.reference = scrubString(r.reference);
  return out;
}

/** The patch a resolution writes: the manual check with its resolution, and a line for the reconciliation. */
export function resolutionPatch(current: ManualCheck | null, r: ManualResolution): CommandPatch {
  return {
    manualCheck: { ...(current ?? { reason: "manual check", requestIds: [] }), resolution: r },
    reconciliation: `Resolved by hand as ${r.as}: ${r.note}${r.reference ? ` (ref ${r.reference})` : ""}`,
  };
}

/**
 * Every method but close() rejects with JournalClosedError once `isClosed()`: a call after close()
 * (or while it drains) gets the documented error, not the driver's ("connection is not open").
 */
export function guardClosed<J extends Journal>(journal: J, isClosed: () => boolean): J {
  const methods = journal as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const name of Object.keys(JOURNAL_METHODS)) {
    if (name === "close") continue;
    const method = methods[name];
    methods[name] = function (this: unknown, ...args: unknown[]) {
      return isClosed() ? Promise.reject(new JournalClosedError()) : method.apply(this, args);
    };
  }
  return journal;
}
