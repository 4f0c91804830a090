/**
 * The ETA an operator reads, checked against when the job really ended: the CLI's own `main()` runs a
 * renew job on the in-process emulator with ONE VirtualClock shared by the emulator, the client, its
 * pacer and the progress line, so the measure is the job's own time and never the machine's load.
 */
import { EventEmitter } from "node:events";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../cli/main";
import type { Runtime } from "../../cli/job-session";
import { createEmulator, VirtualClock } from "../../emulator/public";
import { jsonLines, tempDir } from "./harness";
import { seeded } from "../client/harness";

const tmp = tempDir("reseller-cli-eta-");
afterAll(() => tmp.cleanup());

interface Scenario {
  rows: number;
  limit: number;
  windowMs: number;
  args: string[];
  /** How long each renewal's operation takes on the server (pending + processing), ms. */
  opMs?: number;
}

/** Runs `reseller --emulator … renew FILE` in this process on a VirtualClock; returns its stderr events. */
async function runJob(s: Scenario) {
  const clock = new VirtualClock();
  const emulator = createEmulator({
    clock,
    windowMs: s.windowMs,
    random: seeded(11),
    ...(s.opMs ? { operationPolicy: { pendingMs: 1_000, processingMs: s.opMs - 1_000 } } : {}),
  });
  const key = emulator.control.createKey({ environment: "test", rate_limit_per_minute: s.limit });
  emulator.control.deposit(key.public_key_id, 100_000_000_00);
  const names = Array.from({ length: s.rows }, (_, i) => `eta${String(i + 1).padStart(3, "0")}.kz`);
  emulator.control.seedDomains({
    token: key.token,
    names,
    expires_at: new Date(clock.now() + 20 * 86_400_000).toISOString(),
  });
  const file = join(tmp.dir, `rows-${s.rows}-${s.limit}-${s.opMs ?? 0}-${s.args.join("")}.txt`);
  writeFileSync(file, names.join("\n") + "\n");
  let out = "";
  let err = "";
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on("data", (d: Buffer) => (out += d.toString()));
  stderr.on("data", (d: Buffer) => (err += d.toString()));
  const rt: Runtime = {
    stdout,
    stderr,
    stdin: Object.assign(Readable.from([]), { isTTY: true }),
    env: { NO_COLOR: "1" },
    proc: Object.assign(new EventEmitter(), {
      exit: (code: number) => {
        throw new Error(`exit ${code}`);
      },
    }) as unknown as NodeJS.Process,
    clock,
    emulator,
  };
  const code = await main(["--emulator", "--window-ms", String(s.windowMs), "renew", file, ...s.args], rt);
  await emulator.close();
  return { code, events: jsonLines(err), results: jsonLines(out) };
}

/**
 * Every ETA the job printed once a tenth of its rows had finished, against the time that was really
 * left: the row events carry `etaMs` and `at` (the job's clock); the job ended with its last row.
 */
function etaErrors(events: ReturnType<typeof jsonLines>, rows: number) {
  const finishedRows = events.filter((e) => e.type === "row" && typeof e.finished === "number");
  const end = Date.parse(finishedRows[finishedRows.length - 1].at as string);
  // What the operator reads at an instant is the last ETA printed at it.
  const shown = finishedRows.filter((e, i) => finishedRows[i + 1]?.at !== e.at);
  return shown
    .filter((e) => e.finished >= rows / 10 && e.finished < rows)
    .map((e) => {
      const left = end - Date.parse(e.at as string);
      const eta = e.etaMs as number;
      return { finished: e.finished as number, eta, left, error: Math.abs(eta - left) / left };
    });
}

describe("the ETA against the job's real end (issue item 4)", () => {
  for (const s of [
    // The issue's own run: 50 renewals at 30 per 10 s, waiting for each operation (≈ 3 requests a row).
    { rows: 50, limit: 30, windowMs: 10_000, args: [] },
    { rows: 120, limit: 60, windowMs: 3_000, args: [] },
    { rows: 200, limit: 30, windowMs: 10_000, args: ["--no-wait"] },
    { rows: 80, limit: 30, windowMs: 10_000, args: ["--concurrency", "2"] },
    { rows: 300, limit: 600, windowMs: 60_000, args: ["--no-wait"] },
    // Operations that take 15 s: the lanes wait on the server, not on the window.
    { rows: 100, limit: 120, windowMs: 60_000, args: [], opMs: 15_000 },
    { rows: 100, limit: 30, windowMs: 10_000, args: [], opMs: 15_000 },
    { rows: 236, limit: 120, windowMs: 60_000, args: [], opMs: 15_000 },
    { rows: 236, limit: 30, windowMs: 10_000, args: [], opMs: 15_000 },
    // The tail: the last rows in flight, fewer than the lanes, end with their operations.
    { rows: 236, limit: 120, windowMs: 60_000, args: [] },
    // Operations longer than the polling of a whole lane, and fewer lanes than the window allows.
    { rows: 100, limit: 30, windowMs: 10_000, args: [], opMs: 30_000 },
    { rows: 120, limit: 120, windowMs: 60_000, args: ["--concurrency", "4"], opMs: 15_000 },
  ] as Scenario[]) {
    const ops = s.opMs ? ` with ${s.opMs / 1000} s operations` : "";
    it(`C3: ${s.rows} renewals at ${s.limit} per ${s.windowMs / 1000} s${ops} ${s.args.join(" ") || "(waiting)"}: after the first 10 % of rows the ETA is within 20 % of the time left`, async () => {
      const { code, events, results } = await runJob(s);
      expect(code, JSON.stringify(events.slice(-3))).toBe(0);
      expect(results.filter((r) => r.kind === (s.args.includes("--no-wait") ? "accepted" : "done"))).toHaveLength(
        s.rows,
      );
      const errors = etaErrors(events, s.rows);
      expect(errors.length).toBeGreaterThan(s.rows * 0.8);
      const worst = errors.reduce((a, b) => (b.error > a.error ? b : a));
      // The end is never shown as reached while a row is still at work (`ETA 0ms`).
      expect(errors.filter((e) => e.eta <= 0)).toEqual([]);
      expect(worst.error, JSON.stringify(worst)).toBeLessThanOrEqual(0.2);
    }, 120_000);
  }
});

describe("rows that wait for the key's window longer than a call's default deadline", () => {
  it("C3: 12 renewals at 2 per 60 s (minutes of waiting per row): every row is renewed — none ends `unknown (deadline)` unsent, exit 0", async () => {
    const { code, events, results } = await runJob({ rows: 12, limit: 2, windowMs: 60_000, args: ["--no-wait"] });
    expect(results.filter((r) => r.kind !== "accepted")).toEqual([]);
    expect(results).toHaveLength(12);
    expect(events.filter((e) => e.type === "unknown-outcome")).toEqual([]);
    expect(code).toBe(0);
  }, 120_000);
});
