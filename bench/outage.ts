/**
 * Retry amplification during a total outage (I2, retry budget): the emulator answers 503 to every
 * request (fault error_503_before with a huge `times`), N renew commands run one after another, and
 * we report attempts per command once the retry budget is spent. Target: ≤ 1.1.
 * Exported function only — no side effects on import (bench/main.ts runs it).
 */
import { createEmulator } from "../emulator/public";
import { VirtualClock } from "../src/index";
import { createResellerClient } from "../src/index";
import { printTable } from "./lib/table";
import { writeResult } from "./lib/results";
import { runWhenDirect } from "./lib/direct";

export interface OutageResult {
  name: "outage-amplification";
  commands: number;
  /** Commands until the budget could no longer pay for a retry. */
  commandsUntilSpent: number;
  /** Total attempts / commands over the whole run. */
  attemptsPerCommandOverall: number;
  /** Attempts / commands after the budget was spent (target ≤ 1.1). */
  attemptsPerCommandAfterSpent: number;
  /**
   * The same, counted from the first command that made only one attempt (the earlier definition):
   * it differs when a command ends after one attempt with budget left — as every command did that
   * arrived while the pacer held a window of uncounted 503s to its unconfirmed deadline (C6).
   */
  attemptsPerCommandAfterFirstSingle: number;
  target: number;
  pass: boolean;
  /** Every command ended `unknown` (never "failed", E4) and none was executed. */
  allUnknown: boolean;
}

const BASE_URL = "http://127.0.0.1/api/reseller/v1";

export async function runOutageBench(options: { commands?: number } = {}): Promise<OutageResult> {
  const commands = options.commands ?? 200;
  const clock = new VirtualClock();
  const emulator = createEmulator({ clock, defaultRateLimit: 10_000 });
  const key = emulator.control.createKey({ environment: "test", rate_limit_per_minute: 10_000 });
  const domain = emulator.control.createDomain({ token: key.token, name: "outage.kz" });
  emulator.control.addFault({ method: "*", path: "*", kind: "error_503_before", times: 1_000_000_000 });
  const client = createResellerClient({
    baseUrl: BASE_URL,
    token: key.token,
    fetch: emulator.fetch,
    clock,
    pacing: { initialLimit: 10_000 },
  });
  let attempts = 0;
  let spentAt = -1;
  let attemptsAfter = 0;
  let allUnknown = true;
  let firstSingle = -1;
  let attemptsAfterFirstSingle = 0;
  for (let i = 0; i < commands; i++) {
    const out = await client.domains.renew({ domainUuid: domain.uuid, body: { period: 1 } });
    if (out.kind !== "unknown") allUnknown = false;
    attempts += out.attempts.length;
    if (firstSingle >= 0) attemptsAfterFirstSingle += out.attempts.length;
    else if (out.attempts.length === 1) firstSingle = i + 1;
    if (spentAt >= 0) attemptsAfter += out.attempts.length;
    // Spent = the budget can no longer pay for one retry (DEFAULT_RETRY_BUDGET.retryCost).
    else if (client.retryBudget.available() < 5) spentAt = i + 1;
  }
  await emulator.close();
  const after = spentAt >= 0 && commands > spentAt ? attemptsAfter / (commands - spentAt) : Number.NaN;
  allUnknown &&= emulator.control.effects().length === 0;
  return {
    name: "outage-amplification",
    commands,
    commandsUntilSpent: spentAt,
    attemptsPerCommandOverall: attempts / commands,
    attemptsPerCommandAfterSpent: after,
    attemptsPerCommandAfterFirstSingle:
      firstSingle >= 0 && commands > firstSingle ? attemptsAfterFirstSingle / (commands - firstSingle) : Number.NaN,
    target: 1.1,
    pass: after <= 1.1,
    allUnknown,
  };
}

/** Prints the result and writes bench/results/outage-amplification.json. */
export async function reportOutageBench(result: OutageResult): Promise<string> {
  printTable(
    [
      {
        commands: result.commands,
        spent_after: result.commandsUntilSpent,
        attempts_per_command: Number(result.attemptsPerCommandOverall.toFixed(3)),
        after_spent: Number(result.attemptsPerCommandAfterSpent.toFixed(3)),
        after_first_single: Number(result.attemptsPerCommandAfterFirstSingle.toFixed(3)),
        target: result.target,
        all_unknown: result.allUnknown,
        pass: result.pass,
      },
    ],
    { title: "retry amplification during a total outage (503 to everything)" },
  );
  return writeResult("outage-amplification", result);
}

runWhenDirect("outage", async () => {
  const result = await runOutageBench();
  process.stderr.write(`wrote ${await reportOutageBench(result)}\n`);
  return result.pass && result.allUnknown;
});
