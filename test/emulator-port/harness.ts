// Shared setup for tests over a real port: a fresh emulator server, its default keys, small request helpers.
import { startEmulatorServer, type EmulatorServer } from "../../emulator/server";
import type { EmulatorOptions, KeyInfo } from "../../emulator/types";
import { controlClient, type ControlClient } from "../../bench/lib/emulator-control";

export interface PortHarness {
  server: EmulatorServer;
  control: ControlClient;
  testKey: KeyInfo;
  liveKey: KeyInfo;
  /** fetch against baseUrl + path with the given token (default: the test key). */
  api(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
  close(): Promise<void>;
}

export async function startHarness(options: EmulatorOptions = {}): Promise<PortHarness> {
  const server = await startEmulatorServer({ withDefaultKeys: true, ...options });
  const keys = server.emulator.control.keys();
  const testKey = keys.find((k) => k.environment === "test");
  const liveKey = keys.find((k) => k.environment === "live");
  if (!testKey || !liveKey) {
    await server.close();
    throw new Error("withDefaultKeys did not create a test and a live key");
  }
  const api = (path: string, init: RequestInit & { token?: string } = {}) => {
    const { token = testKey.token, headers, ...rest } = init;
    const merged = new Headers(headers);
    merged.set("authorization", `Bearer ${token}`);
    if (!merged.has("accept")) merged.set("accept", "application/json");
    if (rest.body !== undefined && rest.body !== null && !merged.has("content-type")) {
      merged.set("content-type", "application/json");
    }
    return fetch(server.baseUrl + path, { ...rest, headers: merged });
  };
  return { server, control: controlClient(server.controlUrl), testKey, liveKey, api, close: () => server.close() };
}

/** What a failed fetch looked like on the wire: the undici error code of the cause, or the error name. */
export async function networkFailure(
  promise: Promise<Response>,
): Promise<{ name: string; message: string; code?: string }> {
  try {
    const response = await promise;
    throw new Error(`expected a network failure, got HTTP ${response.status}`);
  } catch (error) {
    const e = error as Error & { cause?: { code?: string } };
    if (e.message.startsWith("expected a network failure")) throw e;
    return { name: e.name, message: e.message, code: e.cause?.code };
  }
}

/** The first domain of the test key (default keys come with a few). */
export async function firstDomainUuid(h: PortHarness, token = h.testKey.token): Promise<string> {
  const response = await h.api("/domains", { token });
  const body = (await response.json()) as { data: { uuid: string }[] };
  if (response.status !== 200 || body.data.length === 0)
    throw new Error(`no domains for key (status ${response.status})`);
  return body.data[0].uuid;
}
