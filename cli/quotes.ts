/**
 * Dry-run pricing: one POST /quotes (it buys nothing) per zone, action and period, cached, and a
 * running total per currency in minor units so that "4500.00" × 400 adds up exactly.
 */
import type { ResellerClient } from "../src/index";
import { zoneOf } from "./rows";
import { dataRecordOf, priceOf } from "./shape";

export interface Price {
  amount: string;
  currency: string;
}

function toMinor(amount: string): bigint | null {
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(amount.trim());
  if (!m) return null;
  return BigInt(m[1]) * 100n + BigInt((m[2] ?? "").padEnd(2, "0"));
}

function fromMinor(minor: bigint): string {
  const whole = minor / 100n;
  const cents = (minor % 100n).toString().padStart(2, "0");
  return `${whole}.${cents}`;
}

export class QuoteBook {
  private readonly cache = new Map<string, Promise<Price | { error: string }>>();
  private readonly totals = new Map<string, bigint>();
  rows = 0;

  constructor(
    private readonly client: ResellerClient,
    private readonly zones: readonly string[],
  ) {}

  /** The price of `action` for `domain` over `period` years (one quote per zone, action and period). */
  price(action: "register" | "renew", domain: string, period: number): Promise<Price | { error: string }> {
    const key = `${action}:${zoneOf(domain, this.zones) ?? domain}:${period}`;
    let cached = this.cache.get(key);
    if (!cached) {
      cached = this.client.quotes.create({ body: { action, domain, period } }).then((outcome) => {
        if (outcome.kind !== "succeeded") {
          const code = "error" in outcome && outcome.error ? ` ${outcome.error.code}` : "";
          return {
            error: `quote ${outcome.kind}${"status" in outcome && outcome.status ? ` ${outcome.status}` : ""}${code}`,
          };
        }
        const price = priceOf(dataRecordOf(outcome.data)?.price);
        return price ?? { error: "quote without a price" };
      });
      this.cache.set(key, cached);
    }
    return cached;
  }

  add(price: Price | { error: string }): void {
    this.rows += 1;
    if ("error" in price) return;
    const minor = toMinor(price.amount);
    if (minor === null) return;
    this.totals.set(price.currency, (this.totals.get(price.currency) ?? 0n) + minor);
  }

  /** e.g. [{ currency: "KZT", amount: "180000.00" }] */
  total(): Price[] {
    return [...this.totals].map(([currency, minor]) => ({ currency, amount: fromMinor(minor) }));
  }
}
