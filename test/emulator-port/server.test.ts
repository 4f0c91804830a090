// The node:http adapter itself: request conversion (exact bytes), response writing, socket faults, the
// loopback gate on the control API and a clean close. A recording handler stands in for the emulator here,
// so each assertion is about the adapter; faults.test.ts drives the real emulator.
import { afterEach, describe, expect, it } from "vitest";
import {
  isControlPath,
  isLoopbackAddress,
  serveEmulator,
  startEmulatorServer,
  type EmulatorHandler,
  type ServedHandler,
} from "../../emulator/server";
import type { SocketFault } from "../../emulator/types";
import { networkFailure } from "./harness";

interface Seen {
  method: string;
  url: string;
  headers: Headers;
  body: Uint8Array;
  remoteAddress?: string;
}

function recorder(answer: (request: Request) => Response | SocketFault = () => Response.json({ ok: true })) {
  const seen: Seen[] = [];
  const handler: EmulatorHandler = {
    async handle(request, info) {
      seen.push({
        method: request.method,
        url: request.url,
        headers: request.headers,
        body: new Uint8Array(await request.arrayBuffer()),
        remoteAddress: info?.remoteAddress,
      });
      return answer(request);
    },
  };
  return { seen, handler };
}

const open: ServedHandler[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function serve(handler: EmulatorHandler, options: Parameters<typeof serveEmulator>[1] = {}) {
  const served = await serveEmulator(handler, options);
  open.push(served);
  return served;
}

describe("isLoopbackAddress (control API gate)", () => {
  it.each([
    "127.0.0.1",
    "127.1.2.3",
    "127.255.255.254",
    "::1",
    "0:0:0:0:0:0:0:1",
    "::ffff:127.0.0.1",
    "::FFFF:127.9.9.9",
    "::ffff:7f00:1",
    "[::1]",
  ])("loopback: %s", (address) => expect(isLoopbackAddress(address)).toBe(true));
  it.each([
    "10.0.0.1",
    "192.168.1.10",
    "128.0.0.1",
    "::ffff:10.0.0.1",
    "::ffff:128.0.0.1",
    "::",
    "::2",
    "fe80::1",
    "2001:db8::1",
    "::127.0.0.1",
    "localhost",
    "",
    undefined,
    null,
  ])("not loopback: %s", (address) => expect(isLoopbackAddress(address)).toBe(false));
});

describe("isControlPath", () => {
  it.each(["/_emulator", "/_emulator/keys", "/%5Femulator/keys", "/_EMULATOR/faults", "//_emulator/reset"])(
    "control: %s",
    (p) => expect(isControlPath(p)).toBe(true),
  );
  it.each(["/api/reseller/v1/context", "/_emulatorx", "/api/_emulator/keys", "/"])("not control: %s", (p) =>
    expect(isControlPath(p)).toBe(false),
  );
});

describe("serveEmulator adapter", () => {
  it("D4: raw body bytes, method, path+query and repeated headers reach the handler unchanged", async () => {
    const { seen, handler } = recorder();
    const served = await serve(handler);
    const body = '{ "period" : 1.0 ,"x":"\u00e9\u2603"}\n';
    const response = await fetch(`${served.baseUrl}/domains/abc/renew?b=2&a=%7e1`, {
      method: "POST",
      headers: [
        ["content-type", "application/json"],
        ["idempotency-key", "  spaced  "],
        ["x-multi", "one"],
        ["x-multi", "two"],
      ],
      body,
    });
    expect(response.status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0].method).toBe("POST");
    expect(new URL(seen[0].url).pathname).toBe("/api/reseller/v1/domains/abc/renew");
    expect(new URL(seen[0].url).search).toBe("?b=2&a=%7e1");
    expect(Buffer.from(seen[0].body).toString("utf8")).toBe(body);
    expect(Buffer.from(seen[0].body).equals(Buffer.from(body, "utf8"))).toBe(true);
    expect(seen[0].headers.get("idempotency-key")).toBe("spaced"); // Headers trims; the emulator trims anyway (D2)
    expect(seen[0].headers.get("x-multi")).toBe("one, two");
    expect(isLoopbackAddress(seen[0].remoteAddress)).toBe(true);
  });

  it("D4: a POST with no body reaches the handler with zero bytes, not {}", async () => {
    const { seen, handler } = recorder();
    const served = await serve(handler);
    await fetch(`${served.baseUrl}/domains/abc/sync`, { method: "POST", headers: { "idempotency-key": "k" } });
    expect(seen[0].body.length).toBe(0);
    expect(seen[0].headers.get("content-type")).toBeNull();
  });

  it("writes status, headers and body bytes of the handler's Response (incl. 204 and non-JSON)", async () => {
    const { handler } = recorder((request) => {
      const path = new URL(request.url).pathname;
      if (path.endsWith("/none")) return new Response(null, { status: 204, headers: { "x-request-id": "r1" } });
      return new Response("<html>bad gateway</html>", { status: 502, headers: { "content-type": "text/html" } });
    });
    const served = await serve(handler);
    const none = await fetch(`${served.baseUrl}/none`);
    expect(none.status).toBe(204);
    expect(none.headers.get("x-request-id")).toBe("r1");
    expect((await none.arrayBuffer()).byteLength).toBe(0);
    const html = await fetch(`${served.baseUrl}/html`);
    expect(html.status).toBe(502);
    expect(html.headers.get("content-type")).toBe("text/html");
    expect(await html.text()).toBe("<html>bad gateway</html>");
  });

  it("E4: SocketFault reset → the client sees a dropped connection; the server keeps serving", async () => {
    const { handler } = recorder((request) =>
      new URL(request.url).pathname.endsWith("/reset") ? { kind: "reset" } : Response.json({ ok: true }),
    );
    const served = await serve(handler);
    const failure = await networkFailure(fetch(`${served.baseUrl}/reset`, { method: "POST", body: "{}" }));
    expect(failure.message).toBe("fetch failed");
    expect(["ECONNRESET", "UND_ERR_SOCKET"]).toContain(failure.code);
    expect((await fetch(`${served.baseUrl}/fine`)).status).toBe(200);
  });

  it("E4: SocketFault hang → no answer until the client aborts; close() destroys hung sockets promptly", async () => {
    const { seen, handler } = recorder((request) =>
      new URL(request.url).pathname.endsWith("/hang") ? { kind: "hang" } : Response.json({ ok: true }),
    );
    const served = await serve(handler);
    const timedOut = await networkFailure(fetch(`${served.baseUrl}/hang`, { signal: AbortSignal.timeout(300) }));
    expect(timedOut.name).toBe("TimeoutError");
    const pending = networkFailure(fetch(`${served.baseUrl}/hang`));
    while (seen.length < 2) await new Promise((r) => setTimeout(r, 10));
    // The hung request never ends by itself: that close() resolves and the request fails at all is
    // the proof that close() destroyed its socket instead of waiting for it.
    await served.close();
    const dropped = await pending;
    expect(dropped.message).toBe("fetch failed");
  });

  it("control API: /_emulator/* from a caller the gate refuses → 403 envelope; the handler never runs", async () => {
    const { seen, handler } = recorder();
    // Every real caller here is loopback, so the test swaps in a gate that treats 127.0.0.1 as remote.
    const served = await serve(handler, { controlAllowed: () => false });
    for (const path of ["/_emulator/keys", "/api/../_emulator/keys", "/%5Femulator/reset"]) {
      const response = await fetch(`http://127.0.0.1:${served.port}${path}`, { method: "POST", body: "{}" });
      expect(response.status, path).toBe(403);
      const body = (await response.json()) as { error: { code: string; details: unknown; request_id: unknown } };
      expect(body.error.code).toBe("forbidden");
      expect(body.error.details).toEqual([]);
    }
    expect(seen).toHaveLength(0);
    // API routes are not gated.
    expect((await fetch(`${served.baseUrl}/context`)).status).toBe(200);
    expect(seen).toHaveLength(1);
  });

  it("control API: the default gate lets loopback callers through", async () => {
    const { seen, handler } = recorder();
    const served = await serve(handler);
    expect((await fetch(`${served.controlUrl}/counters`)).status).toBe(200);
    expect(seen).toHaveLength(1);
  });

  it("a handler exception becomes a 500 envelope, not a dropped connection", async () => {
    const served = await serve({
      handle: async () => {
        throw new Error("boom");
      },
    });
    const stderrWrite = process.stderr.write.bind(process.stderr);
    process.stderr.write = () => true;
    try {
      const response = await fetch(`${served.baseUrl}/context`);
      expect(response.status).toBe(500);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("internal_error");
    } finally {
      process.stderr.write = stderrWrite;
    }
  });
});

describe("startEmulatorServer", () => {
  it("binds 127.0.0.1 on an ephemeral port and reports base and control URLs", async () => {
    const server = await startEmulatorServer({ withDefaultKeys: true });
    try {
      expect(server.port).toBeGreaterThan(0);
      expect(server.baseUrl).toBe(`http://127.0.0.1:${server.port}/api/reseller/v1`);
      expect(server.controlUrl).toBe(`http://127.0.0.1:${server.port}/_emulator`);
      const key = server.emulator.control.keys().find((k) => k.environment === "test")!;
      const response = await fetch(`${server.baseUrl}/context`, { headers: { authorization: `Bearer ${key.token}` } });
      expect(response.status).toBe(200);
    } finally {
      await server.close();
    }
    await expect(fetch(`${server.baseUrl}/context`)).rejects.toThrow("fetch failed");
  });
});
