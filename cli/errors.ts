/**
 * Errors the CLI raises itself. They extend the SDK's ResellerClientError so that a script embedding
 * the CLI modules can catch one family; each message says what to do instead.
 */
import { ResellerClientError } from "../src/index";

/** Bad flags or arguments: nothing was sent. Exit code 2. */
export class UsageError extends ResellerClientError {
  override readonly name = "UsageError";
}

/** The job could not start (journal, credentials file, context call): nothing was sent for any row. */
export class SetupError extends ResellerClientError {
  override readonly name = "SetupError";
}
