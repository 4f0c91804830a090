// J3: third-party conformance. Stoplight Prism runs as a validating proxy (`prism proxy --errors`) in front of
// the emulator server; a scenario touching all 27 operations and every status we can provoke goes through it.
// Prism checks each request and each emulator response against spec/openapi.yaml and, with --errors, turns any
// violation into its own error (problem+json, `sl-violations` header). The assertion: zero violations.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operationList, type OperationId } from "../../generated/operations";
import { startEmulatorServer, type EmulatorServer } from "../../emulator/server";
import type { KeyInfo } from "../../emulator/types";
import { controlClient, type ControlClient } from "../../bench/lib/emulator-control";
import { startHeadRelay, type HeadRelay } from "./head-relay";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SPEC = `${ROOT}spec/openapi.yaml`;
const PRISM = `${ROOT}node_modules/.bin/prism`;

interface Exchange {
  step: string;
  op: OperationId;
  method: string;
  path: string;
  expected: number;
  status: number;
  /** Violations Prism reported: sl-violations header entries and the `validation` list of its own errors. */
  violations: unknown[];
  /** Prism's own error type when it answered instead of (or over) the emulator. */
  prismError: string | null;
  bodySnippet: string;
}

let server: EmulatorServer;
let relay: HeadRelay;
let control: ControlClient;
let prism: ChildProcess | undefined;
let prismLog = "";
let prismUrl = "";
/** Emulator request-log length right after the scenario (before the sanity probes add to it). */
let loggedAfterScenario = -1;
const exchanges: Exchange[] = [];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

