/**
 * One side of the separate-processes overhead row (overhead-processes.ts): a process that sends only
 * bare openapi-fetch GETs, only the floor's (bare + a plain AbortController and timer per call), or
 * only the full client's, as an application's process does. It runs a chunk of sequential
 * `GET /context` when its parent asks and answers with the chunk's process CPU and wall time.
 */
import { createResellerClient } from "../src/index";
import { bareGet, floorGet } from "./lib";

const [side, baseUrl, token, windowMs, limit] = process.argv.slice(2);

function sender(): () => Promise<void> {
  if (side === "floor") return floorGet(baseUrl, token);
  if (side === "bare") return bareGet(baseUrl, token);
  const client = createResellerClient({
    baseUrl,
    token,
    pacing: { windowMs: Number(windowMs), initialLimit: Number(limit) },
  });
  return async () => {
    const out = await client.context.get();
    if (out.kind !== "succeeded") throw new Error(`client GET /context: ${out.kind}`);
  };
}

const once = sender();
process.on("message", (m: { chunk: number }) => {
  void (async () => {
    const t = performance.now();
    const c = process.cpuUsage();
    for (let i = 0; i < m.chunk; i++) await once();
    const d = process.cpuUsage(c);
    process.send?.({ cpu: (d.user + d.system) / 1000, wall: performance.now() - t });
  })().catch((error: unknown) => {
    process.send?.({ error: String(error) });
  });
});
process.send?.({ ready: true });
