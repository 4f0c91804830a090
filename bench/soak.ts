// Soak (G1, G4, C12, D3, D6, D7, F4, H2, I4, I5): `npm run soak`. N commands (renews, orders with
// external_id, nameserver changes, a few webhooks) from a client PROCESS with a SQLite journal,
// against the emulator over loopback (scaled window), with ≥ 20 % of the writes hit by injected
// faults of EVERY kind, and `killCycles` SIGKILL/restart cycles (each restart runs recover() first).
// The parent then settles what is still running and checks the invariants (test/recovery/chaos.ts):
// 0 duplicate effects, 0 lost commands, 0 key/byte changes, 0 requests before a Retry-After
// elapsed, 0 secrets in the journal file (+ WAL). Prints a table, writes bench/results/soak.json,
// exits non-zero when an invariant fails. Bounded: every phase has a timeout.
// `runSoak({ commands })` is exported for test/recovery/soak-small.test.ts; importing has no side effects.
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createResellerClient } from "../src/index";
import { createSqliteJournal } from "../stores/sqlite-journal";
import type { FaultKind } from "../emulator/public";
import { FAULT_KINDS } from "../emulator/public";
import {
  buildPlan,
  checkInvariants,
  invariantFailures,
  seeded,
  spawnChild,
  startRecordingEmulator,
  writePlan,
  type Invariants,
} from "../test/recovery/chaos";
import { printTable } from "./lib/table";
import { writeResult } from "./lib/results";
import { runWhenDirect } from "./lib/direct";

/** Every fault kind the emulator can inject: the soak fires each of them. */
export const ALL_FAULTS: readonly FaultKind[] = FAULT_KINDS;

export interface SoakOptions {
  commands?: number;
  killCycles?: number;
  seed?: number;
  /** Scaled server window (default 2000 ms). */
  windowMs?: number;
  /** Requests per window (default 100). */
  limit?: number;
  /** Share of commands that get a fault (default 0.24; ≥ 0.2 is asserted on what actually fired). */
  faultShare?: number;
  /** Bound for the whole run (default 8 minutes). */
  maxMs?: number;
  log?: (line: string) => void;
}

export interface SoakResult {
  commands: number;
  killCycles: number;
  kills: string[];
  faultsFired: Record<string, number>;
  faultedCommands: number;
  faultShare: number;
  recoverRounds: number;
  elapsedMs: number;
  invariants: Invariants;
  failures: string[];
}

const WRITE_PATHS: { method: string; path: string }[] = [
  { method: "POST", path: "/domains/{domainUuid}/renew" },
  { method: "POST", path: "/orders" },
  { method: "PUT", path: "/domains/{domainUuid}/nameservers" },
];

