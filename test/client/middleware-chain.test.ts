// The client registers its middleware with openapi-fetch as one chain (middleware/chain.ts). Each
// step must see exactly what openapi-fetch would have shown it as a separate middleware.
import createClient from "openapi-fetch";
import { describe, expect, it } from "vitest";
import type { paths } from "../../generated/schema";
import { createEmulator } from "../../emulator/index";
import { chainMiddleware } from "../../middleware/index";
import { VirtualClock } from "../../runtime/clock";
import { BASE_URL } from "./harness";

function bareClient() {
  const emulator = createEmulator({ clock: new VirtualClock() });
  const { token } = emulator.control.createKey({ environment: "test" });
  const sent: Request[] = [];
  const http = createClient<paths>({
    baseUrl: BASE_URL,
    fetch: async (request: Request) => {
      sent.push(request);
      return emulator.fetch(request);
    },
    headers: { Authorization: `Bearer ${token}` },
  });
  return { http, sent };
}

describe("middleware chain", () => {
  it("runs steps in order; a Request a step returns is what the next step and fetch get", async () => {
    const { http, sent } = bareClient();
    const seen: string[] = [];
    http.use(
      chainMiddleware(
        {
          onRequest: ({ request }) => {
            seen.push(`a:${request.headers.get("x-step") ?? "-"}`);
            const next = new Request(request);
            next.headers.set("x-step", "from-a");
            return next;
          },
        },
        {
          // An asynchronous step is awaited before the next one runs.
          onRequest: async ({ request, schemaPath }) => {
            await new Promise((resolve) => setImmediate(resolve));
            seen.push(`b:${request.headers.get("x-step")}:${schemaPath}`);
            return undefined;
          },
        },
        { onRequest: ({ request }) => void seen.push(`c:${request.headers.get("x-step")}`) },
      ),
    );
    const { response } = await http.GET("/context");
    expect(response.status).toBe(200);
    expect(seen).toEqual(["a:-", "b:from-a:/context", "c:from-a"]);
    expect(sent.map((r) => r.headers.get("x-step"))).toEqual(["from-a"]);
  });

  it("a Response from a step ends the chain: later steps and fetch never run", async () => {
    const { http, sent } = bareClient();
    let later = 0;
    http.use(
      chainMiddleware(
        { onRequest: () => new Response(JSON.stringify({ data: { short: true } }), { status: 200 }) },
        { onRequest: () => void (later += 1) },
      ),
    );
    const { data } = await http.GET("/context");
    expect(data).toEqual({ data: { short: true } });
    expect(later).toBe(0);
    expect(sent).toHaveLength(0);
  });

  it("a step returning anything else fails as a separate openapi-fetch middleware would", async () => {
    const { http } = bareClient();
    http.use(chainMiddleware({ onRequest: () => ({ not: "a request" }) as never }));
    await expect(http.GET("/context")).rejects.toThrow(/must return new Request\(\) or Response\(\)/);
  });
});
