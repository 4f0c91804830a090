/**
 * The live line and the ETA, driven by the client's own events on an injected clock (no process,
 * no wall clock): a 429 pause stays a 429, the line keeps the state and the pause first at 80 and
 * 120 columns, the ETA counts rows in flight as partly done and measures requests per row.
 */
import { describe, expect, it } from "vitest";
import type { ClientEvent } from "../../src/index";
import { failureOf } from "../../cli/connect";
import { isoTimes, renderTable } from "../../cli/output";
import { Progress } from "../../cli/progress";
import { fitFields, rowFields } from "../../cli/row-line";
import { termsOfKey } from "../../cli/renewals";
import { plainWords } from "../../cli/support-note";

function setup(now: { t: number }) {
  return new Progress(
    "renew",
    () => ({ limit: 30, remaining: 30, pausedUntil: null, windowEndsAt: null, windowMs: 10_000 }),
    () => now.t,
  );
}

const pacing = (event: unknown) => ({ type: "pacing", event }) as unknown as ClientEvent;

describe("the progress line", () => {
  it("C12: a 429 pause is shown as a 429, not replaced by the 'window full' wait of the sends queued behind it", () => {
    const now = { t: 1_000_000 };
    const p = setup(now);
    p.counters.total = 50;
    const e429 = p.clientEvent(pacing({ type: "pause", reason: "retry-after", untilMs: now.t + 10_000 }));
    expect(e429).toMatchObject({ type: "pause", status: 429, until: new Date(now.t + 10_000).toISOString() });
    expect(e429).not.toHaveProperty("untilMs"); // an ISO string is not "…Ms"
    now.t += 1;
    expect(p.clientEvent(pacing({ type: "window-wait", waitMs: 9_999 }))).toBeUndefined();
    expect(p.line()).toContain("paused 10s: 429: whole key paused for Retry-After");
    expect(p.line()).not.toContain("window full");
  });

  for (const width of [80, 120]) {
    it(`${width} columns: the state and the pause countdown come first; the least useful fields are dropped first`, () => {
      const now = { t: 2_000_000 };
      const p = setup(now);
      p.counters.total = 236;
      p.counters.finished = 17;
      p.counters.inFlight = 8;
      p.counters.retries = 3;
      p.status = "interrupted: Ctrl-C again exits now; finishing 8 in flight";
      p.clientEvent(pacing({ type: "pause", reason: "retry-after", untilMs: now.t + 10_000 }));
      const line = p.line(width - 1);
      expect(line.length).toBeLessThanOrEqual(width - 1);
      expect(line).toMatch(/^renew 17\/236 7% · paused 10s: 429/);
      expect(line).toContain("Ctrl-C again");
      expect(p.line(400)).toContain("in flight 8"); // everything when there is room
    });
  }

  it("the ETA measures requests per row on the rows themselves and counts a row in flight as partly done; 'done' at the end, never 0ms", async () => {
    const now = { t: 3_000_000 };
    const p = setup(now);
    const attempt = (delayMs = 0) => p.clientEvent({ type: "attempt", delayMs } as unknown as ClientEvent);
    p.eta.priorRequestsPerRow = 3;
    p.jobStarted();
    p.counters.total = 50;
    expect(p.requestsLeft()).toBe(150); // prior: 3 per row
    attempt(); // a name lookup for every row: no row's cost
    for (let i = 0; i < 4; i++) {
      await p.runRow(async () => {
        attempt();
        await Promise.resolve();
        attempt();
      });
      p.counters.finished += 1;
    }
    // 8 requests over 4 rows, the prior weighing as one more row: 11 / 5.
    expect(p.measuredRequestsPerRow()).toBeCloseTo(2.2);
    let release: () => void = () => undefined;
    const inFlight = p.runRow(
      () =>
        new Promise<void>((resolve) => {
          attempt();
          release = resolve;
        }),
    );
    // 45 rows not started at 2.2 each; the one in flight has sent 1 and still needs 1.2.
    expect(p.requestsLeft()).toBeCloseTo(45 * 2.2 + 1.2);
    release();
    await inFlight;
    p.counters.finished = 50;
    expect(p.etaMs()).toBe(0);
    expect(p.line()).toContain("ETA done");
  });

  it("the progress line's unknown count is the summary's (rows whose outcome is unknown)", () => {
    const p = setup({ t: 0 });
    p.counters.unknownOutcomeEvents = 4; // transient client events, later reconciled
    p.counters.byKind = { unknown: 1, done: 3 };
    expect(p.line()).toContain("unknown 1");
  });
});

