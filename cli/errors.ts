/**
 * Errors the CLI raises itself. They extend the SDK's ResellerClientError, each with a stable `code`
 * (a script embedding the CLI modules catches one family and branches on the code); each message says
 * what to do instead.
 */
import { ResellerClientError } from "../src/index";

/** Bad flags or arguments (or a missing input file): nothing was sent. Exit code 2. */
export class UsageError extends ResellerClientError {
  override readonly name = "UsageError";
  override readonly code = "cli_usage" as const;
}

/** The job could not start (journal, credentials file, context call): nothing was sent for any row. */
export class SetupError extends ResellerClientError {
  override readonly name = "SetupError";
  override readonly code = "cli_setup" as const;
}

/** Why the API could not be reached: nobody received the request. */
export type ConnectionFailure = "refused" | "dns" | "tls" | "timeout" | "network";

/** The API's host could not be reached at all (the first request of a command): exit code 4. */
export class ConnectionError extends ResellerClientError {
  override readonly name = "ConnectionError";
  override readonly code = "cli_connection" as const;
  constructor(
    message: string,
    readonly failure: ConnectionFailure,
    /** host:port that was tried (never a path, a query or userinfo). */
    readonly host: string,
  ) {
    super(message);
  }
}
