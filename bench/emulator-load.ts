// Load bench for the emulator over loopback: many concurrent clients, several keys, renewals whose
// Idempotency-Keys are deliberately sent by several clients at once. It checks, from the emulator's own
// ledgers, that no idempotency key executed twice (D5) and that every counted request spent exactly one
// hit of its key's window (C2, C5). Import runEmulatorLoad() from bench/main.ts; run directly for a CLI.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startEmulatorServer } from "../emulator/public";
import { controlClient } from "./lib/emulator-control";
import { percentile, runPool } from "./lib/stats";
import { printTable, type Row } from "./lib/table";
import { writeResult } from "./lib/results";
import type { CreatedKey } from "../emulator/public";
import { runWhenDirect } from "./lib/direct";

export interface EmulatorLoadOptions {
  /** Total requests (default 1000). */
  requests?: number;
  /** Concurrent clients (default 20). */
  concurrency?: number;
  /** API keys created through the control API (default 5). */
  keys?: number;
  /** How many requests share one renewal Idempotency-Key (default 4). */
  repeatsPerIdempotencyKey?: number;
  /** Also measure a bare node:http server with the same clients, for a same-run ratio (default true). */
  baseline?: boolean;
}

type Kind = "context" | "domains" | "renew";

interface Planned {
  keyIndex: number;
  kind: Kind;
  /** renew only */
  domainUuid?: string;
  idempotencyKey?: string;
}

interface Outcome {
  keyIndex: number;
  kind: Kind;
  status: number;
  replayed: boolean;
  idempotencyKey?: string;
  latencyMs: number;
}

export interface EmulatorLoadResult {
  requests: number;
  concurrency: number;
  keys: number;
  elapsedMs: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number };
  /** "GET /context 200" → count */
  statuses: Record<string, number>;
  renew: {
    sent: number;
    idempotencyKeys: number;
    /** 202 answers that were not replays: first executions as the client saw them. */
    firstExecutions: number;
    replays: number;
    /** 409: the same key was still processing for another client (D5). */
    conflicts: number;
  };
  /** Renewal effects in the emulator's ledger for our idempotency keys. */
  executions: number;
  /** Idempotency keys that executed more than once — must be empty. */
  doubleExecutions: string[];
  /** Idempotency keys that got a 2xx but have no effect — must be empty. */
  missingExecutions: string[];
  /** Keys whose window count differs from the requests they sent — must be empty. */
  counterMismatches: { key: string; sent: number; counted: number }[];
  exactlyOnce: boolean;
  countersExact: boolean;
  /** A bare node:http server answering fixed JSON, same request count and clients, same run; null when skipped. */
  baseline: { requestsPerSecond: number; elapsedMs: number } | null;
  /** requestsPerSecond / baseline.requestsPerSecond (the emulator's share of raw loopback HTTP speed). */
  ratioToBaseline: number | null;
}

