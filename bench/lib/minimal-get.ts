/**
 * A hand-written GET that does, once, what the contract asks of every attempt and nothing else: its
 * own AbortController and timeout timer (E4), a fresh X-Request-ID (G2), no redirect following, the
 * body read whole and bounded (E4), JSON decoded by Content-Type, the X-RateLimit-* headers read
 * (C10) and a fixed-window count (C3) that refuses a send past the limit. No openapi-fetch, no middleware, no retries, no Outcome.
 * The socket overhead bench measures it beside bare openapi-fetch: the cheapest a conforming client
 * could be over the same socket.
 */
export interface MinimalGetResult {
  status: number;
  data: unknown;
  limit: string | null;
  remaining: string | null;
}

const MAX_BODY_BYTES = 8 * 1024 * 1024;

function abortOnTimeout(ac: AbortController): void {
  ac.abort();
}

export function createMinimalGet(
  baseUrl: string,
  token: string,
  options: { timeoutMs?: number; windowMs?: number; limit?: number } = {},
): (path: string) => Promise<MinimalGetResult> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const windowMs = options.windowMs ?? 60_000;
  const limit = options.limit ?? 120;
  const authorization = `Bearer ${token}`;
  const decoder = new TextDecoder();
  let windowStart = 0;
  let sent = 0;
  return async function get(path) {
    const now = Date.now();
    if (now - windowStart >= windowMs) {
      windowStart = now;
      sent = 0;
    }
    // C3: a send past the window's limit is not made (this minimum refuses; a pacer would wait).
    if (sent >= limit) throw new Error(`GET ${path}: the window's ${limit} sends are spent`);
    sent++;
    const ac = new AbortController();
    const timer = setTimeout(abortOnTimeout, timeoutMs, ac);
    try {
      const response = await fetch(baseUrl + path, {
        method: "GET",
        headers: { authorization, accept: "application/json", "x-request-id": crypto.randomUUID() },
        signal: ac.signal,
        redirect: "manual",
      });
      const chunks: Uint8Array[] = [];
      let size = 0;
      if (response.body) {
        const reader = response.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          size += value.byteLength;
          if (size > MAX_BODY_BYTES) {
            await reader.cancel();
            throw new Error(`GET ${path}: body over ${MAX_BODY_BYTES} bytes`);
          }
          chunks.push(value);
        }
      }
      const bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
      const type = response.headers.get("content-type") ?? "";
      return {
        status: response.status,
        data: type.includes("json") && bytes.byteLength > 0 ? JSON.parse(decoder.decode(bytes)) : undefined,
        limit: response.headers.get("x-ratelimit-limit"),
        remaining: response.headers.get("x-ratelimit-remaining"),
      };
    } finally {
      clearTimeout(timer);
    }
  };
}
