// G1/G4/I4/I5/D3/D6/D7/F4: the client process is killed with SIGKILL at seeded points — before a
// send, with a request hung on the server before it committed (timeout_before, stuck_processing),
// after the server committed but before the answer (timeout_after), or after a random delay — then
// a new process recovers from the same SQLite journal. The emulator runs in THIS process behind a
// recording port, so it survives every kill and sees every byte.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createResellerClient } from "../../src/client";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import type { FaultKind } from "../../emulator/types";
import {
  buildPlan,
  checkInvariants,
  invariantFailures,
  seeded,
  spawnChild,
  startRecordingEmulator,
  writePlan,
  type RecordingEmulator,
} from "./chaos";

let rec: RecordingEmulator;
const dirs: string[] = [];
beforeAll(async () => {
  rec = await startRecordingEmulator({
    operationPolicy: { pendingMs: 100, processingMs: 100 },
    defaultRateLimit: 10_000,
  });
});
afterAll(async () => {
  await rec?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface KillPoint {
  name: string;
  fault: FaultKind | null;
  killOn: "hang" | "delay";
}
const KILL_POINTS: KillPoint[] = [
  { name: "after the server committed (timeout_after)", fault: "timeout_after", killOn: "hang" },
  { name: "before the server saw it (timeout_before)", fault: "timeout_before", killOn: "hang" },
  { name: "key stuck in processing (stuck_processing)", fault: "stuck_processing", killOn: "hang" },
  { name: "random delay with reset_after/error_500_after faults", fault: null, killOn: "delay" },
];

async function recoverUntilSettled(baseUrl: string, token: string, journalFile: string) {
  const journal = createSqliteJournal({ filename: journalFile });
  const client = createResellerClient({ baseUrl, token, journal, timeoutMs: 800, retry: { baseMs: 50, capMs: 400 } });
  let last = await client.recover();
  for (let round = 1; round < 20 && last.stillPending.length > 0; round++) {
    await new Promise((r) => setTimeout(r, 150));
    last = await client.recover();
  }
  await journal.close();
  return last;
}

describe("crash: SIGKILL at seeded points, recover() in a new process", () => {
  KILL_POINTS.forEach((point, i) => {
    const seed = 1000 + i * 17;
    it(`G4/I4/D3 seed ${seed}: killed ${point.name} → one execution per command, same key and bytes`, async () => {
      const random = seeded(seed);
      const dir = mkdtempSync(join(tmpdir(), "reseller-crash-"));
      dirs.push(dir);
      const key = rec.emulator.control.createKey({ environment: "test", rate_limit_per_minute: 10_000 });
      const tag = `s${seed}`;
      const plan = buildPlan(rec.emulator, key.token, 18, random, tag);
      const files = { journal: join(dir, "journal.db"), plan: join(dir, "plan.json"), log: join(dir, "dispatch.log") };
      writePlan(files.plan, plan);
      rec.emulator.control.clearFaults();
      if (point.fault) {
        for (const path of ["/domains/{domainUuid}/renew", "/orders", "/domains/{domainUuid}/nameservers"]) {
          rec.emulator.control.addFault({ method: "*", path, kind: point.fault, times: 1, probability: 0.3 });
        }
      } else {
        rec.emulator.control.addFault({ method: "*", path: "*", kind: "reset_after", times: 3, probability: 0.2 });
        rec.emulator.control.addFault({ method: "*", path: "*", kind: "error_500_after", times: 3, probability: 0.2 });
      }
      const cfg = {
        baseUrl: rec.baseUrl,
        token: key.token,
        ...files,
        windowMs: 60_000,
        limit: 10_000,
        workers: 4,
        timeoutMs: 800,
      };

      // Run 1: killed at the chosen point. A hang lasts until the client's attempt timeout, so run 1
      // waits on it far longer than the kill takes: the kill, not a race between two timers on a
      // loaded machine, decides that the command is left mid-flight (run 2 keeps the short timeout).
      const first = spawnChild(point.killOn === "hang" ? { ...cfg, timeoutMs: 15_000 } : cfg);
      let killedAt = "never";
      if (point.killOn === "hang") {
        rec.onSocketFault = (r) => {
          if (r.fault === point.fault && killedAt === "never") {
            killedAt = `${r.method} ${r.path}`;
            setTimeout(first.kill, 20 + Math.floor(random() * 60)); // while the request hangs
          }
        };
      } else {
        // Mid-flight at a seeded request: the Nth write of this key, killed 0–30 ms after it arrived.
        const nth = 3 + Math.floor(random() * 8);
        let writes = 0;
        rec.onArrive = (r) => {
          if (r.apiKeyId !== key.public_key_id || r.method === "GET") return;
          if (++writes === nth) {
            killedAt = `write #${nth}`;
            setTimeout(first.kill, Math.floor(random() * 30));
          }
        };
      }
      const safety = setTimeout(first.kill, 20_000);
      const r1 = await first.exited;
      clearTimeout(safety);
      rec.onSocketFault = undefined;
      rec.onArrive = undefined;
      expect(killedAt, first.output()).not.toBe("never");
      expect(r1.signal === "SIGKILL" || r1.code === 0, first.output()).toBe(true);

      // Run 2: a new process — recover() first, then the rest of the plan. Faults stay possible.
      const second = spawnChild(cfg);
      const safety2 = setTimeout(second.kill, 25_000);
      const r2 = await second.exited;
      clearTimeout(safety2);
      expect(r2.code, second.output()).toBe(0);
      const examined = Number(/RECOVERED examined=(\d+)/.exec(second.output())?.[1] ?? -1);
      // A kill while a request hung on the server always leaves that command mid-flight (sending).
      if (point.killOn === "hang") expect(examined, second.output()).toBeGreaterThan(0);
      else expect(examined, second.output()).toBeGreaterThanOrEqual(0);

      // Then the parent settles what is still running (accepted operations) from the same file.
      rec.emulator.control.clearFaults();
      const final = await recoverUntilSettled(rec.baseUrl, key.token, files.journal);
      expect(final.stillPending).toEqual([]);

      const inv = await checkInvariants({
        rec,
        plan,
        journalFile: files.journal,
        apiKeyId: key.public_key_id,
        token: key.token,
        dispatchLog: files.log,
      });
      expect(invariantFailures(inv), JSON.stringify(inv.byState)).toEqual([]);
      expect(inv.recorded).toBe(plan.length);
      if (point.fault === "stuck_processing") expect(inv.byState.needs_manual_check ?? 0).toBeGreaterThan(0);
    });
  });
});
