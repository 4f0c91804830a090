// Test harness for the client: ONE VirtualClock shared by the in-process emulator and the client,
// a capturing fetch that records every request's method/url/headers/body bytes, and an event log.
import { createEmulator } from "../../emulator/index";
import type { Emulator, EmulatorOptions } from "../../emulator/index";
import { VirtualClock } from "../../runtime/clock";
import { createResellerClient, type ResellerClient, type ResellerClientOptions } from "../../src/index";
import type { ClientEvent } from "../../core";

export const BASE_URL = "http://127.0.0.1/api/reseller/v1";

/** Deterministic uniform [0, 1) (mulberry32). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Captured {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Uint8Array | null;
  at: number;
}

export interface Harness {
  clock: VirtualClock;
  emulator: Emulator;
  token: string;
  publicKeyId: string;
  domainUuid: string;
  client: ResellerClient;
  captured: Captured[];
  events: ClientEvent[];
  /** A second client on the same key sharing the same fetch (and a new pacer unless given). */
  makeClient(overrides?: Partial<ResellerClientOptions>): ResellerClient;
  fetch: (input: Request) => Promise<Response>;
}

export interface HarnessOptions {
  emulator?: EmulatorOptions;
  client?: Partial<ResellerClientOptions>;
  environment?: "test" | "live";
  rateLimit?: number;
  scopes?: string[];
}

export function setup(options: HarnessOptions = {}): Harness {
  const clock = new VirtualClock();
  const emulator = createEmulator({ clock, random: seeded(7), defaultRateLimit: 10_000, ...options.emulator });
  const key = emulator.control.createKey({
    environment: options.environment ?? "test",
    rate_limit_per_minute: options.rateLimit ?? 10_000,
    scopes: options.scopes,
  });
  const domain = emulator.control.createDomain({ token: key.token, name: "example.kz" });
  const captured: Captured[] = [];
  const events: ClientEvent[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    const body = request.body === null ? null : new Uint8Array(await request.clone().arrayBuffer());
    captured.push({
      method: request.method,
      url: request.url,
      headers: Object.fromEntries(request.headers),
      body,
      at: clock.now(),
    });
    return emulator.fetch(request);
  };
  const makeClient = (overrides: Partial<ResellerClientOptions> = {}) =>
    createResellerClient({
      baseUrl: BASE_URL,
      token: key.token,
      fetch,
      clock,
      random: seeded(11),
      onEvent: (e) => events.push(e),
      pacing: { initialLimit: options.rateLimit ?? 10_000 },
      ...options.client,
      ...overrides,
    });
  return {
    clock,
    emulator,
    token: key.token,
    publicKeyId: key.public_key_id,
    domainUuid: domain.uuid,
    client: makeClient(),
    captured,
    events,
    makeClient,
    fetch,
  };
}

export const decode = (bytes: Uint8Array | null) => (bytes === null ? null : new TextDecoder().decode(bytes));

/** Requests to one path (relative to the base path), e.g. "/domains/…/renew". */
export function requestsTo(captured: Captured[], method: string, suffix: string | RegExp): Captured[] {
  return captured.filter(
    (c) =>
      c.method === method &&
      (typeof suffix === "string" ? new URL(c.url).pathname.endsWith(suffix) : suffix.test(new URL(c.url).pathname)),
  );
}
