/**
 * One side of the separate-processes overhead row (overhead-processes.ts): a process that sends only
 * bare openapi-fetch GETs, only the floor's (bare + a plain AbortController and timer per call), or
 * only the full client's, as an application's process does. It runs a
 * chunk of sequential `GET /context` when its parent asks and answers with the chunk's process CPU
 * and wall time.
 */
import createClient from "openapi-fetch";
import type { paths } from "../src/index";
import { createResellerClient } from "../src/index";

const [side, baseUrl, token, windowMs, limit] = process.argv.slice(2);

function abortOnTimeout(ac: AbortController): void {
  ac.abort();
}

function sender(): () => Promise<void> {
  if (side === "floor") {
    let signal: AbortSignal | undefined;
    const floor = createClient<paths>({
      baseUrl,
      headers: { Authorization: `Bearer ${token}`, Accept: "application/json" },
      fetch: (request: Request) => fetch(request, { signal }),
    });
    return async () => {
      const ac = new AbortController();
      const timer = setTimeout(abortOnTimeout, 30_000, ac);
      signal = ac.signal;
      try {
        const r = await floor.GET("/context");
        if (!r.response.ok) throw new Error(`floor GET /context → ${r.response.status}`);
      } finally {
        clearTimeout(timer);
      }
    };
  }
  if (side === "bare") {
    const bare = createClient<paths>({
      baseUrl,
      headers: { Authorization: `Bearer ${token}`, Accept: "application/json" },
    });
    return async () => {
      const r = await bare.GET("/context");
      if (!r.response.ok) throw new Error(`bare GET /context → ${r.response.status}`);
    };
  }
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
