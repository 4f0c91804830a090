/**
 * The CLI's pure parts: the Idempotency-Key derived from a renewal's own inputs, the window-model ETA,
 * durations, the token-on-argv guard, exit codes, and input rows. No process, no network.
 */
import { describe, expect, it } from "vitest";
import { parseDuration, refuseTokenArguments } from "../../cli/args";
import { UsageError } from "../../cli/errors";
import { EXIT, exitCodeFor } from "../../cli/exit-codes";
import { Progress } from "../../cli/progress";
import { renewKey, targetTerm } from "../../cli/renewals";
import { checkDomainName, DuplicateTracker } from "../../cli/rows";
import { orderFromRecord } from "../../cli/cmd-register";
import { CLI_DEFAULTS } from "../../cli/defaults";

const TOKEN = `rsl_test_${"A".repeat(24)}.${"b".repeat(64)}`;

describe("renewal keys", () => {
  it("D2: the key is the domain UUID, the period and the target term — stable across runs, no name, ≤ 160 chars", () => {
    const uuid = "5555AAAA-5555-4555-8555-555555555555";
    const key = renewKey(uuid, 2, targetTerm("2027-10-05T09:00:00+00:00", 2), 1);
    expect(key).toBe("rsl-cli:renew:5555aaaa-5555-4555-8555-555555555555:2y:2029-10-05");
    expect(renewKey(uuid, 2, "2029-10-05", 1)).toBe(key);
    expect(key.length).toBeLessThanOrEqual(160);
    expect(renewKey(uuid, 2, "2029-10-05", 2)).toBe(`${key}:a2`); // a new attempt after a failure is a new key
  });
});

describe("ETA", () => {
  it("C3: the ETA follows the fixed window: what is left of the open window, then whole windows of L", () => {
    const now = 1_000_000;
    const progress = new Progress(
      "renew",
      () => ({ limit: 60, remaining: 10, pausedUntil: null, windowEndsAt: now + 1000, windowMs: 3000 }),
      () => now,
    );
    progress.counters.total = 100;
    // 10 slots now (spaced W/L = 50 ms), then 90 more: window end (+1000) + 1 full window (+3000), and
    // in the last window the first send at its opening, 29 more one spacing apart.
    expect(progress.etaMs()).toBe(1000 + 3000 + 29 * 50);
    progress.counters.total = 8;
    expect(progress.etaMs()).toBe(8 * 50);
  });

  it("C8: in each window the pacer opens, its burst allowance goes out at once (no more than the rows in flight)", () => {
    const now = 1_000_000;
    const progress = new Progress(
      "renew",
      () => ({ limit: 60, remaining: 10, pausedUntil: null, windowEndsAt: now + 1000, windowMs: 3000, burst: 4 }),
      () => now,
    );
    progress.counters.total = 100;
    progress.eta.lanes = 8;
    expect(progress.etaMs()).toBe(1000 + 3000 + (30 - 4) * 50);
    progress.eta.lanes = 2; // two rows in flight queue two sends at most
    expect(progress.etaMs()).toBe(1000 + 3000 + (30 - 2) * 50);
  });

  it("C12: a pause in force is added before any slot", () => {
    const now = 5_000;
    const progress = new Progress(
      "renew",
      () => ({ limit: 60, remaining: null, pausedUntil: now + 4000, windowEndsAt: null, windowMs: 3000 }),
      () => now,
    );
    progress.counters.total = 60;
    expect(progress.etaMs()).toBe(4000 + 59 * 50);
    expect(progress.line()).toMatch(/^renew 0\/60 0% · ETA 7s · 429s 0 · unknown 0 · retries 0 · 0\.0\/s$/);
  });
});

describe("arguments", () => {
  it("durations: 30d, 12h, 90m, 45s, 1500ms; a bare number is days", () => {
    expect(parseDuration("--x", "30d")).toBe(30 * 86_400_000);
    expect(parseDuration("--x", "12h")).toBe(12 * 3_600_000);
    expect(parseDuration("--x", "90m")).toBe(90 * 60_000);
    expect(parseDuration("--x", "1500ms")).toBe(1500);
    expect(parseDuration("--x", "7")).toBe(7 * 86_400_000);
    expect(() => parseDuration("--x", "soon")).toThrow(UsageError);
  });

  it("A4: a token-shaped argument is refused and the message never contains it", () => {
    for (const argv of [
      ["--token", "x"],
      [`--token=${TOKEN}`],
      ["check", TOKEN],
      ["--base-url", `https://h/?t=${TOKEN}`],
    ]) {
      let error: unknown;
      try {
        refuseTokenArguments(argv);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toContain("RESELLER_API_TOKEN");
      expect((error as Error).message).not.toContain("b".repeat(64));
    }
    expect(() => refuseTokenArguments(["renew", "names.txt", "--period", "2"])).not.toThrow();
  });
});

describe("exit codes", () => {
  it("unknown/manual/pending outrank rejected, which outranks done; Ctrl-C is 130", () => {
    expect(exitCodeFor({ done: 3, already_done: 2 }, false)).toBe(EXIT.ok);
    expect(exitCodeFor({ done: 3, invalid: 1 }, false)).toBe(EXIT.rejected);
    expect(exitCodeFor({ rejected: 1, manual: 1 }, false)).toBe(EXIT.unsettled);
    expect(exitCodeFor({ done: 1 }, true)).toBe(EXIT.interrupted);
  });
});

describe("input rows", () => {
  const zones = CLI_DEFAULTS.input.zones;
  it("names: lower-cased, in a sold zone, else a reason", () => {
    expect(checkDomainName("Example.KZ.", zones)).toEqual({ name: "example.kz" });
    expect(checkDomainName("shop.com.kz", zones)).toEqual({ name: "shop.com.kz" });
    expect(checkDomainName("example.com", zones)).toMatchObject({
      error: expect.stringContaining("unknown zone .com"),
    });
    expect(checkDomainName("-bad.kz", zones)).toMatchObject({ error: expect.stringContaining("not a domain name") });
  });

  it("F5: an order's body keeps a fixed key order (same bytes on every run); external_id is required", () => {
    const a = orderFromRecord(
      { line: 2, fields: { domain: "a.kz", external_id: "e-1", period: "2", nameservers: "ns1.a.kz;ns2.a.kz" } },
      { period: 1, zones },
    );
    const b = orderFromRecord(
      { line: 9, fields: { nameservers: ["NS1.a.kz", "ns2.a.kz"], period: 2, external_id: "e-1", domain: "A.kz" } },
      { period: 1, zones },
    );
    expect("bytes" in a && "bytes" in b && a.bytes === b.bytes).toBe(true);
    expect("bytes" in a && a.bytes).toBe(
      '{"external_id":"e-1","action":"register","domain":"a.kz","period":2,"nameservers":["ns1.a.kz","ns2.a.kz"]}',
    );
    expect(orderFromRecord({ line: 3, fields: { domain: "a.kz" } }, { period: 1, zones })).toMatchObject({
      kind: "invalid",
      line: 3,
    });
  });

  it("duplicates: the same key and body is a duplicate line; another body is a reused key", () => {
    const t = new DuplicateTracker();
    expect(t.check("e-1", "{a}", 2, "external_id")).toBeNull();
    expect(t.check("e-1", "{a}", 5, "external_id")).toContain("duplicate of line 2");
    expect(t.check("e-1", "{b}", 7, "external_id")).toContain("already used on line 2");
  });
});
