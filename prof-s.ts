import createClient from "openapi-fetch";
import type { paths } from "./src/index";
import { createResellerClient } from "./src/index";
import { createPacer } from "./src/pacing";
const info = JSON.parse(process.env.EMU!);
const tokens = info.keys.filter((k: any) => k.environment === "test").map((k: any) => k.token);
const bare = createClient<paths>({ baseUrl: info.baseUrl, headers: { Authorization: `Bearer ${tokens[0]}`, Accept: "application/json" } });
const client = createResellerClient({ baseUrl: info.baseUrl, token: tokens[1] ?? tokens[0], pacer: createPacer({ windowMs: 1000, initialLimit: 10000, maxConcurrency: 4 }) });
const which = process.argv[2];
const N = Number(process.argv[3] ?? 3000);
async function main() {
  for (let round = 0; round < 3; round++) {
    const t0 = process.cpuUsage(); const w0 = performance.now();
    for (let i = 0; i < N; i++) {
      if (which === "bare") { const r = await bare.GET("/context"); if (!r.data) throw new Error(JSON.stringify(r.error)); }
      else { const o = await client.context.get(); if (o.kind !== "succeeded") throw new Error(JSON.stringify(o)); }
    }
    const c = process.cpuUsage(t0);
    console.log(which, ((c.user + c.system) / N).toFixed(1), "cpu µs/call", ((performance.now() - w0) * 1000 / N).toFixed(1), "wall");
  }
}
main();
