/**
 * The client process of the crash test and the soak (spawned by chaos.ts, killed with SIGKILL).
 * argv[2]: JSON ChildConfig without the token; the token comes from RESELLER_TOKEN (never argv, A4).
 * 1. Opens the SQLite journal and a real client; recover() first (G4: settle what a killed
 *    predecessor left), 2. sends every planned command not yet in the journal, each with its own
 *    planned Idempotency-Key, 3. prints "ALL_SENT" and exits 0.
 * Every attempt's dispatch/receipt (X-Request-ID, time, status, Retry-After) is appended to the
 * dispatch log synchronously, so it survives SIGKILL (C12 check in chaos.ts).
 */
import { appendFileSync, readFileSync } from "node:fs";
import { createResellerClient } from "../../src/client";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import type { ChildConfig, PlanItem } from "./chaos";

const cfg = JSON.parse(process.argv[2]) as Omit<ChildConfig, "token">;
const token = process.env.RESELLER_TOKEN;
if (!token) throw new Error("RESELLER_TOKEN is not set");
const plan = JSON.parse(readFileSync(cfg.plan, "utf8")) as PlanItem[];
const log = (line: Record<string, unknown>) =>
  appendFileSync(cfg.log, JSON.stringify({ ...line, pid: process.pid }) + "\n");

const journal = createSqliteJournal({ filename: cfg.journal });
const client = createResellerClient({
  baseUrl: cfg.baseUrl,
  token,
  journal,
  timeoutMs: cfg.timeoutMs,
  retry: { maxAttempts: 4, baseMs: 50, capMs: 400, maxRateLimitRetries: 50, budget: { capacity: 100_000 } },
  pacing: { windowMs: cfg.windowMs, initialLimit: cfg.limit, maxConcurrency: 8 },
  fetch: async (request: Request) => {
    const rid = request.headers.get("x-request-id");
    log({ e: "send", rid, t: Date.now() });
    try {
      const res = await fetch(request);
      log({ e: "recv", rid, t: Date.now(), status: res.status, ra: res.headers.get("retry-after") });
      return res;
    } catch (error) {
      log({ e: "fail", rid, t: Date.now() });
      throw error;
    }
  },
});

async function main(): Promise<void> {
  const summary = await client.recover({ pauseAfter429Ms: cfg.windowMs + 1000 });
  process.stdout.write(
    `RECOVERED examined=${summary.examined} resolved=${summary.resolved.length} manual=${summary.manual.length} pending=${summary.stillPending.length} skipped=${summary.skipped.length}\n`,
  );
  for (const s of summary.skipped.slice(0, 5)) process.stdout.write(`SKIPPED ${s.commandId}: ${s.reason}\n`);
  const apiKeyId = client.credential.publicKeyId;
  let next = 0;
  let sent = 0;
  const worker = async () => {
    while (next < plan.length) {
      const p = plan[next++];
      if (await journal.findByIdempotencyKey(apiKeyId, p.key)) continue; // recorded before: recover() owns it
      const o = { idempotencyKey: p.key };
      let outcome;
      switch (p.op) {
        case "renew":
          outcome = await client.domains.renew({ domainUuid: p.domainUuid, body: p.body }, o);
          break;
        case "order":
          outcome = await client.orders.create({ body: p.body }, o);
          break;
        case "ns":
          outcome = await client.domains.setNameservers({ domainUuid: p.domainUuid, body: p.body }, o);
          break;
        case "webhook":
          outcome = await client.webhooks.create({ body: p.body }, o);
          break;
      }
      sent += 1;
      log({ e: "outcome", key: p.key, kind: outcome.kind, t: Date.now() });
    }
  };
  await Promise.all(Array.from({ length: cfg.workers }, worker));
  process.stdout.write(`ALL_SENT sent=${sent}\n`);
  await journal.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`crash-child failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(2);
  },
);
