/**
 * What to do after one attempt (E4, E5, G4, G5, I2, I4) — pure. The op's `x-unknown-outcome`
 * decides writes: `resend` retries with the same key and bytes, `reconcile` looks the result up
 * first (orders.create by external_id, F5), `report` returns unknown at once. GETs retry bounded.
 */
import type { OperationMeta } from "../generated/operations";
import type { Classified } from "./classify";

/** Result of one attempt as the policy sees it. */
export type AttemptResult = Classified | { kind: "transport"; error: "timeout" | "network" };

export type Decision =
  | { action: "stop" }
  /** C12: the pacer pauses the whole key; then the same command goes again. */
  | { action: "rate_limit" }
  /** Bounded retry with the same key and bytes, after backoff; `charge` is the budget kind. */
  | { action: "retry"; charge: "error" | "timeout" }
  /** Look the result up before any resend (I4, F5). */
  | { action: "reconcile" }
  /** Retrying is allowed by the table but a bound was reached: the outcome stays unknown. */
  | { action: "give_up"; why: "max_attempts" | "budget" | "report" };

export interface PolicyState {
  /** Attempts made so far for this command, including the one just classified (429s excluded). */
  attempts: number;
  rateLimitRetries: number;
  maxAttempts: number;
  maxRateLimitRetries: number;
}

/** True when the result says the side effect may have happened (E4 last rows). */
function isUnknown(result: AttemptResult): boolean {
  return result.kind === "unknown" || result.kind === "transport";
}

export function decide(op: OperationMeta, result: AttemptResult, state: PolicyState): Decision {
  if (result.kind === "rate_limited") {
    return state.rateLimitRetries < state.maxRateLimitRetries ? { action: "rate_limit" } : { action: "stop" };
  }
  // G5: 400/401/403/404/405/422 stop; 409 is reconciled by the caller, never retried with a new key.
  if (!isUnknown(result)) return { action: "stop" };
  // A body over maxResponseBytes comes back just as large on a retry or a replay: report it.
  if (result.kind === "unknown" && result.reason === "response_too_large") return { action: "give_up", why: "report" };
  const charge = result.kind === "transport" && result.error === "timeout" ? "timeout" : "error";
  const policy = op.method === "GET" ? "resend" : (op.unknownOutcome ?? "report");
  if (policy === "report") return { action: "give_up", why: "report" };
  if (policy === "reconcile") return { action: "reconcile" };
  if (state.attempts >= state.maxAttempts) return { action: "give_up", why: "max_attempts" };
  return { action: "retry", charge };
}
