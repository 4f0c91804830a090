/**
 * The command journal interface (G1, D3, H2, I5). The middleware records every write command here
 * *before* the first byte is sent; durable stores (SQLite, PostgreSQL) implement the same interface
 * in stores/. Records never hold the token, and response bodies are stored with every
 * `x-sensitive-fields` value redacted.
 */
import type { HttpMethod, OperationId } from "../generated/operations";
import type { CommandState } from "../core";

export type { CommandState };

/** One HTTP attempt of a command (H2). */
export interface AttemptRecord {
  /** When the attempt was sent (ms since epoch, from the client's clock). */
  at: number;
  /** Delay waited before this attempt (pacing, Retry-After or backoff), ms. */
  delayMs: number;
  /** HTTP status; absent when no response came (timeout, reset). */
  status?: number;
  /** ErrorEnvelope code, when the response carried one. */
  errorCode?: string;
  /** X-Request-ID sent with (or returned for) this attempt. */
  requestId?: string;
  /** Transport failure kind when no response came: "timeout" | "network" | "aborted". */
  transportError?: string;
  /** The server answered with Idempotency-Replayed: true. */
  replayed?: boolean;
}

/** Resource UUIDs learnt for a command (H2). */
export interface CommandResources {
  orderUuid?: string;
  domainUuid?: string;
  operationUuid?: string;
}

/** What a support ticket needs when a command cannot be reconciled automatically (F4). */
export interface ManualCheck {
  reason: string;
  operationUuid?: string;
  domainUuid?: string;
  orderUuid?: string;
  requestIds: string[];
  /** How a human closed it (`resolveManualCheck`); absent while it is still open. */
  resolution?: ManualResolution;
}

/** A human's verdict on a `needs_manual_check` command (F4): journalled, never sent. */
export interface ManualResolution {
  /** What the human found at the registrar: the purchase happened (`completed`) or it did not (`failed`). */
  as: "completed" | "failed";
  /** What was checked, in words (no personal data, no secrets: token-shaped text is redacted). */
  note: string;
  /** A support ticket number or similar, when there is one. */
  reference?: string;
  /** When it was decided (ms since epoch). */
  at: number;
}

/** The immutable part of a command, written before sending (D3). */
export interface NewCommand {
  /** Local command id (UUID). */
  id: string;
  environment: "test" | "live";
  /** The API key's publicKeyId — never the secret. */
  apiKeyId: string;
  operationId: OperationId;
  method: HttpMethod;
  /** Path relative to the base path with parameters filled in, e.g. "/domains/5555…/renew". */
  path: string;
  /** Query string including the leading "?", or "". */
  query: string;
  /** The exact body bytes, or null when the request has no body (D4: never turned into "{}"). */
  body: Uint8Array | null;
  /**
   * D4: lowercase hex SHA-256 of method + path + query + exact body bytes, as the server computes
   * it (`commandFingerprint()`). Kept after the body is pruned, so a repeat under the same key is
   * still recognised as the same request.
   */
  fingerprint: string;
  /** Trimmed Idempotency-Key (D2). */
  idempotencyKey: string;
  /** The integrator's `external_id` for orders (F5). */
  externalId: string | null;
  /**
   * I6: the domain a registration/renewal/transfer acts on (domain name or UUID), or null.
   * While a command with the same lockKey is in flight, record() refuses another.
   */
  lockKey: string | null;
  createdAt: number;
}

