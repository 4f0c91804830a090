/**
 * The client's public type: what `createResellerClient()` returns and what each facade method resolves to.
 */
import type { Client } from "openapi-fetch";
import type { paths } from "../generated/schema";
import type { OperationData, ResourceFacade } from "../generated/client";
import type { operationTable, OperationId } from "../generated/operations";
import type { CallOptions, ReadCallOptions, RetryBudget } from "../runner";
import type { Outcome } from "../core";
import type { Pacer } from "../pacing";
import type { RecoverOptions, RecoverSummary } from "../recovery";
import type { PagedCall } from "./paged-call";
import type { WaitOptions, WaitResult } from "./operations-wait";

/** The item type of a list operation's pages (`unknown` for an operation that is not a list). */
export type PageItem<K extends OperationId> = OperationData[K] extends { data: readonly (infer I)[] } ? I : unknown;

/** What each facade method returns: a PagedCall for list operations, else a Promise of the Outcome. */
export type ResultMap = {
  [K in OperationId]: (typeof operationTable)[K]["pagination"] extends null
    ? Promise<Outcome<OperationData[K]>>
    : PagedCall<PageItem<K>, OperationData[K]>;
};

/**
 * A client of the Reseller API: one method per operation (`client.domains.renew(...)`), each
 * resolving to an {@link Outcome}, plus `operations.wait`, `recover` and the pacing handles.
 */
export type ResellerClient = Omit<ResourceFacade<ResultMap, CallOptions, ReadCallOptions>, "operations"> & {
  operations: ResourceFacade<ResultMap, CallOptions, ReadCallOptions>["operations"] & {
    /**
     * Polls an async operation (F1–F4: a 202 confirms acceptance only) until it is completed or
     * failed, or the deadline passes. Never throws for an HTTP result.
     */
    wait(operationUuid: string, options?: WaitOptions): Promise<WaitResult>;
  };
  /** An openapi-fetch client with the same middleware registered, for direct calls by path. */
  http: Client<paths>;
  /** This client's pacer: the queue shared by every request of its key (C12, I1: never throttled). */
  pacer: Pacer;
  /** The retry budget shared by this client's commands (I2: retries are bounded). */
  retryBudget: RetryBudget;
  /** Environment and public key id from the token (never the secret). */
  credential: { environment: "test" | "live"; publicKeyId: string };
  /**
   * Settles this key's journalled commands left in recorded, sending, unknown, conflict, reconciling
   * or accepted after a crash or restart (G4: recover by looking up, never by buying again): each is
   * decided by a GET or resent with its own Idempotency-Key and bytes, never a new key or new bytes.
   * Throws InvalidOptionsError at once when the client has no `journal`.
   */
  recover(options?: RecoverOptions): Promise<RecoverSummary>;
  /** The start-up recovery (`recoverOnStart`), or undefined when it was not requested. */
  recovery: Promise<RecoverSummary> | undefined;
  /** Fleet mode: this instance's worker id (option `fleet.workerId`), or undefined outside fleet mode. */
  workerId: string | undefined;
  /**
   * Shuts the client down gracefully. From the first call on, a new facade call, `operations.wait` or
   * `recover()` throws `ClientClosedError` (nothing recorded or sent). Work already started
   * finishes — the fleet heartbeat keeps its leases meanwhile — and the start-up and continuous
   * recovery stop (a continuous round is aborted; what it left open stays journalled). Resolves when
   * all of that is done; abort your calls' `signal` to leave sooner. Then close the journal and the
   * window store: they are yours.
   */
  close(): Promise<void>;
};
