// One worker process of bench/fleet.ts. argv[2]: JSON {baseUrl, pgUrl, redisUrl, plan, slot,
// workers, workerId, log, windowMs, limit, leaseMs, timeoutMs}; the token comes from RESELLER_TOKEN
// (never argv, A4). A real client in fleet mode at the DEFAULT settings (retries, heartbeat,
// continuous recovery; only the time scale — window, lease, timeout — is the parent's): the shared
// PostgreSQL journal, the shared Redis window store, leases under `workerId`. It is an application
// as the guides describe one: it walks the WHOLE plan from its own offset (slot × n / workers), so
// every command is also issued again — by other workers and by a restarted one — with the same key
// (a settled one must replay from the journal; one in flight elsewhere must come back as a typed
// conflict); it retries a throw or an `unknown` with the same key, and waits for accepted
// operations with operations.wait. Then it keeps recovering until the parent stops it (SIGTERM) or
// kills it (SIGKILL).
// Every settled outcome is appended to the log synchronously (so it survives SIGKILL).
import { appendFileSync, readFileSync } from "node:fs";
import { createResellerClient } from "../src/index";
import { createPgJournal } from "../stores/pg-journal";
import { createRedisWindowStore } from "../stores/redis-window-store";
import type { Outcome } from "../src/index";
import type { FleetPlanItem } from "./fleet";

interface Config {
  baseUrl: string;
  pgUrl: string;
  redisUrl: string;
  plan: string;
  slot: number;
  workers: number;
  workerId: string;
  log: string;
  windowMs: number;
  limit: number;
  leaseMs: number;
  recoveryIntervalMs: number;
  timeoutMs: number;
  /** The first workers start sending together (ms since epoch); a restarted one starts at once. */
  startAt: number;
}

const cfg = JSON.parse(process.argv[2]) as Config;
const token = process.env.RESELLER_TOKEN!;
const plan = JSON.parse(readFileSync(cfg.plan, "utf8")) as FleetPlanItem[];
const log = (line: Record<string, unknown>) =>
  appendFileSync(cfg.log, JSON.stringify({ ...line, worker: cfg.workerId, t: Date.now() }) + "\n");
const describe = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));
const SETTLED = new Set(["succeeded", "accepted", "completed", "failed", "rejected", "needs_manual_check"]);

async function main(): Promise<void> {
  const journal = await createPgJournal({ connectionString: cfg.pgUrl });
  const store = createRedisWindowStore({
    redis: cfg.redisUrl,
    onEvent: (e) => {
      if (e.type === "store-failover" || e.type === "store-recovered" || e.type === "store-state-lost")
        log({ e: e.type });
    },
  });
  const client = createResellerClient({
    baseUrl: cfg.baseUrl,
    token,
    journal,
    timeoutMs: cfg.timeoutMs,
    pacing: { windowMs: cfg.windowMs, initialLimit: cfg.limit, store },
    fleet: {
      workerId: cfg.workerId,
      leaseMs: cfg.leaseMs,
      continuousRecovery: {
        onRound: (s) => {
          for (const r of [...s.resolved, ...s.manual, ...s.stillPending]) {
            if (SETTLED.has(r.to)) log({ e: "settled", key: r.idempotencyKey, by: "recovery", from: r.from, to: r.to });
          }
        },
      },
    },
    onEvent: (e) => {
      if (e.type === "lease-lost") log({ e: "lease-lost", command: e.commandId, now: e.currentOwner });
      if (e.type === "pacing" && e.event.type === "store-error") log({ e: "store-error" });
      // The pacer held a request for the next window: demand exceeded the limit (a saturated window).
      if (e.type === "pacing" && e.event.type === "window-wait") log({ e: "window-wait", waitMs: e.event.waitMs });
      if (e.type === "pause") log({ e: "429", request: e.requestId ?? null });
    },
  });
  // Warm up (connections to the server, PostgreSQL, Redis) before the common start, so the first
  // window measures the fleet rather than process start-up.
  await fetch(`${cfg.baseUrl}/context`).then(
    (r) => r.arrayBuffer(),
    () => undefined,
  );
  await journal.get("warm-up");
  await store.peek(`warm-up-${process.pid}`, Date.now());
  await new Promise((r) => setTimeout(r, Math.max(0, cfg.startAt - Date.now())));
  log({ e: "start", pid: process.pid });
  const offset = Math.floor((cfg.slot * plan.length) / cfg.workers);
  const mine = plan.map((_, i) => plan[(offset + i) % plan.length]);
  let next = 0;
  const lane = async () => {
    while (next < mine.length) {
      const p = mine[next++];
      const o = { idempotencyKey: p.key };
      // The application's own retry: a throw or an `unknown` is retried with the SAME key, a few times.
      for (let attempt = 0; attempt < 5; attempt++) {
        let outcome: Outcome;
        try {
          outcome =
            p.op === "renew"
              ? await client.domains.renew({ domainUuid: p.domainUuid, body: p.body }, o)
              : await client.orders.create({ body: p.body }, o);
        } catch (error) {
          log({ e: "threw", key: p.key, during: "call", error: describe(error) });
          await new Promise((r) => setTimeout(r, 300));
          continue;
        }
        const replayed = outcome.localReplay !== undefined;
        if (replayed) log({ e: "replayed", key: p.key, source: outcome.localReplay!.source, to: outcome.kind });
        else if (outcome.journalRace) log({ e: "race", key: p.key, race: outcome.journalRace.error, to: outcome.kind });
        else if (SETTLED.has(outcome.kind)) log({ e: "settled", key: p.key, by: "call", to: outcome.kind });
        if (outcome.kind === "conflict" && outcome.reason === "in_flight_elsewhere") break; // its owner settles it
        if (outcome.kind === "accepted" && !replayed) {
          try {
            const done = await client.operations.wait(outcome.operationUuid, {
              commandId: outcome.commandId,
              minIntervalMs: 200,
              deadline: Date.now() + 20_000,
            });
            log({ e: "waited", key: p.key, result: done.kind });
          } catch (error) {
            // The application survives it (and counts it): the command is accepted, nothing to re-issue.
            log({ e: "threw", key: p.key, during: "wait", error: describe(error) });
          }
        }
        if (outcome.kind !== "unknown") break;
        await new Promise((r) => setTimeout(r, 300));
      }
    }
  };
  await Promise.all(Array.from({ length: 6 }, lane));
  log({ e: "all-sent" });
  process.on("SIGTERM", () => {
    void client
      .close()
      .then(() => Promise.all([journal.close(), store.close?.()]))
      .finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  log({ e: "crashed", error: error instanceof Error ? error.stack : String(error) });
  process.exit(2);
});
