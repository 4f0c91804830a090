/**
 * The overhead bench's reference sides over a real socket, each a sequential `GET /context` sender:
 * bare openapi-fetch, and the floor — bare plus what every attempt of the client must do and bare
 * does not (a plain AbortController per call whose signal goes to fetch, and its timeout's timer, E4).
 */
import createClient from "openapi-fetch";
import type { paths } from "../../src/index";

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
