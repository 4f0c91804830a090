/**
 * Retry budget (I2, "bound the number of retries"): a token bucket shared by every command of one
 * client, like the AWS SDK's retry quota. Each retry spends tokens, each success refills a little.
 * During a total outage the bucket drains, after which every command makes exactly one attempt —
 * retries stop amplifying the outage (about one attempt per command once it is spent).
 * 429 retries are NOT charged: the limiter's answer means nothing happened, and the pacer already
 * pauses the whole key (C12).
 */

import { DEFAULT_RETRY_BUDGET } from "../core";

export interface RetryBudgetOptions {
  /**
   * Bucket size in tokens.
   * @default DEFAULT_RETRY_BUDGET.capacity (500)
   */
  capacity?: number | undefined;
  /**
   * Cost of a retry after a 5xx, a network error or a malformed body.
   * @default DEFAULT_RETRY_BUDGET.retryCost (5)
   */
  retryCost?: number | undefined;
  /**
   * Cost of a retry after a timeout (timeouts hold resources longer).
   * @default DEFAULT_RETRY_BUDGET.timeoutCost (10)
   */
  timeoutCost?: number | undefined;
  /**
   * Tokens returned by every successful attempt that needed no retry.
   * @default DEFAULT_RETRY_BUDGET.successRefill (1)
   */
  successRefill?: number | undefined;
}

export interface RetryBudget {
  /** Takes the cost of one retry; false (and nothing taken) when the bucket cannot pay. */
  tryAcquire(kind: "error" | "timeout"): number | false;
  /** A command finished with a response: refund what its retries cost, or `successRefill`. */
  onSuccess(spentByThisCommand: number): void;
  /** Tokens left. */
  available(): number;
}

export function createRetryBudget(options: RetryBudgetOptions = {}): RetryBudget {
  // `{ capacity: undefined }` keeps the default, like an absent field.
  const cfg: Record<keyof typeof DEFAULT_RETRY_BUDGET, number> = { ...DEFAULT_RETRY_BUDGET };
  for (const k of Object.keys(cfg) as (keyof typeof cfg)[]) if (options[k] !== undefined) cfg[k] = options[k];
  for (const [k, v] of Object.entries(cfg)) {
    if (!Number.isFinite(v) || v < 0) throw new RangeError(`retry.budget.${k} must be a finite number ≥ 0.`);
  }
  let tokens = cfg.capacity;
  return {
    tryAcquire(kind) {
      const cost = kind === "timeout" ? cfg.timeoutCost : cfg.retryCost;
      if (tokens < cost) return false;
      tokens -= cost;
      return cost;
    },
    onSuccess(spent) {
      tokens = Math.min(cfg.capacity, tokens + (spent > 0 ? spent : cfg.successRefill));
    },
    available: () => tokens,
  };
}
