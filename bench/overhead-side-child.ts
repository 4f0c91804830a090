/**
 * One side of the separate-processes overhead row (overhead-processes.ts): a process that sends only
 * bare openapi-fetch GETs, only the floor's (bare + a plain AbortController and timer per call), or
 * only the full client's, as an application's process does. It runs a chunk of sequential
 * `GET /context` when its parent asks and answers with the chunk's process CPU and wall time.
 */
import { bareGet, clientGet, floorGet, timeChunk } from "./lib";

const [side, baseUrl, token, windowMs, limit] = process.argv.slice(2);

const once =
  side === "floor"
    ? floorGet(baseUrl, token)
    : side === "bare"
      ? bareGet(baseUrl, token)
      : clientGet(baseUrl, token, { windowMs: Number(windowMs), limit: Number(limit) });
process.on("message", (m: { chunk: number }) => {
  timeChunk(once, m.chunk).then(
    (timed) => process.send?.(timed),
    (error: unknown) => process.send?.({ error: String(error) }),
  );
});
process.send?.({ ready: true });