export async function runSoak(options: SoakOptions = {}): Promise<SoakResult> {
  const commands = options.commands ?? 1000;
  const killCycles = options.killCycles ?? 3;
  const seed = options.seed ?? 20261130;
  const windowMs = options.windowMs ?? 2000;
  const limit = options.limit ?? 100;
  const faultShare = options.faultShare ?? 0.24;
  const deadline = Date.now() + (options.maxMs ?? 8 * 60_000);
  const log = options.log ?? (() => undefined);
  const random = seeded(seed);
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), "reseller-soak-"));
  const rec = await startRecordingEmulator({
    windowMs,
    random: seeded(seed + 1),
    operationPolicy: { pendingMs: 100, processingMs: 150 },
  });
  try {
    const key = rec.emulator.control.createKey({ environment: "test", rate_limit_per_minute: limit });
    const plan = buildPlan(rec.emulator, key.token, commands, random, `soak${seed}`);
    const files = { journal: join(dir, "journal.db"), plan: join(dir, "plan.json"), log: join(dir, "dispatch.log") };
    writePlan(files.plan, plan);
    // Faults: every kind on every write path, enough of them for ≥ faultShare of the commands.
    // A faulted command's retries often meet a second fault, so provision ~2.5 faults per faulted
    // command. The three 429 kinds pause the WHOLE key (C12) for ~1–2 s each, so they get fewer
    // (they would otherwise dominate the run time); every kind still fires many times.
    const RATE_LIMITED: FaultKind[] = ["proxy_429_date", "retry_after_zero", "rate_limit_no_header"];
    const slots = WRITE_PATHS.length * (ALL_FAULTS.length - RATE_LIMITED.length);
    const perFault = Math.max(1, Math.ceil((commands * faultShare * 2.5) / slots));
    const perRateLimit = Math.max(1, Math.ceil(commands / 200));
    for (const kind of ALL_FAULTS) {
      for (const w of WRITE_PATHS) {
        rec.emulator.control.addFault({
          method: w.method,
          path: w.path,
          kind,
          times: RATE_LIMITED.includes(kind) ? perRateLimit : perFault,
          probability: 0.35,
          retry_after_seconds: 1,
        });
      }
    }
    const cfg = { baseUrl: rec.baseUrl, token: key.token, ...files, windowMs, limit, workers: 8, timeoutMs: 600 };
    const kills: string[] = [];
    // Kill points: the Nth write of the key, spread over the run, 0–40 ms after it arrived (mid-flight).
    const killAt = Array.from({ length: killCycles }, (_, i) =>
      Math.floor(((i + 1) / (killCycles + 1)) * commands * (0.9 + random() * 0.2)),
    );
    let writes = 0;
    let current: ReturnType<typeof spawnChild> | undefined;
    rec.onArrive = (r) => {
      if (r.apiKeyId !== key.public_key_id || r.method === "GET") return;
      writes += 1;
      if (kills.length < killAt.length && writes >= killAt[kills.length] && current) {
        const victim = current;
        current = undefined;
        kills.push(`write #${writes}`);
        setTimeout(victim.kill, Math.floor(random() * 40));
      }
    };
    for (let run = 0; run <= killCycles; run++) {
      if (Date.now() > deadline) throw new Error("soak: out of time before all runs finished");
      const child = spawnChild(cfg);
      current = child;
      const bound = setTimeout(child.kill, Math.max(1000, deadline - Date.now() - 60_000));
      const exit = await child.exited;
      clearTimeout(bound);
      current = undefined;
      log(`run ${run + 1}: ${exit.signal ?? `exit ${exit.code}`} — ${child.output().trim().slice(-1500)}`);
      if (exit.signal !== "SIGKILL" && exit.code !== 0) throw new Error(`soak child failed:\n${child.output()}`);
      if (exit.code === 0) break; // finished the plan before its kill point
    }
    rec.onArrive = undefined;

    // Settle from the same journal in this process (a final "restart"), through the same pacing.
    const journal = createSqliteJournal({ filename: files.journal });
    const client = createResellerClient({
      baseUrl: rec.baseUrl,
      token: key.token,
      journal,
      timeoutMs: 600,
      retry: { baseMs: 50, capMs: 400, maxRateLimitRetries: 50 },
      pacing: { windowMs, initialLimit: limit },
      fetch: loggingFetch(files.log),
    });
    let rounds = 0;
    for (; rounds < 200 && Date.now() < deadline; rounds++) {
      const s = await client.recover({ pauseAfter429Ms: windowMs + 1000 });
      if (s.stillPending.length === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    await journal.close();

    const fired: Record<string, number> = {};
    const faultedKeys = new Set<string>();
    for (const r of rec.log) {
      if (r.apiKeyId !== key.public_key_id || !r.fault) continue;
      fired[r.fault] = (fired[r.fault] ?? 0) + 1;
      if (r.key) faultedKeys.add(r.key);
    }
    const invariants = await checkInvariants({
      rec,
      plan,
      journalFile: files.journal,
      apiKeyId: key.public_key_id,
      token: key.token,
      dispatchLog: files.log,
    });
    const failures = invariantFailures(invariants);
    const missingKinds = ALL_FAULTS.filter((k) => !fired[k]);
    if (missingKinds.length) failures.push(`fault kinds never fired: ${missingKinds.join(", ")}`);
    if (faultedKeys.size < 0.2 * commands)
      failures.push(`only ${faultedKeys.size} of ${commands} commands hit a fault (< 20 %)`);
    if (kills.length < Math.min(killCycles, 1)) failures.push("no kill happened");
    return {
      commands,
      killCycles,
      kills,
      faultsFired: fired,
      faultedCommands: faultedKeys.size,
      faultShare: faultedKeys.size / commands,
      recoverRounds: rounds + 1,
      elapsedMs: Date.now() - started,
      invariants,
      failures,
    };
  } finally {
    rec.onArrive = undefined;
    await rec.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The parent's client logs its dispatches too, so the Retry-After check covers it (C12). */
function loggingFetch(file: string) {
  return async (request: Request): Promise<Response> => {
    const rid = request.headers.get("x-request-id");
    appendFileSync(file, JSON.stringify({ e: "send", rid, t: Date.now(), pid: process.pid }) + "\n");
    const res = await fetch(request);
    appendFileSync(
      file,
      JSON.stringify({
        e: "recv",
        rid,
        t: Date.now(),
        status: res.status,
        ra: res.headers.get("retry-after"),
        pid: process.pid,
      }) + "\n",
    );
    return res;
  };
}

export function reportSoak(result: SoakResult): void {
  const inv = result.invariants;
  printTable(
    [
      {
        invariant: "commands planned / recorded",
        value: `${inv.planned} / ${inv.recorded}`,
        ok: inv.lost.length === 0,
      },
      { invariant: "lost commands", value: inv.lost.length, ok: inv.lost.length === 0 },
      { invariant: "open (not terminal, not manual)", value: inv.open.length, ok: inv.open.length === 0 },
      {
        invariant: "duplicate effects (same key)",
        value: inv.duplicateEffects.length,
        ok: inv.duplicateEffects.length === 0,
      },
      { invariant: "effects under unplanned keys", value: inv.foreignEffects, ok: inv.foreignEffects === 0 },
      {
        invariant: "duplicate orders (external_id)",
        value: inv.duplicateOrders.length,
        ok: inv.duplicateOrders.length === 0,
      },
      {
        invariant: "key or body bytes changed",
        value: inv.changedKeyOrBytes.length + inv.unplannedWrites,
        ok: inv.changedKeyOrBytes.length + inv.unplannedWrites === 0,
      },
      {
        invariant: "requests before Retry-After elapsed",
        value: inv.earlyAfter429.length + inv.earlySameKey,
        ok: inv.earlyAfter429.length + inv.earlySameKey === 0,
      },
      {
        invariant: "secrets in journal (+WAL)",
        value: inv.secretsInJournal.length,
        ok: inv.secretsInJournal.length === 0,
      },
      {
        invariant: "terminal without effect",
        value: inv.terminalWithoutEffect.length,
        ok: inv.terminalWithoutEffect.length === 0,
      },
    ],
    {
      title: `soak: ${result.commands} commands, ${result.kills.length} SIGKILL/restart cycles, ${(result.elapsedMs / 1000).toFixed(1)} s`,
    },
  );
  printTable(
    [
      {
        measure: "commands hit by a fault",
        value: `${result.faultedCommands} (${(result.faultShare * 100).toFixed(1)} %)`,
      },
      {
        measure: "faults fired",
        value: Object.entries(result.faultsFired)
          .map(([k, n]) => `${k}=${n}`)
          .join(" "),
      },
      { measure: "kills", value: result.kills.join(", ") },
      {
        measure: "final states",
        value: Object.entries(inv.byState)
          .map(([k, n]) => `${k}=${n}`)
          .join(" "),
      },
      { measure: "requests / 429s", value: `${inv.requests} / ${inv.count429}` },
      { measure: "effects", value: inv.effects },
      { measure: "parent recover() rounds", value: result.recoverRounds },
    ],
    { title: "soak details" },
  );
  if (result.failures.length) process.stdout.write(`FAILED:\n- ${result.failures.join("\n- ")}\n`);
  else process.stdout.write("soak: every invariant holds\n");
}

runWhenDirect("soak", async () => {
  const hardStop = setTimeout(() => {
    process.stderr.write("soak: hard time limit reached\n");
    process.exit(3);
  }, 10 * 60_000);
  const result = await runSoak({ log: (l) => process.stderr.write(l + "\n") });
  reportSoak(result);
  const { invariants, ...rest } = result;
  const path = await writeResult("soak", {
    ...rest,
    invariants: { ...invariants, lost: invariants.lost.length, earlyAfter429: invariants.earlyAfter429.slice(0, 20) },
  });
  process.stderr.write(`wrote ${path}\n`);
  clearTimeout(hardStop);
  return result.failures.length === 0;
});
