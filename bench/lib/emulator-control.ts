// A tiny HTTP client for the emulator's control API (/_emulator/*), used by benches and port tests.
import type {
  CounterInfo,
  CreatedKey,
  CreateKeyInput,
  DomainInfo,
  Effect,
  FaultInfo,
  FaultInput,
  KeyInfo,
} from "../../emulator/public";

export interface ControlClient {
  createKey(input: CreateKeyInput): Promise<CreatedKey>;
  revokeKey(publicKeyId: string): Promise<void>;
  rotateKey(publicKeyId: string): Promise<{ token: string }>;
  setResellerStatus(resellerUuid: string, status: "active" | "restricted"): Promise<void>;
  createDomain(input: { token: string; name: string; expires_at?: string }): Promise<DomainInfo>;
  addFault(input: FaultInput): Promise<FaultInfo>;
  clearFaults(): Promise<void>;
  effects(): Promise<Effect[]>;
  counters(): Promise<Record<string, CounterInfo>>;
  keys(): Promise<KeyInfo[]>;
  setOperationStatus(uuid: string, status: string): Promise<void>;
  reset(): Promise<void>;
}

/** Control answers may be bare JSON or wrapped in {"data": ...}; callers get the payload. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the payload type it expects
function unwrap<T>(body: unknown): T {
  if (body !== null && typeof body === "object" && !Array.isArray(body) && "data" in body) {
    return (body as { data: T }).data;
  }
  return body as T;
}

export function controlClient(controlUrl: string): ControlClient {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(controlUrl + path, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`control ${method} ${path} → ${response.status}: ${text.slice(0, 300)}`);
    return unwrap<T>(text === "" ? undefined : JSON.parse(text));
  };
  return {
    createKey: (input) => call("POST", "/keys", input),
    revokeKey: async (id) => void (await call("POST", `/keys/${encodeURIComponent(id)}/revoke`)),
    rotateKey: (id) => call("POST", `/keys/${encodeURIComponent(id)}/rotate`),
    setResellerStatus: async (uuid, status) =>
      void (await call("POST", `/resellers/${encodeURIComponent(uuid)}/status`, { status })),
    createDomain: (input) => call("POST", "/domains", input),
    addFault: (input) => call("POST", "/faults", input),
    clearFaults: async () => void (await call("DELETE", "/faults")),
    effects: () => call("GET", "/effects"),
    counters: () => call("GET", "/counters"),
    keys: () => call("GET", "/keys"),
    setOperationStatus: async (uuid, status) =>
      void (await call("POST", `/operations/${encodeURIComponent(uuid)}`, { status })),
    reset: async () => void (await call("POST", "/reset")),
  };
}
