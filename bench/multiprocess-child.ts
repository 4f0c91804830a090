// One client process of bench/multiprocess.ts. argv[2]: JSON {baseUrl, redisUrl|null, commands,
// startAt, windowMs, limit}; the token comes from RESELLER_TOKEN (never argv, A4). Waits until
// `startAt` (so all processes start together), sends `commands` GET /context through the real
// client — paced by the shared Redis window store (I1) or by a local memory store — and prints one
// JSON line with every attempt it made (dispatch time, status, X-RateLimit-Remaining, X-Request-ID).
import { createResellerClient } from "../src/client";
import { createRedisWindowStore } from "../stores/redis-window-store";

interface Config {
  baseUrl: string;
  redisUrl: string | null;
  commands: number;
  startAt: number;
  windowMs: number;
  limit: number;
}

const cfg = JSON.parse(process.argv[2]) as Config;
const token = process.env.RESELLER_TOKEN!;
const attempts: { sentAt: number; status: number | null; remaining: number | null; requestId: string | null }[] = [];
const store = cfg.redisUrl ? createRedisWindowStore({ redis: cfg.redisUrl }) : undefined;
const client = createResellerClient({
  baseUrl: cfg.baseUrl,
  token,
  pacing: { windowMs: cfg.windowMs, initialLimit: cfg.limit, store },
  retry: { maxRateLimitRetries: 1000 },
  fetch: async (request) => {
    const entry = { sentAt: Date.now(), status: null as number | null, remaining: null as number | null, requestId: request.headers.get("x-request-id") };
    attempts.push(entry);
    const res = await fetch(request);
    entry.status = res.status;
    const rem = res.headers.get("x-ratelimit-remaining");
    entry.remaining = rem === null ? null : Number(rem);
    entry.requestId = res.headers.get("x-request-id") ?? entry.requestId;
    return res;
  },
});

async function main() {
  await new Promise((r) => setTimeout(r, Math.max(0, cfg.startAt - Date.now())));
  const outcomes = await Promise.all(Array.from({ length: cfg.commands }, () => client.context.get()));
  const failed = outcomes.filter((o) => o.kind !== "succeeded").length;
  process.stdout.write(JSON.stringify({ pid: process.pid, failed, attempts }) + "\n");
  await store?.close();
}
main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`multiprocess child failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(2);
  },
);
