import createClient from "openapi-fetch";
import type { paths } from "./src/index";
import { createResellerClient, systemClock } from "./src/index";
import { createPacer } from "./src/pacing";
const body = JSON.stringify({ data: { credential: { id: "k", environment: "test", rate_limit_per_minute: 10000 }, account: { id: "a" } } });
const stub = async (_r: Request, _i?: unknown) => new Response(body, { status: 200, headers: { "content-type": "application/json", "x-ratelimit-limit": "10000", "x-ratelimit-remaining": "9999", "x-request-id": "r" } });
const bare = createClient<paths>({ baseUrl: "http://127.0.0.1/api/reseller/v1", fetch: stub as never, headers: { Authorization: "Bearer t", Accept: "application/json" } });
const client = createResellerClient({ baseUrl: "http://127.0.0.1/api/reseller/v1", token: "rsl_test_" + "a".repeat(24) + "." + "b".repeat(64), fetch: stub as never, pacer: createPacer({ windowMs: 1000, initialLimit: 1e9, maxConcurrency: 4, guardMs: 1 }) });
const which = process.argv[2];
const N = Number(process.argv[3] ?? 100000);
async function main() {
  for (let round = 0; round < 3; round++) {
    const t0 = process.cpuUsage();
    for (let i = 0; i < N; i++) {
      if (which === "bare") { const r = await bare.GET("/context"); if (!r.data) throw new Error("x"); }
      else { const o = await client.context.get(); if (o.kind !== "succeeded") throw new Error(JSON.stringify(o)); }
    }
    const c = process.cpuUsage(t0);
    console.log(which, ((c.user + c.system) / N).toFixed(2), "µs/call");
  }
}
main();
