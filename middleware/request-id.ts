/**
 * G2: X-Request-ID per attempt. This middleware sets one on the outgoing request (so a call that
 * bypasses the attempt loop still carries one); the attempt loop replaces it on every attempt using
 * the same generator. Not part of the idempotency fingerprint (D4).
 */
import type { ChainStep } from "./chain";

export type RequestIdGenerator = () => string;

export const randomRequestId: RequestIdGenerator = () => crypto.randomUUID();

export function createRequestIdMiddleware(generate: RequestIdGenerator = randomRequestId): ChainStep {
  return {
    onRequest({ request, callContext }) {
      // A documented operation goes through the attempt loop, which sets a fresh id per attempt.
      if (callContext) return undefined;
      if (!request.headers.has("X-Request-ID")) request.headers.set("X-Request-ID", generate());
      return undefined;
    },
  };
}
