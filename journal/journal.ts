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
  state: CommandState;
  updatedAt: number;
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

export interface Journal {
  /** G1/D3: persist the command in state "recorded". A rejection must abort the send. */
  record(command: NewCommand): Promise<CommandRecord>;
  /** Append one attempt (I7). */
  addAttempt(id: string, attempt: AttemptRecord): Promise<void>;
  /** Move to `to` (validated against the state machine) and apply `patch` atomically. */
  transition(id: string, to: CommandState, patch?: CommandPatch): Promise<CommandRecord>;
  get(id: string): Promise<CommandRecord | undefined>;
  findByIdempotencyKey(apiKeyId: string, idempotencyKey: string): Promise<CommandRecord | undefined>;
  /** Commands currently in any of `states`, oldest first. */
  listByState(states: readonly CommandState[]): Promise<CommandRecord[]>;
  close(): Promise<void>;
}
