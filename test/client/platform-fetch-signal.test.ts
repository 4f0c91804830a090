// With no `fetch` option the client sends through the platform's fetch (undici in Node) and gives each
// attempt's signal as fetch's documented `init.signal` (runner/transport.ts). Over a real loopback
// socket to a server that never answers, a timed-out attempt — and the caller's abort — must still
// close the connection it opened, or every hung attempt would hold a socket until undici's own
// 300 s header timeout.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createResellerClient } from "../../src/index";

const TOKEN = `rsl_test_${"P".repeat(24)}.${"f".repeat(64)}`;

interface HungServer {
  baseUrl: string;
  /** One promise per request received, settled when that request's socket closed. */
  closed: Promise<void>[];
  requests: IncomingMessage[];
  close(): Promise<void>;
}

/** Answers nothing, ever; records each request and when its socket closes. */
async function startHungServer(): Promise<HungServer> {
  const closed: Promise<void>[] = [];
  const requests: IncomingMessage[] = [];
  const server: Server = createServer((req) => {
    requests.push(req);
    closed.push(new Promise<void>((resolve) => req.socket.once("close", () => resolve())));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/reseller/v1`,
    closed,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let hung: HungServer | undefined;
afterEach(async () => {
  await hung?.close();
  hung = undefined;
});

describe("client: the platform's fetch gets each attempt's signal (init.signal)", () => {
  it("E4: every timed-out attempt closes its socket (first attempt and the rebuilt retry)", async () => {
    hung = await startHungServer();
    const client = createResellerClient({
      baseUrl: hung.baseUrl,
      token: TOKEN,
      timeoutMs: 200,
      retry: { maxAttempts: 2, baseMs: 1, capMs: 1 },
    });
    const out = await client.context.get();
    expect(out.kind).toBe("unknown");
    expect(out.attempts.map((a) => a.error)).toEqual(["timeout", "timeout"]);
    expect(hung.requests).toHaveLength(2);
    // Each attempt carried its own X-Request-ID (G2) — the first one is openapi-fetch's own Request.
    const ids = hung.requests.map((r) => r.headers["x-request-id"]);
    expect(new Set(ids).size).toBe(2);
    // Nothing else closes them: the server keeps hung sockets open until the test ends.
    await Promise.all(hung.closed);
  });

  it("E4: the caller's abort closes the socket of the attempt in flight", async () => {
    hung = await startHungServer();
    const client = createResellerClient({ baseUrl: hung.baseUrl, token: TOKEN, timeoutMs: 600_000 });
    const controller = new AbortController();
    const call = client.context.get(undefined, { signal: controller.signal });
    const server = hung;
    await new Promise<void>((resolve) => {
      const poll = () => (server.requests.length > 0 ? resolve() : setImmediate(poll));
      poll();
    });
    controller.abort(new Error("caller gave up"));
    await expect(call).rejects.toMatchObject({ name: "RequestAbortedError" });
    await Promise.all(hung.closed);
    expect(hung.requests).toHaveLength(1);
  });
});
