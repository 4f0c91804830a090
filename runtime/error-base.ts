/**
 * The base of every error the package throws — the client's and the emulator's,
 * which never imports the client: both extend this one class, so `instanceof ResellerClientError`
 * and the guards hold for all of them.
 */

/**
 * Marks every error of this package. `Symbol.for` is global to the process, so the guards below also
 * recognise errors thrown by a second copy of the package (two versions in node_modules, a CJS and an
 * ESM copy), where `instanceof` fails.
 */
const BRAND = Symbol.for("reseller-api.ResellerClientError");

/** Stable machine-readable codes, one per error class; branch on these, never on `message`. */
export type ResellerErrorCode =
  | "reseller_error"
  | "invalid_options"
  | "invalid_argument"
  | "invalid_token"
  | "live_only"
  | "insecure_transport"
  | "request_aborted"
  | "pagination_failed"
  | "network_error"
  | "timeout"
  | "deadline_exceeded"
  | "response_too_large"
  | "domain_locked"
  | "invalid_transition"
  | "duplicate_command"
  | "unknown_command"
  | "sensitive_data"
  | "missing_dependency"
  | "lease_lost"
  | "journal_closed"
  | "journal_contention"
  | "journal_corrupt"
  | "store_unavailable"
  | "client_closed"
  | "cli_usage"
  | "cli_setup"
  | "cli_connection"
  | "emulator_control";

/** Base class of every error the package throws. */
export class ResellerClientError extends Error {
  override readonly name: string = "ResellerClientError";
  readonly code: ResellerErrorCode = "reseller_error";
  declare readonly [BRAND]: true;
  static {
    Object.defineProperty(this.prototype, BRAND, { value: true });
  }
}

/** True for any error this package throws, from this copy of the package or another one. */
export function isResellerClientError(value: unknown): value is ResellerClientError {
  return typeof value === "object" && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
}

/** Builds a guard for one error class by its stable `code` (works across duplicate package copies). */
export function errorGuard<E extends ResellerClientError>(code: E["code"]): (value: unknown) => value is E {
  return (value: unknown): value is E => isResellerClientError(value) && value.code === code;
}
