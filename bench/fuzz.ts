/**
 * `npm run fuzz` (also `npm run bench -- fuzz`): the hostile-network property of
 * test/client/properties.test.ts, run long. Random fault sequences (test/support/hostile.ts: random
 * statuses, content types, bodies — empty, wrongly shaped, truncated, huge, invalid UTF-8, nested
 * 100,000 deep, erroring or endless streams — headers such as Retry-After: 86400, fetch rejecting with
 * non-Error values, resolving with non-Responses, or never settling) drive orders.create through
 * reconcile and resend, renew through operations.wait, list pages and GET /context, then recover().
 * Reports calls, responses served, outcome kinds and reasons, and the four defects that must stay at
 * zero: untyped errors, hangs, double executions, snippets over 2 KiB.
 *
 *   npm run fuzz                    # ≥ 10,000 responses, seed 1
 *   npm run fuzz -- 50000 7         # at least 50,000 responses, seed 7
 */
import fc from "fast-check";
import { isResellerClientError } from "../src/index";
import {
  addHits,
  hostileRun,
  snippetBytes,
  stepArbitrary,
  HOSTILE_OPERATIONS,
  type PathHits,
  type Step,
} from "../test/support/hostile";
import { printTable } from "./lib/table";
import { writeResult } from "./lib/results";
import { runWhenDirect } from "./lib/direct";

export interface FuzzResult {
  name: "fuzz";
  seed: number;
  runs: number;
  calls: number;
  responses: number;
  hostileHangs: number;
  outcomeKinds: Record<string, number>;
  /** Requests per path (write, resend, reconcile, poll, page, context, recover) and how many got a hostile answer. */
  paths: PathHits;
  /** Runs whose recover() examined journalled commands while the network was still hostile. */
  recoveredRuns: number;
  untypedErrors: number;
  hangs: number;
  doubleExecutions: number;
  oversizedSnippets: number;
  /** The first failures, to replay: their steps and operation. */
  failures: { operationId: string; steps: Step[]; what: string }[];
  pass: boolean;
}

const OPERATIONS = HOSTILE_OPERATIONS;

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : (JSON.stringify(error) ?? typeof error);
}

export async function runFuzz(options: { minResponses?: number; seed?: number } = {}): Promise<FuzzResult> {
  const minResponses = options.minResponses ?? 10_000;
  const seed = options.seed ?? 1;
  const cases = fc.tuple(fc.array(stepArbitrary, { minLength: 1, maxLength: 10 }), fc.constantFrom(...OPERATIONS));
  const result: FuzzResult = {
    name: "fuzz",
    seed,
    runs: 0,
    calls: 0,
    responses: 0,
    hostileHangs: 0,
    outcomeKinds: {},
    paths: {},
    recoveredRuns: 0,
    untypedErrors: 0,
    hangs: 0,
    doubleExecutions: 0,
    oversizedSnippets: 0,
    failures: [],
    pass: false,
  };
  const fail = (operationId: string, steps: Step[], what: string) => {
    if (result.failures.length < 10) result.failures.push({ operationId, steps, what });
  };
  let batch = 0;
  while (result.responses < minResponses) {
    for (const [steps, operationId] of fc.sample(cases, { seed: seed + batch++, numRuns: 200 })) {
      const r = await hostileRun(steps, operationId);
      result.runs += 1;
      result.responses += r.responses;
      result.hostileHangs += r.hangs;
      addHits(result.paths, r.paths);
      if (r.recovered > 0 && (r.paths.recover?.hostile ?? 0) > 0) result.recoveredRuns += 1;
      result.calls += r.outcomes.length + r.waits.length + 1; // + recover()
      for (const o of r.outcomes) {
        const key = o.kind === "unknown" ? `unknown:${o.reason}` : o.kind;
        result.outcomeKinds[key] = (result.outcomeKinds[key] ?? 0) + 1;
        if (snippetBytes(o) > 2048) {
          result.oversizedSnippets += 1;
          fail(operationId, steps, "snippet over 2 KiB");
        }
      }
      if (r.settled.hang) {
        result.hangs += 1;
        fail(operationId, steps, "hang");
      } else if (r.settled.error !== undefined) {
        if (isResellerClientError(r.settled.error)) {
          const key = `thrown:${r.settled.error.code}`;
          result.outcomeKinds[key] = (result.outcomeKinds[key] ?? 0) + 1;
        } else {
          result.untypedErrors += 1;
          fail(operationId, steps, describeError(r.settled.error));
        }
      }
      if (r.executions > 1) {
        result.doubleExecutions += 1;
        fail(operationId, steps, `${r.executions} executions`);
      }
      if (result.responses >= minResponses) break;
    }
  }
  result.pass =
    result.untypedErrors === 0 && result.hangs === 0 && result.doubleExecutions === 0 && result.oversizedSnippets === 0;
  return result;
}

export async function reportFuzz(r: FuzzResult): Promise<void> {
  printTable(
    [
      {
        seed: r.seed,
        runs: r.runs,
        calls: r.calls,
        responses: r.responses,
        untyped: r.untypedErrors,
        hangs: r.hangs,
        double_exec: r.doubleExecutions,
        big_snippets: r.oversizedSnippets,
        pass: r.pass,
      },
    ],
    { title: "fuzz: hostile network through the public client (targets: 0 untyped, 0 hangs, 0 double executions)" },
  );
  printTable(
    Object.entries(r.outcomeKinds)
      .sort((a, b) => b[1] - a[1])
      .map(([kind, count]) => ({ kind, count })),
    { title: "outcome kinds (unknown:<reason>; thrown:<code> for typed errors)" },
  );
  printTable(
    Object.entries(r.paths)
      .sort((a, b) => b[1].requests - a[1].requests)
      .map(([path, hit]) => ({ path, requests: hit.requests, hostile: hit.hostile })),
    {
      title: `requests per path (hostile = got a spoiled answer); recover() over journalled commands in ${r.recoveredRuns} runs`,
    },
  );
  for (const f of r.failures) process.stdout.write(`FAILURE ${f.what}: ${f.operationId} ${JSON.stringify(f.steps)}\n`);
  await writeResult("fuzz", r);
}

runWhenDirect("fuzz", async () => {
  const [minResponses, seed] = process.argv.slice(2).map(Number);
  const r = await runFuzz({
    minResponses: Number.isFinite(minResponses) ? minResponses : undefined,
    seed: Number.isFinite(seed) ? seed : undefined,
  });
  await reportFuzz(r);
  return r.pass;
});
