// `reseller-api/emulator`: a stateful reference implementation of the Reseller API v1 with fault
// injection. createEmulator() gives a Fetch-compatible handler (drop-in for globalThis.fetch) and
// a control object; server.ts puts the same handler behind a real TCP port.
import { systemClock } from "../runtime/clock";
import { createControl, createDomain, createKey } from "./control";
import { EmulatorControlError } from "./control-error";
import { handleControl, isControlPath } from "./control-http";
import { toResponse } from "./errors";
import { handleApi } from "./pipeline";
import { route } from "./router";
import { BASE_PATH } from "./state";
import { State, type Config } from "./state";
import type {
  Emulator,
  EmulatorControl,
  EmulatorOptions,
  EmulatorSeed,
  EmulatorTracer,
  RequestLogEntry,
  SeededDomains,
  SeedDomainsInput,
  SocketFault,
} from "./types";

export type * from "./types";
export { ALL_SCOPES } from "./control";
export { FAULT_KINDS } from "./faults";
export { EmulatorControlError, isEmulatorControlError } from "./control-error";
export { BASE_PATH, CONTROL_PATH } from "./state";

const DEFAULT_DOMAINS = ["example.kz", "example.com.kz", "shop.kz"];

function applySeed(state: State, seed: EmulatorSeed | undefined, withDefaultKeys: boolean): void {
  // A seed entry that is refused says which one it is (`seed.keys[2]: …`): a seed file may hold many.
  const entry = <T>(list: "keys" | "domains", items: readonly T[] | undefined, create: (item: T) => unknown) =>
    (items ?? []).forEach((item, i) => {
      try {
        if (item === null || typeof item !== "object" || Array.isArray(item))
          throw new EmulatorControlError(422, `must be an object, got ${JSON.stringify(item)}.`);
        create(item);
      } catch (error) {
        if (!(error instanceof EmulatorControlError)) throw error;
        throw new EmulatorControlError(error.status, `seed.${list}[${i}]: ${error.message}`);
      }
    });
  entry("keys", seed?.keys, (key) => createKey(state, key));
  entry("domains", seed?.domains, (domain) => createDomain(state, domain));
  if (!withDefaultKeys) return;
  const test = createKey(state, { environment: "test" });
  const live = createKey(state, { environment: "live", reseller_uuid: test.reseller_uuid });
  for (const k of [test, live]) for (const name of DEFAULT_DOMAINS) createDomain(state, { token: k.token, name });
}

/** What reset() restores: the initial keys and domains with the same tokens and UUIDs. */
function materialise(state: State): EmulatorSeed {
  const keys = [...state.keys.values()].map((k) => ({
    token: `rsl_${k.environment}_${k.publicKeyId}.${k.secret}`,
    environment: k.environment,
    scopes: [...k.scopes],
    rate_limit_per_minute: k.rateLimit,
    reseller_status: state.resellers.get(k.resellerUuid)?.status,
    ip_allowlist: [...k.ipAllowlist],
    api_mode: k.apiMode,
    tariff: k.tariff ? { name: k.tariff.name, excluded_operations: [...k.tariff.excluded] } : undefined,
    expires_at: k.expiresAt === null ? null : new Date(k.expiresAt).toISOString(),
    reseller_uuid: k.resellerUuid,
  }));
  const owners = new Map<string, string>();
  for (const k of [...state.keys.values()].reverse()) owners.set(`${k.resellerUuid}:${k.environment}`, k.publicKeyId);
  const domains = [...state.domains.values()]
    .sort((a, b) => a.seq - b.seq)
    .map((d) => {
      const owner = { publicKeyId: owners.get(`${d.resellerUuid}:${d.environment}`)! };
      return {
        public_key_id: owner.publicKeyId,
        name: d.name,
        uuid: d.uuid,
        expires_at: new Date(d.expiresAt).toISOString(),
      };
    });
  return { keys, domains };
}

function socketError(): TypeError {
  // What undici throws when the other side drops the connection.
  return new TypeError("fetch failed", {
    cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }),
  });
}

/** Options a caller got wrong: refused up front with the fix, never a late RangeError (one error family). */
function checkOptions(o: EmulatorOptions): void {
  const positive = (name: string, v: number | undefined) => {
    if (v !== undefined && !(Number.isFinite(v) && v > 0))
      throw new EmulatorControlError(422, `${name} must be a finite number of ms > 0, got ${String(v)}.`);
  };
  positive("windowMs", o.windowMs);
  positive("replayTtlMs", o.replayTtlMs);
  const rate = o.defaultRateLimit;
  if (rate !== undefined && !(Number.isInteger(rate) && rate >= 1 && rate <= 10_000))
    throw new EmulatorControlError(
      422,
      `defaultRateLimit must be an integer 1..10000 per window, got ${String(rate)}.`,
    );
  if (o.language !== undefined && !["ru", "en", "kk"].includes(o.language))
    throw new EmulatorControlError(422, `language must be "ru", "en" or "kk", got ${JSON.stringify(o.language)}.`);
  for (const k of ["pendingMs", "processingMs", "uncertainRecheckMs"] as const) {
    const v = o.operationPolicy?.[k];
    if (v !== undefined && !(Number.isFinite(v) && v >= 0))
      throw new EmulatorControlError(422, `operationPolicy.${k} must be a finite number of ms ≥ 0, got ${String(v)}.`);
  }
  if (o.clock !== undefined && (typeof o.clock?.now !== "function" || typeof o.clock?.sleep !== "function"))
    throw new EmulatorControlError(422, "clock must have now() and sleep(ms, signal) (systemClock or a VirtualClock).");
}