/** Raw loopback HTTP speed on this machine right now: the denominator for the emulator's throughput. */
async function measureBaseline(
  total: number,
  concurrency: number,
): Promise<{ requestsPerSecond: number; elapsedMs: number }> {
  const body = Buffer.from(JSON.stringify({ data: { environment: "test", language: "en", padding: "x".repeat(200) } }));
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  try {
    const started = performance.now();
    await runPool(total, concurrency, async () => {
      const response = await fetch(`http://127.0.0.1:${port}/context`, { headers: { authorization: "Bearer x" } });
      await response.arrayBuffer();
    });
    const elapsedMs = performance.now() - started;
    return { requestsPerSecond: total / (elapsedMs / 1000), elapsedMs };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/**
 * Builds the request plan in cycles of [context, domains, context, domains, renew × repeats], one API key
 * per cycle. The `repeats` renewals share one Idempotency-Key (same domain, same bytes) and sit next to
 * each other in the plan, so different clients pick them up and send them at the same moment.
 */
function plan(total: number, keys: number, repeats: number, domainsByKey: string[][]): Planned[] {
  const out: Planned[] = [];
  const groups = new Array<number>(keys).fill(0);
  for (let cycle = 0; out.length < total; cycle++) {
    const keyIndex = cycle % keys;
    for (const kind of ["context", "domains", "context", "domains"] as const) out.push({ keyIndex, kind });
    const group = groups[keyIndex]++;
    const domains = domainsByKey[keyIndex];
    for (let r = 0; r < repeats; r++) {
      out.push({
        keyIndex,
        kind: "renew",
        domainUuid: domains[group % domains.length],
        idempotencyKey: `load-k${keyIndex}-g${group}`,
      });
    }
  }
  return out.slice(0, total);
}

export async function runEmulatorLoad(options: EmulatorLoadOptions = {}): Promise<EmulatorLoadResult> {
  const total = options.requests ?? 1000;
  const concurrency = options.concurrency ?? 20;
  const keyCount = options.keys ?? 5;
  const repeats = options.repeatsPerIdempotencyKey ?? 4;

  // A long window keeps every request inside one counter window, so counters can be compared exactly.
  const server = await startEmulatorServer({ defaultRateLimit: 10_000, windowMs: 6 * 60 * 60 * 1000 });
  try {
    const control = controlClient(server.controlUrl);
    const keys: CreatedKey[] = [];
    const domainsByKey: string[][] = [];
    for (let k = 0; k < keyCount; k++) {
      const key = await control.createKey({ environment: "test", rate_limit_per_minute: 10_000 });
      keys.push(key);
      const domains = [];
      for (let d = 0; d < 3; d++) {
        domains.push((await control.createDomain({ token: key.token, name: `load-${k}-${d}.kz` })).uuid);
      }
      domainsByKey.push(domains);
    }

    const requests = plan(total, keyCount, repeats, domainsByKey);
    const renewBody = JSON.stringify({ period: 1 });
    const started = performance.now();
    const outcomes = await runPool<Outcome>(requests.length, concurrency, async (index) => {
      const p = requests[index];
      const headers: Record<string, string> = {
        authorization: `Bearer ${keys[p.keyIndex].token}`,
        accept: "application/json",
      };
      let url = server.baseUrl;
      let init: RequestInit = { headers };
      if (p.kind === "context") url += "/context";
      else if (p.kind === "domains") url += "/domains?per_page=10";
      else {
        url += `/domains/${p.domainUuid}/renew`;
        headers["content-type"] = "application/json";
        headers["idempotency-key"] = p.idempotencyKey!;
        init = { method: "POST", headers, body: renewBody };
      }
      const t0 = performance.now();
      const response = await fetch(url, init);
      await response.arrayBuffer();
      return {
        keyIndex: p.keyIndex,
        kind: p.kind,
        status: response.status,
        replayed: response.headers.get("idempotency-replayed") === "true",
        idempotencyKey: p.idempotencyKey,
        latencyMs: performance.now() - t0,
      };
    });
    const elapsedMs = performance.now() - started;

    const [effects, counters] = await Promise.all([control.effects(), control.counters()]);
    const ourKeys = new Set(requests.flatMap((r) => (r.idempotencyKey ? [r.idempotencyKey] : [])));
    const executionsByKey = new Map<string, number>();
    for (const effect of effects) {
      if (effect.idempotency_key === null || !ourKeys.has(effect.idempotency_key)) continue;
      executionsByKey.set(effect.idempotency_key, (executionsByKey.get(effect.idempotency_key) ?? 0) + 1);
    }
    const succeeded = new Set(
      outcomes.filter((o) => o.kind === "renew" && o.status >= 200 && o.status < 300).map((o) => o.idempotencyKey!),
    );
    const doubleExecutions = [...executionsByKey].filter(([, n]) => n > 1).map(([k]) => k);
    const missingExecutions = [...succeeded].filter((k) => !executionsByKey.has(k));

    const counterMismatches: EmulatorLoadResult["counterMismatches"] = [];
    keys.forEach((key, k) => {
      const sent = outcomes.filter((o) => o.keyIndex === k).length;
      const counted = counters[key.public_key_id]?.count ?? 0;
      if (counted !== sent) counterMismatches.push({ key: key.public_key_id, sent, counted });
    });

    const statuses: Record<string, number> = {};
    const label: Record<Kind, string> = {
      context: "GET /context",
      domains: "GET /domains",
      renew: "POST /domains/{uuid}/renew",
    };
    for (const o of outcomes) {
      const name = `${label[o.kind]} ${o.status}${o.replayed ? " replayed" : ""}`;
      statuses[name] = (statuses[name] ?? 0) + 1;
    }
    const renews = outcomes.filter((o) => o.kind === "renew");
    const baseline = options.baseline === false ? null : await measureBaseline(outcomes.length, concurrency);
    const requestsPerSecond = outcomes.length / (elapsedMs / 1000);
    const latencies = outcomes.map((o) => o.latencyMs);
    return {
      requests: outcomes.length,
      concurrency,
      keys: keyCount,
      elapsedMs,
      requestsPerSecond,
      latencyMs: {
        p50: percentile(latencies, 50),
        p95: percentile(latencies, 95),
        p99: percentile(latencies, 99),
        max: Math.max(...latencies),
      },
      statuses,
      renew: {
        sent: renews.length,
        idempotencyKeys: ourKeys.size,
        firstExecutions: renews.filter((o) => o.status === 202 && !o.replayed).length,
        replays: renews.filter((o) => o.replayed).length,
        conflicts: renews.filter((o) => o.status === 409).length,
      },
      executions: [...executionsByKey.values()].reduce((a, b) => a + b, 0),
      doubleExecutions,
      missingExecutions,
      counterMismatches,
      exactlyOnce: doubleExecutions.length === 0 && missingExecutions.length === 0,
      countersExact: counterMismatches.length === 0,
      baseline,
      ratioToBaseline: baseline ? requestsPerSecond / baseline.requestsPerSecond : null,
    };
  } finally {
    await server.close();
  }
}

/** Prints the result as tables and writes bench/results/emulator-load.json. */
export async function reportEmulatorLoad(result: EmulatorLoadResult): Promise<string> {
  const summary: Row[] = [
    {
      requests: result.requests,
      clients: result.concurrency,
      keys: result.keys,
      "elapsed ms": Math.round(result.elapsedMs),
      "req/s": Math.round(result.requestsPerSecond),
      "baseline req/s": result.baseline ? Math.round(result.baseline.requestsPerSecond) : null,
      ratio: result.ratioToBaseline,
      "p50 ms": result.latencyMs.p50,
      "p95 ms": result.latencyMs.p95,
      "p99 ms": result.latencyMs.p99,
      "exactly-once": result.exactlyOnce,
      "counters exact": result.countersExact,
    },
  ];
  printTable(summary, { title: "emulator load (loopback)" });
  printTable(
    Object.entries(result.statuses).map(([request, count]) => ({ request, count })),
    { title: "responses" },
  );
  printTable([{ ...result.renew, executions: result.executions }], { title: "renewals (D5)" });
  return writeResult("emulator-load", result);
}

runWhenDirect("emulator-load", async () => {
  const num = (flag: string) => {
    const i = process.argv.indexOf(flag);
    return i > 0 ? Number(process.argv[i + 1]) : undefined;
  };
  const result = await runEmulatorLoad({
    requests: num("--requests"),
    concurrency: num("--concurrency"),
    keys: num("--keys"),
  });
  process.stderr.write(`wrote ${await reportEmulatorLoad(result)}\n`);
  return result.exactlyOnce && result.countersExact;
});
