// One client process of bench/multiprocess.ts. argv[2]: JSON {baseUrl, redisUrl|null, commands,
// windowMs, limit}; the token comes from RESELLER_TOKEN (never argv, A4). Prints "ready" once warmed
// up, reads {startAt, stopAt} from stdin, waits until `startAt` (so all processes start together), queues `commands` GET /context at once through
// the real client — paced by the shared Redis window store (I1) or by a local memory store — and at
// `stopAt` aborts what is still queued (the queue was saturated until then). Prints one JSON line
// with every attempt it made (dispatch time, status, X-RateLimit-Remaining, X-Request-ID), how many
// commands succeeded, failed, and were still queued at the stop.
import { createResellerClient } from "../src/index";
import { createRedisWindowStore } from "../stores/redis-window-store";

interface Config {
  baseUrl: string;
  redisUrl: string | null;
  commands: number;
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
    const entry = {
      sentAt: Date.now(),
      status: null as number | null,
      remaining: null as number | null,
      requestId: request.headers.get("x-request-id"),
    };
    attempts.push(entry);
    const res = await fetch(request);
    entry.status = res.status;
    const rem = res.headers.get("x-ratelimit-remaining");
    entry.remaining = rem === null ? null : Number(rem);
    entry.requestId = res.headers.get("x-request-id") ?? entry.requestId;
    return res;
  },
});

/** The common start and stop the parent sends once every process is ready. */
async function startTimes(): Promise<{ startAt: number; stopAt: number }> {
  let text = "";
  for await (const chunk of process.stdin) text += String(chunk);
  return JSON.parse(text) as { startAt: number; stopAt: number };
}

async function main() {
  // Warm-up before the common start, so the first window measures pacing rather than cold start
  // (first connection to the server, first Redis round trip): a grant's dispatch delayed by
  // start-up costs the tail slots of the window it opened. Neither call touches the key's window:
  // no token on the request (401 before a key is identified), a different key in the store.
  await fetch(`${cfg.baseUrl}/context`).then(
    (r) => r.arrayBuffer(),
    () => undefined,
  );
  await store?.peek(`warm-up-${process.pid}`, Date.now());
  process.stdout.write("ready\n");
  const times = await startTimes();
  await new Promise((r) => setTimeout(r, Math.max(0, times.startAt - Date.now())));
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), Math.max(0, times.stopAt - Date.now()));
  let stopped = false;
  stop.signal.addEventListener("abort", () => (stopped = true));
  // Each command: did it succeed, and did it settle before the stop? A non-success after the stop
  // was cut by it (still queued or in flight); one before the stop is a real failure.
  const settled = await Promise.all(
    Array.from({ length: cfg.commands }, () =>
      client.context.get(undefined, { signal: stop.signal }).then(
        (o) => ({ ok: o.kind === "succeeded", afterStop: stopped }),
        () => ({ ok: false, afterStop: stopped }),
      ),
    ),
  );
  clearTimeout(timer);
  const succeeded = settled.filter((o) => o.ok).length;
  const failed = settled.filter((o) => !o.ok && !o.afterStop).length;
  const cutByStop = settled.filter((o) => !o.ok && o.afterStop).length;
  process.stdout.write(JSON.stringify({ pid: process.pid, succeeded, failed, cutByStop, attempts }) + "\n");
  await store?.close();
}
main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`multiprocess child failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(2);
  },
);
