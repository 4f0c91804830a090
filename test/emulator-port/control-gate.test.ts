// Issue 21: a web page on the same machine must not drive the emulator's control API — neither by
// DNS rebinding (its own name as Host) nor by a cross-origin form (text/plain, form-urlencoded).
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startEmulatorServer, type EmulatorServer } from "../../emulator/public";

let server: EmulatorServer;
beforeAll(async () => {
  server = await startEmulatorServer();
});
afterAll(() => server.close());

/** A raw HTTP request (fetch would not let us set Host). */
function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: server.port, method, path, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const fault = JSON.stringify({ method: "*", path: "*", kind: "error_500_after" });

describe("emulator control API gate (issue 21)", () => {
  it("DNS rebinding: Host evil.example (with or without the port) → 403, the keys' tokens are not shown", async () => {
    for (const host of ["evil.example", `evil.example:${server.port}`, `127.0.0.1.evil.example:${server.port}`]) {
      const res = await send("GET", "/_emulator/keys", { host });
      expect(res.status, host).toBe(403);
      expect(res.text).not.toContain("rsl_");
    }
    expect((await send("GET", "/_emulator/keys", { host: `127.0.0.1:${server.port + 1}` })).status).toBe(403);
  });

  it("loopback Host values pass: 127.0.0.1, [::1] and localhost with the port", async () => {
    for (const host of [`127.0.0.1:${server.port}`, `[::1]:${server.port}`, `localhost:${server.port}`, "localhost"]) {
      const res = await send("GET", "/_emulator/keys", { host });
      expect(res.status, host).toBe(200);
    }
  });

  it("cross-origin form: text/plain and form-urlencoded POSTs → 415, nothing is changed", async () => {
    const host = `127.0.0.1:${server.port}`;
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const res = await send("POST", "/_emulator/faults", { host, "content-type": type }, fault);
      expect(res.status, type).toBe(415);
    }
    expect(server.emulator.control.faults()).toEqual([]);
    const reset = await send("POST", "/_emulator/reset", { host, "content-type": "text/plain" }, "");
    expect(reset.status).toBe(415);
  });

  it("a request from a foreign Origin (a page's fetch, even with JSON) → 403; the same-origin one passes", async () => {
    const host = `127.0.0.1:${server.port}`;
    const json = { host, "content-type": "application/json" };
    const foreign = await send("POST", "/_emulator/faults", { ...json, origin: "http://evil.example" }, fault);
    expect(foreign.status).toBe(403);
    expect(server.emulator.control.faults()).toEqual([]);
    const empty = await send("POST", "/_emulator/reset", { host, origin: "null" });
    expect(empty.status).toBe(403);
    const own = await send("POST", "/_emulator/faults", { ...json, origin: `http://${host}` }, fault);
    expect(own.status).toBe(201);
    server.emulator.control.clearFaults();
  });

  it("the API itself (not the control API) still answers any Host", async () => {
    const res = await send("GET", "/api/reseller/v1/context", { host: "api.example" });
    expect(res.status).toBe(401);
  });

  it("startEmulatorServer({ host: '0.0.0.0' }) warns like the CLI", async () => {
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const open = await startEmulatorServer({ host: "0.0.0.0" });
      await open.close();
      expect(write.mock.calls.map((c) => String(c[0]))).toContain(
        "reseller-emulator: warning: binding 0.0.0.0, not a loopback address\n",
      );
    } finally {
      write.mockRestore();
    }
  });
});
