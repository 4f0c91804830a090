/**
 * The overhead bench's sides over a real socket, each a sequential `GET /context` sender: bare
 * openapi-fetch; the floor — bare plus what every attempt of the client must do and bare does not (a
 * plain AbortController per call whose signal goes to fetch, and its timeout's timer, E4); and the
 * full client. `timeChunk` times a chunk of one side's calls the same way wherever it runs.
 */
import createClient from "openapi-fetch";
import type { paths } from "../../src/index";
import { createResellerClient } from "../../src/index";

function abortOnTimeout(ac: AbortController): void {
  ac.abort();
}

/** Bare openapi-fetch with the key's token; `name` labels its error. */
export function bareGet(baseUrl: string, token: string, name = "bare"): () => Promise<void> {
  const bare = createClient<paths>({
    baseUrl,
    headers: { Authorization: `Bearer ${token}`, Accept: "application/json" },
  });
  return async () => {
    const r = await bare.GET("/context");
    if (!r.response.ok) throw new Error(`${name} GET /context → ${r.response.status}`);
  };
}

/**
 * The floor: openapi-fetch's documented `fetch` option hands each Request to the platform's fetch
 * with the call's own signal, as the client's attempts do (fetch's documented init.signal).
 */
export function floorGet(baseUrl: string, token: string): () => Promise<void> {
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

/**
 * The full client on an unpaced key (`limit` per `windowMs`); `onWaited` hears how long each call's
 * attempts waited for the pacer.
 */
export function clientGet(
  baseUrl: string,
  token: string,
  pacing: { windowMs: number; limit: number },
  onWaited?: (ms: number) => void,
): () => Promise<void> {
  const client = createResellerClient({
    baseUrl,
    token,
    pacing: { windowMs: pacing.windowMs, initialLimit: pacing.limit },
  });
  return async () => {
    const out = await client.context.get();
    if (out.kind !== "succeeded") throw new Error(`client GET /context: ${out.kind}`);
    if (onWaited) for (const a of out.attempts) onWaited(a.delayMs);
  };
}

/** `chunk` sequential calls of one side: this process's CPU and the wall time they took, ms. */
export async function timeChunk(once: () => Promise<void>, chunk: number): Promise<{ cpu: number; wall: number }> {
  const t = performance.now();
  const c = process.cpuUsage();
  for (let i = 0; i < chunk; i++) await once();
  const d = process.cpuUsage(c);
  return { wall: performance.now() - t, cpu: (d.user + d.system) / 1000 };
}