describe("result lines fit the terminal (issue item 2)", () => {
  const accepted = {
    line: 12,
    subject: "a-rather-long-domain-name-for-a-row.kz",
    kind: "accepted" as const,
    message: "not waited for (--no-wait): operation 7a1b2c3d-0000-4000-8000-000000000001",
  };
  const target = [{ text: "→ 2028-12-01", drop: 1, glue: " " }];

  it("everything when there is room (and with no terminal)", () => {
    const full = `line 12  ${accepted.subject} → 2028-12-01  accepted  ${accepted.message}`;
    expect(fitFields(rowFields(accepted, target), undefined)).toBe(full);
    expect(fitFields(rowFields(accepted, target), 200)).toBe(full);
  });

  it("120 columns: the message is cut short first; the line number, subject, target and outcome stay", () => {
    const line = fitFields(rowFields(accepted, target), 119);
    expect(line.length).toBe(119);
    expect(line).toMatch(
      /^line 12 {2}a-rather-long-domain-name-for-a-row\.kz → 2028-12-01 {2}accepted {2}not waited for .*…$/,
    );
  });

  it("80 columns and narrower: the line number goes, then the message, then the target; at last the subject is shortened", () => {
    const at80 = fitFields(rowFields(accepted, target), 79);
    expect(at80.length).toBeLessThanOrEqual(79);
    expect(at80).toMatch(/^a-rather-long-domain-name-for-a-row\.kz → 2028-12-01 {2}accepted {2}not waited for.*…$/);
    expect(fitFields(rowFields(accepted, target), 64)).toBe(
      "a-rather-long-domain-name-for-a-row.kz → 2028-12-01  accepted",
    );
    expect(fitFields(rowFields(accepted, target), 60)).toBe("a-rather-long-domain-name-for-a-row.kz  accepted");
    const tiny = fitFields(rowFields(accepted, target), 30);
    expect(tiny.length).toBeLessThanOrEqual(30);
    expect(tiny).toMatch(/^a-rather-long-domai… {2}accepted$/);
  });
});

describe("smaller items", () => {
  it("connection failures are classified by the transport's code", () => {
    expect(failureOf("ECONNREFUSED")).toBe("refused");
    expect(failureOf("ENOTFOUND")).toBe("dns");
    expect(failureOf("EAI_AGAIN")).toBe("dns");
    expect(failureOf("UND_ERR_CONNECT_TIMEOUT")).toBe("timeout");
    expect(failureOf("DEPTH_ZERO_SELF_SIGNED_CERT")).toBe("tls");
    expect(failureOf("ERR_TLS_CERT_ALTNAME_INVALID")).toBe("tls");
    expect(failureOf("ECONNRESET")).toBe("network");
  });

  it("support notes say things in plain words, without internal rule ids", () => {
    expect(plainWords("the server keeps answering 409 (D6): stuck")).toBe("the server keeps answering 409: stuck");
    expect(plainWords("F4: outcome not confirmed (E4, F1)")).toBe("outcome not confirmed");
  });

  it("one timestamp format in JSON: epoch-ms time fields become ISO 8601, durations stay numbers", () => {
    expect(
      isoTimes({
        at: 1_790_000_000_000,
        untilMs: 1_790_000_010_000,
        delayMs: 1500,
        nested: [{ createdAt: 1_790_000_000_000 }],
      }),
    ).toEqual({
      at: new Date(1_790_000_000_000).toISOString(),
      until: new Date(1_790_000_010_000).toISOString(),
      delayMs: 1500,
      nested: [{ createdAt: new Date(1_790_000_000_000).toISOString() }],
    });
  });

  it("an already-done row names the terms its command went from and to (from its key), not the next ones", () => {
    expect(termsOfKey("rsl-cli:renew:5555aaaa-0000-4000-8000-000000000000:1y:2028-12-01")).toEqual({
      from: "2027-12-01",
      target: "2028-12-01",
    });
    expect(termsOfKey("rsl-cli:renew:5555aaaa-0000-4000-8000-000000000000:2y:2029-12-01:a2")).toEqual({
      from: "2027-12-01",
      target: "2029-12-01",
    });
    expect(termsOfKey("my-own-key")).toBeUndefined();
  });

  it("tables fit the width: low-priority columns hidden first (and said so), then truncated; --wide keeps all", () => {
    const rows = [
      {
        id: "7a1b2c3d-0000-4000-8000-000000000001",
        state: "needs_manual_check",
        path: "/domains/5555aaaa-0000-4000-8000-000000000000/renew",
      },
    ];
    const cols = [
      { header: "id", value: (r: (typeof rows)[0]) => r.id, priority: 2 },
      { header: "state", value: (r: (typeof rows)[0]) => r.state },
      { header: "path", value: (r: (typeof rows)[0]) => r.path, priority: 1 },
    ];
    const narrow = renderTable(rows, cols, { columns: 60 });
    expect(Math.max(...narrow.split("\n").map((l) => l.length))).toBeLessThanOrEqual(60);
    expect(narrow).toContain("needs_manual_check");
    expect(narrow).toMatch(/\(hidden to fit: id; --wide shows all\)/);
    const wide = renderTable(rows, cols, { columns: 60, wide: true });
    expect(wide).toContain(rows[0].id);
    expect(wide).toContain(rows[0].path);
  });
});