/** A stored command with its mutable state. */
export interface CommandRecord extends NewCommand {
  /**
   * The request body and the response body were dropped (`prune()`, or at settle for a request that
   * carried sensitive fields): `body` is null and `response.body` null; everything never-buy-twice
   * needs (key, fingerprint, state, UUIDs, request ids, times) is kept.
   */
  bodyPruned: boolean;
  state: CommandState;
  updatedAt: number;
  /** The worker that holds (or last held) the command; null for commands written without a lease. */
  owner: string | null;
  /** Until when (journal clock, ms) the owner's lease holds; null once terminal or never leased. */
  leaseUntil: number | null;
  attempts: AttemptRecord[];
  resources: CommandResources;
  /** Last HTTP response, JSON body redacted (H2); null until one arrives. */
  response: { status: number; body: unknown } | null;
  /** Result of the last reconciliation, in words a human can act on. */
  reconciliation: string | null;
  manualCheck: ManualCheck | null;
}

/** Fields a transition may update atomically with the new state (G3). */
export type CommandPatch = Partial<Pick<CommandRecord, "response" | "resources" | "reconciliation" | "manualCheck">>;

/**
 * A worker's hold on the commands it works on (fleet mode). Every write made with a lease is fenced:
 * it applies only while `owner` still owns the command (else LeaseLostError, nothing written) and
 * renews the lease to `now + leaseMs` on the journal's own clock.
 */
export interface Lease {
  /** Stable id of one client instance (the worker). */
  owner: string;
  /** How long a write or a renewal keeps the command, ms. */
  leaseMs: number;
}

/**
 * What an attempt write also does to the state (one commit instead of three): the command moves to
 * `sending` if it is not there yet (recorded → sending, reconciling → sending), then to `to`.
 */
export interface AttemptMove {
  to: CommandState;
  patch?: CommandPatch;
}

/** Which commands claim() may take over, and the lease it takes them with. */
export interface ClaimRequest extends Lease {
  /** Only this API key's commands (recover() always sets it). */
  apiKeyId?: string;
  environment?: "test" | "live";
  /** Only these commands (a resumed command is claimed by id). */
  ids?: readonly string[];
  /** Never these: the commands this worker's own calls are sending right now. */
  excludeIds?: readonly string[];
  states: readonly CommandState[];
  /** At most this many, oldest first. */
  limit: number;
  /**
   * Commands written without a lease (before leases existed, or by a direct journal user) are taken
   * only when not updated for this long (default 0: at once).
   */
  unownedStaleAfterMs?: number;
}

/** How much a write must survive before its call resolves. */
export interface WriteOptions {
  /**
   * The caller redoes this write if it is lost: recover() settling a command, which the next
   * recover() finds where it was and settles again. The store may resolve once the write is
   * committed (it survives a killed process) without waiting for it to reach the disk, so a power
   * cut can lose it — and only it and later writes, never an earlier one. Never set for a write that
   * a send depends on (G1: `record()` is always durable before the first byte).
   */
  redoable?: boolean | undefined;
}

/** What `prune()` drops: bodies of commands settled (terminal) before `settledBefore`. */
export interface PruneOptions {
  /** Journal time (ms since epoch): commands whose last update (the settle) is older lose their bodies. */
  settledBefore: number;
  /** At most this many commands in this call (oldest settle first); default: all that match. */
  limit?: number | undefined;
}

/** A page of `listCommands()`: newest first. */
export interface ListCommandsFilter {
  apiKeyId?: string | undefined;
  /** Only these states (default: every state). */
  states?: readonly CommandState[] | undefined;
  /** Page size, 1..1000. */
  limit: number;
  /** The last command of the previous page: the next page holds commands older than it. */
  before?: { createdAt: number; id: string } | undefined;
}

/** A page of `listByState()`: oldest first, at most `limit` commands after `after`. */
export interface StatePage {
  /** Page size, ≥ 1. */
  limit: number;
  /** The last command of the previous page: this page starts after it (createdAt, then insertion order). */
  after?: { createdAt: number; id: string } | undefined;
}

