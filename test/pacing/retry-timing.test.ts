import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { MAX_RETRY_AFTER_MS, backoffDelay, parseHttpDate, parseRetryAfter, pauseAfter429 } from "../../pacing";

const NOW = Date.UTC(2026, 9, 5, 9, 0, 0); // 2026-10-05T09:00:00Z, a Monday

describe("parseRetryAfter (C11, C12, RFC 9110 §10.2.3)", () => {
  it("C11: the limiter's integer seconds", () => {
    expect(parseRetryAfter("42", NOW)).toEqual({ ms: 42_000, source: "seconds" });
    expect(parseRetryAfter("0", NOW)).toEqual({ ms: 0, source: "seconds" });
    expect(parseRetryAfter("007", NOW)).toEqual({ ms: 7_000, source: "seconds" });
    expect(parseRetryAfter(" 5 ", NOW)).toEqual({ ms: 5_000, source: "seconds" });
  });

  it("C12: absent header → null (caller falls back to backoff)", () => {
    expect(parseRetryAfter(null, NOW)).toBeNull();
    expect(parseRetryAfter(undefined, NOW)).toBeNull();
    expect(parseRetryAfter("", NOW)).toBeNull();
    expect(parseRetryAfter("   ", NOW)).toBeNull();
  });

  it("C12: negatives, decimals, signs, exponents and garbage → null", () => {
    for (const v of ["-1", "-0", "1.5", "1,5", "+3", "1e3", "0x10", "abc", "5 s", "NaN", "Infinity", "١٢"]) {
      expect(parseRetryAfter(v, NOW), v).toBeNull();
    }
  });

  it("C12: huge delta-seconds are clamped to MAX_RETRY_AFTER_MS, never overflow", () => {
    expect(parseRetryAfter("3600", NOW)).toEqual({ ms: MAX_RETRY_AFTER_MS, source: "seconds" });
    expect(parseRetryAfter("3601", NOW)).toEqual({ ms: MAX_RETRY_AFTER_MS, source: "seconds" });
    expect(parseRetryAfter("9".repeat(40), NOW)).toEqual({ ms: MAX_RETRY_AFTER_MS, source: "seconds" });
    expect(parseRetryAfter("9".repeat(400), NOW)).toBeNull(); // absurdly long header: rejected outright
  });

  it("C12: a proxy's IMF-fixdate in the future", () => {
    expect(parseRetryAfter("Mon, 05 Oct 2026 09:00:30 GMT", NOW)).toEqual({ ms: 30_000, source: "http-date" });
  });

  it("C12: an HTTP-date in the past → 0; far future → clamped", () => {
    expect(parseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", NOW)).toEqual({ ms: 0, source: "http-date" });
    expect(parseRetryAfter("Fri, 01 Jan 2100 00:00:00 GMT", NOW)).toEqual({
      ms: MAX_RETRY_AFTER_MS,
      source: "http-date",
    });
  });

  it("C12: the obsolete rfc850 and asctime forms are accepted (RFC 9110 §5.6.7)", () => {
    expect(parseRetryAfter("Monday, 05-Oct-26 09:01:00 GMT", NOW)).toEqual({ ms: 60_000, source: "http-date" });
    expect(parseRetryAfter("Mon Oct  5 09:00:10 2026", NOW)).toEqual({ ms: 10_000, source: "http-date" });
  });

  it("C12: rfc850 two-digit year more than 50 years ahead means the past century", () => {
    expect(parseHttpDate("Sunday, 06-Nov-94 08:49:37 GMT", NOW)).toBe(Date.UTC(1994, 10, 6, 8, 49, 37));
    expect(parseHttpDate("Tuesday, 05-Oct-27 09:00:00 GMT", NOW)).toBe(Date.UTC(2027, 9, 5, 9, 0, 0));
  });

  it("C12: malformed dates → null (no Date.parse leniency)", () => {
    for (const v of [
      "Mon, 30 Feb 2026 09:00:00 GMT", // no Feb 30
      "Mon, 05 Oct 2026 25:00:00 GMT", // hour 25
      "Mon, 05 Foo 2026 09:00:00 GMT", // month
      "Xyz, 05 Oct 2026 09:00:00 GMT", // weekday
      "Mon, 05 Oct 2026 09:00:00 UTC", // zone must be GMT
      "2026-10-05T09:00:30Z", // ISO 8601 is not an HTTP-date
      "Mon, 5 Oct 2026 09:00:00 GMT", // IMF-fixdate has a 2-digit day
      "<html>429</html>",
    ]) {
      expect(parseRetryAfter(v, NOW), v).toBeNull();
    }
  });

  it("C12: parseRetryAfter never throws and stays within [0, MAX] for any string", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.stringMatching(/^[0-9]{0,30}$/), fc.constantFrom("0", "-1")),
        fc.integer(),
        (v, now) => {
          const r = parseRetryAfter(v, now);
          if (r !== null) {
            expect(r.ms).toBeGreaterThanOrEqual(0);
            expect(r.ms).toBeLessThanOrEqual(MAX_RETRY_AFTER_MS);
            expect(Number.isFinite(r.ms)).toBe(true);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("C12: any 1*DIGIT value parses as seconds", () => {
    fc.assert(
      fc.property(fc.nat({ max: 100_000 }), (n) => {
        expect(parseRetryAfter(String(n), NOW)).toEqual({
          ms: Math.min(n * 1000, MAX_RETRY_AFTER_MS),
          source: "seconds",
        });
      }),
    );
  });

  it("C12: every IMF-fixdate round-trips (Date#toUTCString emits IMF-fixdate)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3_600 }), (s) => {
        const header = new Date(NOW + s * 1000).toUTCString();
        expect(parseRetryAfter(header, NOW)).toEqual({ ms: s * 1000, source: "http-date" });
      }),
    );
  });
});

