// Shared setup for the emulator tests: a VirtualClock that moves only when a test says so, and a
// tiny request helper over emulator.fetch (no client library, no mocks).
import { createEmulator, type CreatedKey, type Emulator, type EmulatorOptions } from "../../emulator/index";
import { VirtualClock } from "../../runtime/clock";

export const BASE = "http://emulator.test/api/reseller/v1";
export const CONTROL = "http://emulator.test/_emulator";

export interface Setup {
  emu: Emulator;
  clock: VirtualClock;
  test: CreatedKey;
  live: CreatedKey;
}

/** A fresh emulator with the default keys (test + live, every scope, 3 domains each). */
export function setup(options: EmulatorOptions = {}): Setup {
  const clock = new VirtualClock({ autoAdvance: false });
  let n = 0;
  // Deterministic randomness: a simple LCG, so ids are reproducible run to run.
  const random = () => {
    n = (n * 1103515245 + 12345) % 2147483648;
    return n / 2147483648;
  };
  const emu = createEmulator({ clock, random, withDefaultKeys: true, ...options });
  const keys = emu.control.keys();
  const pick = (env: string) => {
    const k = keys.find((x) => x.environment === env)!;
    return {
      token: k.token,
      public_key_id: k.public_key_id,
      reseller_uuid: k.reseller_uuid,
      environment: k.environment,
      scopes: k.scopes,
      rate_limit_per_minute: k.rate_limit_per_minute,
    };
  };
  return { emu, clock, test: pick("test"), live: pick("live") };
}

export interface CallOptions {
  method?: string;
  body?: unknown;
  /** Raw body text, sent byte for byte (D4). */
  raw?: string;
  key?: string | null;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

let keySeq = 0;
/** A fresh Idempotency-Key per call unless one is given (null = send none). */
export function call(emu: Emulator, token: string | null, path: string, options: CallOptions = {}): Promise<Response> {
  const method = options.method ?? (options.body !== undefined || options.raw !== undefined ? "POST" : "GET");
  const headers: Record<string, string> = { accept: "application/json", ...options.headers };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const write = method !== "GET" && method !== "HEAD";
  if (write && options.key !== null) headers["idempotency-key"] = options.key ?? `key-${++keySeq}`;
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers["content-type"] = "application/json";
  return options.signal
    ? emu.fetch(new Request(BASE + path, { method, headers, body, signal: options.signal }))
    : emu.fetch(new Request(BASE + path, { method, headers, body }));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each test asserts on the body's shape itself
export async function json(res: Response): Promise<any> {
  return JSON.parse(await res.text());
}

/** The first domain of a key (default keys own example.kz, example.com.kz, shop.kz). */
export async function firstDomain(emu: Emulator, token: string): Promise<string> {
  const body = await json(await call(emu, token, "/domains?per_page=1"));
  return body.data[0].uuid as string;
}

export const OTHER_UUID = "55555555-5555-4555-8555-555555555555";
