/**
 * Local validation middleware (A9, H1, B1–B4, D4): a call that the server would reject for a
 * reason we can see locally throws a typed error BEFORE anything is sent — not even to the pacer.
 */
import type { ChainStep } from "./chain";
import { InvalidArgumentError } from "../core";
import { checkLiveOnly, validatePathParams, validateQuery } from "../core";

export interface LocalValidationOptions {
  environment: "test" | "live";
  /** B4 escape hatch for a deliberate live-only probe with a test key (expect 403). */
  allowLiveOnlyWithTestKey?: boolean;
}

export function createLocalValidationMiddleware(options: LocalValidationOptions): ChainStep {
  return {
    onRequest({ request, params, callContext: ctx }) {
      if (!ctx) return undefined;
      const { op } = ctx;
      validatePathParams(op, params.path);
      validateQuery(op, params.query);
      checkLiveOnly(op, options.environment, options.allowLiveOnlyWithTestKey ?? false);
      // D4: an operation without a requestBody sends NO body — never "{}".
      if (!op.hasBody && request.body !== null) {
        throw new InvalidArgumentError(`${op.operationId} takes no request body (D4).`, "body");
      }
      return undefined;
    },
  };
}