describe("backoffDelay (I2)", () => {
  it("I2: the seed's schedule with random = 0.5 (no jitter): 1, 2, 4, 8, 16 s, then the capped 32 s step", () => {
    const mid = () => 0.5;
    expect([0, 1, 2, 3, 4].map((a) => backoffDelay(a, { random: mid }))).toEqual([1000, 2000, 4000, 8000, 16000]);
    // 32 s × random(0.5, 1.5) capped at 32 s: drawn uniformly from [16 s, 32 s].
    expect(backoffDelay(5, { random: () => 0 })).toBe(16_000);
    expect(backoffDelay(5, { random: mid })).toBe(24_000);
  });

  it("I2: jitter spans ×0.5 .. ×1.5 below the cap", () => {
    expect(backoffDelay(2, { random: () => 0 })).toBe(2000);
    expect(backoffDelay(2, { random: () => 0.999999 })).toBeCloseTo(6000, 0);
  });

  it("I2: the cap applies after the jitter — never above capMs", () => {
    expect(backoffDelay(5, { random: () => 0.999999 })).toBeLessThanOrEqual(32_000);
    expect(backoffDelay(5, { random: () => 0 })).toBe(16_000);
    expect(backoffDelay(1_000_000, { random: () => 0.999999 })).toBeLessThanOrEqual(32_000);
    // Near the cap the range [0.5·d, cap] is spread uniformly, not piled up at the cap.
    expect(backoffDelay(5, { random: () => 0.5 })).toBe(24_000);
  });

  it("I2: bad attempts and bad random outputs stay in range", () => {
    expect(backoffDelay(-3, { random: () => 0 })).toBe(500);
    expect(backoffDelay(Number.NaN, { random: () => 0 })).toBe(500);
    expect(backoffDelay(0, { random: () => 7 })).toBe(1500);
    expect(backoffDelay(0, { random: () => Number.NaN })).toBe(1000);
  });

  it("I2: backoff is always within [0.5·min(cap, base·2^a), cap]", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -5, max: 5000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 120_000 }),
        (attempt, r, baseMs, capMs) => {
          const d = backoffDelay(attempt, { baseMs, capMs, random: () => r });
          const a = Math.max(0, attempt);
          expect(d).toBeGreaterThanOrEqual(0);
          expect(d).toBeLessThanOrEqual(capMs);
          const d0 = baseMs === 0 ? 0 : Math.min(capMs, baseMs * 2 ** Math.min(a, 1024));
          expect(d).toBeGreaterThanOrEqual(0.5 * d0 - 1e-9);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("pauseAfter429 (C12)", () => {
  it("C12: Retry-After plus a small random margin", () => {
    expect(pauseAfter429({ ms: 42_000 }, 0, { random: () => 0 })).toBe(42_000);
    // margin < 250 ms + 5 % of 42 s
    expect(pauseAfter429({ ms: 42_000 }, 0, { random: () => 0.999999 })).toBeCloseTo(42_000 + 250 + 2100, 0);
  });

  it("C12: Retry-After: 0 is floored, never a busy loop", () => {
    expect(pauseAfter429({ ms: 0 }, 0, { random: () => 0 })).toBe(250);
    expect(pauseAfter429({ ms: 0 }, 0, { random: () => 0.5, floorMs: 100, jitterMs: 100 })).toBe(150);
  });

  it("C12: a repeated Retry-After: 0 escalates like backoff", () => {
    expect(pauseAfter429({ ms: 0 }, 1, { random: () => 0 })).toBe(500);
    expect(pauseAfter429({ ms: 0 }, 3, { random: () => 0 })).toBe(2000);
  });

  it("C12: no header → bounded exponential backoff with jitter", () => {
    expect(pauseAfter429(null, 0, { random: () => 0.5 })).toBe(1000);
    expect(pauseAfter429(null, 4, { random: () => 0.5 })).toBe(16_000);
    expect(pauseAfter429(null, 50, { random: () => 0.999 })).toBeLessThanOrEqual(32_000);
  });

  it("C12: a tiny Retry-After is raised to the floor", () => {
    expect(pauseAfter429({ ms: 10 }, 0, { random: () => 0 })).toBe(250);
  });

  it("C12: non-finite or huge ms are clamped", () => {
    // A non-finite value is no information: backoff (attempt 0, random 0 → 500 ms).
    expect(pauseAfter429({ ms: Number.POSITIVE_INFINITY }, 0, { random: () => 0 })).toBe(500);
    expect(pauseAfter429({ ms: 1e15 }, 0, { random: () => 0 })).toBe(MAX_RETRY_AFTER_MS);
  });

  it("C12: the pause is always ≥ floor and finite", () => {
    fc.assert(
      fc.property(
        fc.option(fc.double({ min: -1e6, max: 1e16, noNaN: true }), { nil: null }),
        fc.integer({ min: -3, max: 100 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 0, max: 5000 }),
        (ms, attempt, r, floorMs) => {
          const p = pauseAfter429(ms === null ? null : { ms }, attempt, { floorMs, random: () => r });
          expect(Number.isFinite(p)).toBe(true);
          expect(p).toBeGreaterThanOrEqual(floorMs);
          expect(p).toBeLessThanOrEqual(Math.max(floorMs, MAX_RETRY_AFTER_MS) * 1.05 + 250 + 32_000);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