export interface Journal {
  /**
   * G1/D3: persist the command in state "recorded". A rejection must abort the send. With `lease`,
   * the command belongs to `lease.owner` from the start.
   */
  record(command: NewCommand, lease?: Lease): Promise<CommandRecord>;
  /**
   * Append one attempt (I7). With `then`, the same commit also moves the state (via `sending`);
   * the attempt is kept only if the move is allowed.
   */
  addAttempt(id: string, attempt: AttemptRecord, then?: AttemptMove, lease?: Lease): Promise<void>;
  /** Move to `to` (validated against the state machine) and apply `patch` atomically. */
  transition(
    id: string,
    to: CommandState,
    patch?: CommandPatch,
    lease?: Lease,
    options?: WriteOptions,
  ): Promise<CommandRecord>;
  /**
   * Heartbeat: extends `lease.owner`'s lease on `ids` in one write. Returns the ids it no longer
   * owns (taken over by another worker, or gone) — the caller must stop writing to those.
   */
  renewLeases(lease: Lease, ids: readonly string[]): Promise<string[]>;
  /**
   * Atomically takes over the commands matching `request` whose lease has expired, that `owner`
   * already owns, or that have no owner: exactly one of several concurrent claimers gets each.
   */
  claim(request: ClaimRequest): Promise<CommandRecord[]>;
  get(id: string): Promise<CommandRecord | undefined>;
  findByIdempotencyKey(apiKeyId: string, idempotencyKey: string): Promise<CommandRecord | undefined>;
  /**
   * Commands currently in any of `states`, oldest first. With `page`, at most `page.limit` of them,
   * the ones after `page.after` (a bounded read: recover() pages through a large backlog).
   */
  listByState(states: readonly CommandState[], page?: StatePage): Promise<CommandRecord[]>;
  /**
   * H2 retention: drops the request and response bodies of settled commands (succeeded, completed,
   * failed, rejected) last updated before `settledBefore`. Keeps the key, fingerprint, state,
   * resource UUIDs, attempts (request ids) and times; never touches unsettled or
   * `needs_manual_check` commands.
   */
  prune(options: PruneOptions): Promise<{ pruned: number }>;
  /**
   * How many commands are in each state (states with none are absent): one `COUNT … GROUP BY`.
   * With `states`, only those — over unsettled states it reads only the unsettled index (telemetry).
   */
  countByState(filter?: { states?: readonly CommandState[] }): Promise<Partial<Record<CommandState, number>>>;
  /**
   * The newest command of `apiKeyId` for this I6 lock key (e.g. `domain:<uuid>`), optionally only one
   * created at or after `since` — "was this domain already renewed/ordered?" without reading history.
   */
  latestByLockKey(apiKeyId: string, lockKey: string, options?: { since?: number }): Promise<CommandRecord | undefined>;
  /** Commands newest first (`createdAt`, then id), one page at a time. */
  listCommands(filter: ListCommandsFilter): Promise<CommandRecord[]>;
  /**
   * F4: a human closes a `needs_manual_check` command as `completed` or `failed` (the lock is
   * released). Journalled only — nothing is sent. Any other state: InvalidTransitionError.
   */
  resolveManualCheck(id: string, resolution: ManualResolution): Promise<CommandRecord>;
  /**
   * The caller cancelled a write before its first send: removes the command, but only while it is
   * still `recorded` with no attempt (and, with `lease`, owned by `lease.owner`) — recovery would
   * otherwise send what the caller withdrew, and its lock would block the domain. Returns whether it
   * was removed.
   */
  withdraw(id: string, lease?: Lease): Promise<boolean>;
  close(): Promise<void>;
}

/** Every method of a Journal, by name (the compiler keeps the list whole): for checks of a journal's shape. */
export const JOURNAL_METHODS: { readonly [K in keyof Journal]: true } = {
  record: true,
  addAttempt: true,
  transition: true,
  renewLeases: true,
  claim: true,
  get: true,
  findByIdempotencyKey: true,
  listByState: true,
  prune: true,
  countByState: true,
  latestByLockKey: true,
  listCommands: true,
  resolveManualCheck: true,
  withdraw: true,
  close: true,
};
