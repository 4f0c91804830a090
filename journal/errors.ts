/**
 * Errors a journal throws (I5, I6, D7, A4). They belong to the package's one error family: each
 * extends ResellerClientError, carries a stable `code` and has a guard that works across copies.
 */
import { errorGuard, ResellerClientError, type CommandState } from "../core";

/** Thrown by record() when another command for the same lockKey is in flight (I6). */
export class DomainLockedError extends ResellerClientError {
  override readonly name = "DomainLockedError";
  override readonly code = "domain_locked" as const;
  constructor(
    readonly lockKey: string,
    readonly heldBy: string,
  ) {
    super(
      `A command for ${lockKey} is already in flight (command ${heldBy}), so nothing was sent (I6). ` +
        "Settle that one first: call again with its own Idempotency-Key (the journal resumes it), " +
        "client.operations.wait(uuid, { commandId }) if it was accepted, or client.recover().",
    );
  }
}

/** Thrown by transition() for a move the state machine does not allow. */
export class InvalidTransitionError extends ResellerClientError {
  override readonly name = "InvalidTransitionError";
  override readonly code = "invalid_transition" as const;
  constructor(
    readonly from: CommandState,
    readonly to: CommandState,
  ) {
    super(`Command state cannot move from ${from} to ${to}.`);
  }
}

/**
 * Thrown by record() when the API key already has a command with this Idempotency-Key (or the id is
 * taken). D7: never reuse a key for a new business action — look the existing command up instead.
 */
export class DuplicateCommandError extends ResellerClientError {
  override readonly name = "DuplicateCommandError";
  override readonly code = "duplicate_command" as const;
  constructor(
    readonly apiKeyId: string,
    readonly idempotencyKey: string,
    /** The id of the command already holding the key, when known. */
    readonly existingId: string | undefined,
  ) {
    super(`The Idempotency-Key is already used by command ${existingId ?? "(unknown)"} of this API key.`);
  }
}

/** Thrown by addAttempt() and transition() for an id the journal does not hold. */
export class UnknownCommandError extends ResellerClientError {
  override readonly name = "UnknownCommandError";
  override readonly code = "unknown_command" as const;
  constructor(readonly id: string) {
    super(`No command with id ${id} in the journal.`);
  }
}

/**
 * Thrown by record() when the command would put a bearer token into the journal (A4, H2): the
 * caller must abort the send rather than persist (or transmit) a secret.
 */
export class SensitiveDataError extends ResellerClientError {
  override readonly name = "SensitiveDataError";
  override readonly code = "sensitive_data" as const;
  constructor(readonly field: string) {
    super(`Refusing to journal a command whose ${field} contains an API token or its secret part.`);
  }
}

/**
 * Thrown by a write made with a lease when another worker now owns the command (its lease expired
 * and a survivor claimed it): nothing was written, and this worker must not send it again.
 */
export class LeaseLostError extends ResellerClientError {
  override readonly name = "LeaseLostError";
  override readonly code = "lease_lost" as const;
  constructor(
    readonly id: string,
    readonly owner: string,
    readonly currentOwner: string | null,
  ) {
    super(
      `Worker ${owner} no longer owns command ${id} (now ${currentOwner ?? "nobody"}): its lease expired and another ` +
        "worker took it over. Leave it to that worker; raise leaseMs if pauses this long are expected.",
    );
  }
}

/** Thrown by every method of a journal (but close(), which may be called again) after `close()`: open a new one. */
export class JournalClosedError extends ResellerClientError {
  override readonly name = "JournalClosedError";
  override readonly code = "journal_closed" as const;
  constructor(what = "journal") {
    super(`The ${what} is closed: create a new one (and close it only when the client using it is done).`);
  }
}

/**
 * An optimistic write kept losing to other writers (G3): nothing was written. Retry the call; if it
 * persists, something rewrites this command in a loop.
 */
export class JournalContentionError extends ResellerClientError {
  override readonly name = "JournalContentionError";
  override readonly code = "journal_contention" as const;
  constructor(
    readonly id: string,
    tries: number,
  ) {
    super(
      `Command ${id} kept changing under this write; gave up after ${tries} tries without writing. Retry the call.`,
    );
  }
}

/** A stored row the journal cannot read (a newer schema, or edited by hand): it refuses to guess. */
export class JournalCorruptError extends ResellerClientError {
  override readonly name = "JournalCorruptError";
  override readonly code = "journal_corrupt" as const;
  constructor(message: string) {
    super(
      `${message} Was the journal written by a newer version of reseller-api, or edited by hand? Upgrade, or restore it.`,
    );
  }
}

/** Guards by class; each also recognises errors from a duplicate copy of the package. */
export const isDomainLockedError = errorGuard<DomainLockedError>("domain_locked");
export const isInvalidTransitionError = errorGuard<InvalidTransitionError>("invalid_transition");
export const isDuplicateCommandError = errorGuard<DuplicateCommandError>("duplicate_command");
export const isUnknownCommandError = errorGuard<UnknownCommandError>("unknown_command");
export const isSensitiveDataError = errorGuard<SensitiveDataError>("sensitive_data");
export const isLeaseLostError = errorGuard<LeaseLostError>("lease_lost");
export const isJournalClosedError = errorGuard<JournalClosedError>("journal_closed");
export const isJournalContentionError = errorGuard<JournalContentionError>("journal_contention");
export const isJournalCorruptError = errorGuard<JournalCorruptError>("journal_corrupt");