export function createEmulator(options: EmulatorOptions = {}): Emulator {
  checkOptions(options);
  const config: Config = {
    clock: options.clock ?? systemClock,
    random: options.random ?? Math.random,
    windowMs: options.windowMs ?? 60_000,
    replayTtlMs: options.replayTtlMs ?? 86_400_000,
    defaultRateLimit: options.defaultRateLimit ?? 120,
    language: options.language ?? "en",
    policy: {
      pendingMs: options.operationPolicy?.pendingMs ?? 1_000,
      processingMs: options.operationPolicy?.processingMs ?? 2_000,
      outcome: options.operationPolicy?.outcome ?? "completed",
      uncertainRecheckMs: options.operationPolicy?.uncertainRecheckMs ?? 300_000,
    },
  };
  const state = new State(config);
  applySeed(state, options.seed, options.withDefaultKeys ?? false);
  const initial = materialise(state);
  const control = createControl(state, () => {
    state.clear();
    applySeed(state, initial, false);
  });
  const hung = new Set<(error: unknown) => void>();
  const tracer = options.tracer;

  async function handle(request: Request, info?: { remoteAddress?: string }): Promise<Response | SocketFault> {
    const pathname = new URL(request.url).pathname;
    if (isControlPath(pathname)) return handleControl(control, request);
    if (tracer) return traced(tracer, request, pathname, info?.remoteAddress ?? "127.0.0.1");
    const outcome = await handleApi(state, request, info?.remoteAddress ?? "127.0.0.1");
    return "status" in outcome ? toResponse(outcome) : outcome;
  }

  async function traced(t: EmulatorTracer, request: Request, pathname: string, remoteAddress: string) {
    const match = route(request.method.toUpperCase(), pathname);
    const op = match.kind === "match" ? match.op : null;
    const span = t.startRequest({
      method: request.method.toUpperCase(),
      url: request.url,
      headers: request.headers,
      route: op ? `${BASE_PATH}${op.path}` : null,
      operationId: op?.operationId ?? null,
    });
    const seen: { log?: RequestLogEntry } = {};
    let outcome;
    try {
      outcome = await handleApi(state, request, remoteAddress, seen);
    } catch (error) {
      span.end({ status: 500, requestId: null, fault: null, counted: false, replayed: false });
      throw error;
    }
    const log = seen.log;
    span.end({
      status: "status" in outcome ? outcome.status : undefined,
      socketFault: "status" in outcome ? undefined : outcome.kind,
      requestId: "status" in outcome ? (outcome.headers["x-request-id"] ?? null) : null,
      fault: log?.fault ?? null,
      counted: log?.counted ?? false,
      replayed: log?.replayed ?? false,
    });
    return "status" in outcome ? toResponse(outcome) : outcome;
  }

  async function emulatorFetch(input: Request | string | URL, init?: RequestInit): Promise<Response> {
    const request = new Request(input, init);
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    if (signal?.aborted) throw signal.reason;
    const out = await handle(request);
    if (out instanceof Response) return out;
    if (out.kind === "reset") throw socketError();
    // "hang": like a server that never answers — only the caller's signal ends the wait.
    return new Promise<Response>((_, reject) => {
      const onAbort = () => {
        hung.delete(fail);
        reject(signal!.reason);
      };
      const fail = (error: unknown) => {
        signal?.removeEventListener("abort", onAbort);
        reject(error);
      };
      hung.add(fail);
      if (signal?.aborted) return void onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  return {
    fetch: emulatorFetch,
    handle,
    control,
    async close() {
      // Hung in-process requests see the connection close, as they would with a real server.
      for (const fail of [...hung]) fail(socketError());
      hung.clear();
    },
  };
}

/**
 * Seeds many domains for one key in one call — for test suites and benches that need a realistic
 * account (100k domains in about a second): `seedDomains(emulator, { token, count: 100_000 })` creates
 * `bulk-1.kz` … `bulk-100000.kz`; or pass `names`. Also over HTTP: `POST /_emulator/domains/bulk`.
 */
export function seedDomains(target: Emulator | EmulatorControl, input: SeedDomainsInput): SeededDomains {
  return ("control" in target ? target.control : target).seedDomains(input);
}