async function startPrism(upstream: string): Promise<string> {
  if (!existsSync(SPEC)) throw new Error(`spec missing: ${SPEC} (run npm run generate)`);
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [PRISM, "proxy", SPEC, upstream, "--errors", "--port", String(port), "--host", "127.0.0.1"],
    // Its own process group, so the end of the suite can stop Prism and anything it started at once.
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  prism = child;
  const onData = (chunk: Buffer) => (prismLog += chunk.toString("utf8"));
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const deadline = Date.now() + 60_000;
  while (!prismLog.includes("Prism is listening on")) {
    if (child.exitCode !== null) throw new Error(`prism exited ${child.exitCode}:\n${prismLog.slice(-3000)}`);
    if (Date.now() > deadline) throw new Error(`prism did not start within 60 s:\n${prismLog.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return `http://127.0.0.1:${port}`;
}

/** Stops Prism's whole process group (the pid of a detached child is its group id). */
async function stopPrism(): Promise<void> {
  const child = prism;
  if (child?.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const group = -child.pid;
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(group, name);
    } catch {
      // the group is already gone
    }
  };
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  signal("SIGTERM");
  const timer = setTimeout(() => signal("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
  signal("SIGKILL");
}

interface CallOptions {
  token: string;
  body?: unknown;
  /** Raw body text (sent as-is). */
  raw?: string;
  idempotencyKey?: string | null;
  headers?: Record<string, string>;
  /** HEAD instead of the operation's GET (A7/D1: the spec declares it on every GET path). */
  head?: boolean;
}

let idemSeq = 0;
const newKey = (label: string) => `conf-${label}-${++idemSeq}`;

/** Sends one request through Prism and records what Prism made of it. */
async function call(step: string, op: OperationId, path: string, expected: number, options: CallOptions) {
  const meta = operationList.find((o) => o.operationId === op)!;
  const headers: Record<string, string> = {
    authorization: `Bearer ${options.token}`,
    accept: "application/json",
    ...options.headers,
  };
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers["content-type"] = "application/json";
  if (meta.idempotencyRequired && options.idempotencyKey !== null) {
    headers["idempotency-key"] = options.idempotencyKey ?? newKey(op);
  }
  const method = options.head ? "HEAD" : meta.method;
  const response = await fetch(prismUrl + path, { method, headers, body });
  const text = await response.text();
  const violations: unknown[] = [];
  const header = response.headers.get("sl-violations");
  if (header) {
    try {
      violations.push(...(JSON.parse(header) as unknown[]));
    } catch {
      violations.push({ unparsable_sl_violations: header });
    }
  }
  // E1: the emulator never answers application/problem+json, so any such body is Prism's own error —
  // a VIOLATIONS report, a request it refused, or a FetchError for an upstream body it could not read.
  let prismError: string | null = null;
  if ((response.headers.get("content-type") ?? "").includes("application/problem+json")) {
    prismError = "problem+json";
    try {
      const problem = JSON.parse(text) as { type?: string; title?: string; validation?: unknown[] };
      prismError = (problem.type ?? problem.title ?? prismError).replace(/^.*#/, "");
      if (Array.isArray(problem.validation) && !header) violations.push(...problem.validation);
    } catch {
      // keep the generic marker
    }
  }
  exchanges.push({
    step,
    op,
    method,
    path,
    expected,
    status: response.status,
    violations,
    prismError,
    bodySnippet: text.slice(0, 400),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the checks below probe the body's shape field by field
  let json: any = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, json, headers: response.headers };
}

const MISSING_UUID = "3f1e8c2a-9b7d-4c6e-8a5f-1d2c3b4a5e6f";

async function scenario(test: KeyInfo, live: KeyInfo) {
  const T = test.token;
  const L = live.token;

  // A5: context needs no scope; both environments.
  await call("context (test)", "context.get", "/context", 200, { token: T });
  await call("context (live)", "context.get", "/context", 200, { token: L });
  // E4 401: a well-formed but unknown token (Prism only checks that a bearer is present).
  await call("401 unknown token", "context.get", "/context", 401, {
    token: "rsl_test_AAAAAAAAAAAAAAAAAAAAAAAA." + "A".repeat(64),
  });

  // Domains, H1 pagination with a cursor.
  const page1 = await call("domains.list per_page=1", "domains.list", "/domains?per_page=1", 200, { token: T });
  const domainUuid: string = page1.json?.data?.[0]?.uuid;
  const cursor: string | null = page1.json?.meta?.next_cursor ?? null;
  if (cursor) {
    await call(
      "domains.list next page",
      "domains.list",
      `/domains?per_page=1&cursor=${encodeURIComponent(cursor)}`,
      200,
      { token: T },
    );
  }
  await call("domains.get", "domains.get", `/domains/${domainUuid}`, 200, { token: T });
  await call("404 domains.get unknown uuid", "domains.get", `/domains/${MISSING_UUID}`, 404, { token: T });
  await call("domains.check", "domains.check", "/domains/check", 200, {
    token: T,
    body: { names: ["conformance-free.kz", "example.com"] },
  });

  // D5: renew, replay, conflict.
  const renewKey = newKey("renew");
  const renewed = await call("domains.renew", "domains.renew", `/domains/${domainUuid}/renew`, 202, {
    token: T,
    body: { period: 1 },
    idempotencyKey: renewKey,
  });
  await call("D5 replay domains.renew", "domains.renew", `/domains/${domainUuid}/renew`, 202, {
    token: T,
    body: { period: 1 },
    idempotencyKey: renewKey,
  });
  await call("409 D5 same key, different body", "domains.renew", `/domains/${domainUuid}/renew`, 409, {
    token: T,
    body: { period: 2 },
    idempotencyKey: renewKey,
  });
  // E1: a spec-valid body the API rejects (not a domain name) → 422 with field errors.
  // (A blank Idempotency-Key cannot reach the emulator here: fetch trims header values and Prism then
  // rejects the request itself as missing the required header.)
  await call("422 E1 domains.check invalid name", "domains.check", "/domains/check", 422, {
    token: T,
    body: { names: ["not a domain!"] },
  });
  await call("domains.sync", "domains.sync", `/domains/${domainUuid}/sync`, 202, { token: T });
  await call("domains.setNameservers", "domains.setNameservers", `/domains/${domainUuid}/nameservers`, 202, {
    token: T,
    body: { nameservers: ["ns1.conformance.kz", "ns2.conformance.kz"] },
  });
  await call("domains.getAuthCode", "domains.getAuthCode", `/domains/${domainUuid}/auth-code`, 200, { token: T });

  // Quotes and orders (F5).
  await call("quotes.create", "quotes.create", "/quotes", 200, {
    token: T,
    body: { action: "register", domain: "conformance-new.kz", period: 1 },
  });
  const order = await call("orders.create", "orders.create", "/orders", 201, {
    token: T,
    body: { external_id: "conf-order-1", action: "register", domain: "conformance-new.kz", period: 1 },
  });
  const orderUuid: string = order.json?.data?.uuid;
  await call("orders.list by external_id", "orders.list", "/orders?external_id=conf-order-1", 200, { token: T });
  await call("orders.get", "orders.get", `/orders/${orderUuid}`, 200, { token: T });
  await call("404 orders.get unknown", "orders.get", `/orders/${MISSING_UUID}`, 404, { token: T });

  // F1: operations.
  const operationUuid: string = renewed.json?.data?.uuid;
  await call("operations.list", "operations.list", `/operations?domain_uuid=${domainUuid}`, 200, { token: T });
  await call("operations.get", "operations.get", `/operations/${operationUuid}`, 200, { token: T });

  // B3: finance is live-only.
  await call("balance.get (live)", "balance.get", "/balance", 200, { token: L });
  await call("403 B3 balance.get (test)", "balance.get", "/balance", 403, { token: T });
  await call("ledger.list (live)", "ledger.list", "/ledger", 200, { token: L });
  await call("403 B3 ledger.list (test)", "ledger.list", "/ledger", 403, { token: T });

  // Webhooks: full lifecycle, 204 on delete, 404 afterwards.
  await call("webhooks.list", "webhooks.list", "/webhooks", 200, { token: T });
  const hook = await call("webhooks.create", "webhooks.create", "/webhooks", 201, {
    token: T,
    body: { url: "https://hooks.example/conformance", events: ["domain.renewed"] },
  });
  const hookUuid: string = hook.json?.data?.uuid;
  await call("webhooks.get", "webhooks.get", `/webhooks/${hookUuid}`, 200, { token: T });
  await call("webhooks.update", "webhooks.update", `/webhooks/${hookUuid}`, 200, {
    token: T,
    body: { is_active: false },
  });
  await call("webhooks.test", "webhooks.test", `/webhooks/${hookUuid}/test`, 202, { token: T });
  await call("webhooks.rotateSecret", "webhooks.rotateSecret", `/webhooks/${hookUuid}/rotate-secret`, 200, {
    token: T,
  });
  await call("webhooks.delete", "webhooks.delete", `/webhooks/${hookUuid}`, 204, { token: T });
  await call("404 webhooks.get after delete", "webhooks.get", `/webhooks/${hookUuid}`, 404, { token: T });

  // Tickets (B1): live works, test gets 403 on all four.
  await call("tickets.list (live)", "tickets.list", "/tickets", 200, { token: L });
  const ticket = await call("tickets.create (live)", "tickets.create", "/tickets", 201, {
    token: L,
    body: { subject: "Conformance", message: "Checking the spec." },
  });
  const ticketUuid: string = ticket.json?.data?.uuid;
  await call("tickets.get (live)", "tickets.get", `/tickets/${ticketUuid}`, 200, { token: L });
  await call("tickets.addMessage (live)", "tickets.addMessage", `/tickets/${ticketUuid}/messages`, 201, {
    token: L,
    body: { message: "More detail." },
  });
  await call("403 B1 tickets.list (test)", "tickets.list", "/tickets", 403, { token: T });
  await call("403 B1 tickets.get (test)", "tickets.get", `/tickets/${ticketUuid}`, 403, { token: T });
  await call("403 B1 tickets.create (test)", "tickets.create", "/tickets", 403, {
    token: T,
    body: { subject: "Conformance", message: "Test key." },
  });
  await call("403 B1 tickets.addMessage (test)", "tickets.addMessage", `/tickets/${ticketUuid}/messages`, 403, {
    token: T,
    body: { message: "Test key." },
  });

  // A6: a key without the scope → 403.
  const readOnly = await control.createKey({ environment: "test", scopes: ["domains.read"] });
  const roDomain = await control.createDomain({ token: readOnly.token, name: "conformance-ro.kz" });
  await call("403 A6 renew without domains.write", "domains.renew", `/domains/${roDomain.uuid}/renew`, 403, {
    token: readOnly.token,
    body: { period: 1 },
  });

  // A7: a restricted reseller may read but not POST, not even a check; E4: a revoked key → 401.
  const restricted = await control.createKey({ environment: "test" });
  await control.setResellerStatus(restricted.reseller_uuid, "restricted");
  await call("A7 restricted reseller GET", "context.get", "/context", 200, { token: restricted.token });
  await call("403 A7 restricted reseller POST check", "domains.check", "/domains/check", 403, {
    token: restricted.token,
    body: { names: ["restricted-check.kz"] },
  });
  await control.revokeKey(restricted.public_key_id);
  await call("401 revoked key", "domains.list", "/domains", 401, { token: restricted.token });

  // D9: a webhook-create replay shows the secret again, same status and JSON.
  const hookKey = newKey("hook-replay");
  const hookBody = { url: "https://hooks.example/replay", events: ["domain.renewed", "operation.completed"] };
  await call("webhooks.create (replay source)", "webhooks.create", "/webhooks", 201, {
    token: T,
    body: hookBody,
    idempotencyKey: hookKey,
  });
  await call("D9 webhooks.create replay", "webhooks.create", "/webhooks", 201, {
    token: T,
    body: hookBody,
    idempotencyKey: hookKey,
  });

  // C11: the limiter's own 429 on a key with a limit of 2.
  const tiny = await control.createKey({ environment: "test", rate_limit_per_minute: 2 });
  await call("context (limit 2) #1", "context.get", "/context", 200, { token: tiny.token });
  await call("context (limit 2) #2", "context.get", "/context", 200, { token: tiny.token });
  await call("429 C11 limiter", "context.get", "/context", 429, { token: tiny.token });

  // C12: a proxy's own 429 — HTML, an HTTP-date Retry-After, no envelope — and the limiter's 429 without
  // the header; both must be spec-valid answers, or a contract gate in front of the API breaks them.
  await control.addFault({ method: "GET", path: "/context", kind: "proxy_429_date", times: 1 });
  await call("429 C12 proxy HTML, HTTP-date Retry-After", "context.get", "/context", 429, {
    token: T,
    headers: { accept: "application/json, text/html" },
  });
  await control.addFault({ method: "GET", path: "/domains", kind: "rate_limit_no_header", times: 1 });
  await call("429 C12 no Retry-After", "domains.list", "/domains", 429, { token: T });

  // A7/D1: HEAD on the GET paths — success, errors, the limiter's and a proxy's 429, no body anywhere.
  await call("HEAD context", "context.get", "/context", 200, { token: T, head: true });
  await call("HEAD domains.list per_page=1", "domains.list", "/domains?per_page=1", 200, { token: T, head: true });
  await call("HEAD domains.get", "domains.get", `/domains/${domainUuid}`, 200, { token: T, head: true });
  await call("HEAD 404 domains.get unknown", "domains.get", `/domains/${MISSING_UUID}`, 404, { token: T, head: true });
  await call("HEAD operations.get", "operations.get", `/operations/${operationUuid}`, 200, { token: T, head: true });
  await call("HEAD 403 B3 balance.get (test)", "balance.get", "/balance", 403, { token: T, head: true });
  await call("HEAD ledger.list (live)", "ledger.list", "/ledger", 200, { token: L, head: true });
  await call("HEAD 401 unknown token", "context.get", "/context", 401, {
    token: "rsl_test_AAAAAAAAAAAAAAAAAAAAAAAA." + "A".repeat(64),
    head: true,
  });
  await call("HEAD 429 C11 limiter", "context.get", "/context", 429, { token: tiny.token, head: true });
  await control.addFault({ method: "GET", path: "/webhooks", kind: "proxy_429_date", times: 1 });
  await call("HEAD 429 C12 proxy", "webhooks.list", "/webhooks", 429, { token: T, head: true });

  // 5xx (E4): 503 before the API, 500 after a committed write, a proxy's HTML 502 (E5).
  // (A9's malformed-UUID 500 cannot pass Prism: the spec declares path UUIDs `format: uuid`, so Prism
  // refuses the request itself; test/emulator covers A9 in-process.)
  await control.addFault({ method: "GET", path: "/domains/{domainUuid}", kind: "error_503_before", times: 1 });
  await call("503 error_503_before", "domains.get", `/domains/${domainUuid}`, 503, { token: T });
  await control.addFault({ method: "POST", path: "/quotes", kind: "error_500_after", times: 1 });
  await call("500 error_500_after", "quotes.create", "/quotes", 500, {
    token: T,
    body: { action: "renew", domain: "example.kz", period: 2 },
  });
  await control.addFault({ method: "GET", path: "/webhooks", kind: "proxy_502_html", times: 1 });
  await call("502 proxy_502_html (E5)", "webhooks.list", "/webhooks", 502, {
    token: T,
    headers: { accept: "application/json, text/html" },
  });
  await control.clearFaults();

  // E6: language headers are accepted and change only the message.
  await call("E6 X-Language kk", "domains.get", `/domains/${MISSING_UUID}`, 404, {
    token: T,
    headers: { "x-language": "kk" },
  });
  await call("E6 Accept-Language ru-RU", "context.get", "/context", 200, {
    token: T,
    headers: { "accept-language": "ru-RU" },
  });
}

describe("J3: Prism proxy conformance (spec/openapi.yaml ↔ emulator)", () => {
  beforeAll(async () => {
    server = await startEmulatorServer({ withDefaultKeys: true });
    control = controlClient(server.controlUrl);
    const base = new URL(server.baseUrl);
    relay = await startHeadRelay(base.origin);
    prismUrl = await startPrism(relay.url + base.pathname);
    const keys = server.emulator.control.keys();
    await scenario(
      keys.find((k) => k.environment === "test")!,
      keys.find((k) => k.environment === "live")!,
    );
    loggedAfterScenario = server.emulator.control.requests().filter((r) => !r.path.startsWith("/_emulator")).length;
  }, 120_000);

  afterAll(async () => {
    await stopPrism();
    await relay?.close();
    await server?.close();
  });

  it("J3: zero spec violations over the whole scenario (requests and responses)", () => {
    const report = exchanges
      .filter((x) => x.violations.length > 0 || x.prismError !== null)
      .map((x) => ({
        step: x.step,
        op: x.op,
        request: `${x.method} ${x.path}`,
        status: x.status,
        prismError: x.prismError,
        violations: x.violations,
      }));
    expect(report, JSON.stringify(report, null, 2)).toEqual([]);
  });

  it("J3 sanity: the harness does flag a broken response (truncated_json, empty_body) — this check can fail", async () => {
    const before = exchanges.length;
    const keys = server.emulator.control.keys();
    const test = keys.find((k) => k.environment === "test")!;
    for (const kind of ["truncated_json", "empty_body"] as const) {
      await control.addFault({ method: "GET", path: "/context", kind, times: 1 });
      await call(`sanity ${kind}`, "context.get", "/context", 200, { token: test.token });
    }
    const sanity = exchanges.splice(before);
    for (const x of sanity) {
      expect(x.violations.length > 0 || x.prismError !== null, `${x.step}: ${x.status} ${x.bodySnippet}`).toBe(true);
    }
  });

  it("every step reached the emulator (Prism forwarded it rather than answering itself)", () => {
    expect(exchanges.filter((x) => x.prismError !== null).map((x) => x.step)).toEqual([]);
    expect(loggedAfterScenario).toBe(exchanges.length);
  });

  it("each step got the status it was designed to provoke", () => {
    const wrong = exchanges
      .filter((x) => x.status !== x.expected)
      .map((x) => `${x.step}: ${x.method} ${x.path} expected ${x.expected}, got ${x.status} ${x.bodySnippet}`);
    expect(wrong).toEqual([]);
  });

  it("J3: the HEAD relay changed nothing but the Content-Type of HEAD answers (Prism 5.14 parses it as JSON)", () => {
    const heads = exchanges.filter((x) => x.method === "HEAD");
    expect(heads.length).toBeGreaterThanOrEqual(10);
    expect(relay.dropped.length).toBeGreaterThan(0);
    expect(relay.dropped.length).toBeLessThanOrEqual(heads.length);
    for (const d of relay.dropped) expect(heads.some((x) => d.path.endsWith(x.path))).toBe(true);
    // Every HEAD got its GET's status through Prism, success and errors alike.
    expect(new Set(heads.map((x) => x.status))).toEqual(new Set([200, 401, 403, 404, 429]));
  });

  it("the scenario touched all 27 operations", () => {
    const touched = new Set(exchanges.map((x) => x.op));
    const missing = operationList.map((o) => o.operationId).filter((id) => !touched.has(id));
    expect(operationList).toHaveLength(27);
    expect(missing).toEqual([]);
  });

  it("the scenario provoked 200/201/202/204/401/403/404/409/422/429/500/502/503", () => {
    const seen = new Set(exchanges.filter((x) => x.status === x.expected).map((x) => x.status));
    for (const status of [200, 201, 202, 204, 401, 403, 404, 409, 422, 429, 500, 502, 503]) {
      expect(seen, `status ${status}`).toContain(status);
    }
  });
});
