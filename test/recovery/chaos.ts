/**
 * The crash/soak engine shared by test/recovery/crash.test.ts and bench/soak.ts:
 * - an emulator behind a RECORDING handler on a real loopback port (in the parent, so it outlives
 *   every client process): each API request's arrival time, Idempotency-Key, SHA-256 of the exact
 *   body bytes, X-Request-ID, status, Retry-After and response time;
 * - a seeded plan of commands (renews, orders with external_id, nameserver changes);
 * - spawning the client child (crash-child.ts) and killing it with SIGKILL;
 * - the invariants: one execution per command, no second order per external_id, every command
 *   recorded and terminal or needs_manual_check, never a changed key or body, no request before a
 *   Retry-After elapsed, no secret in the journal file.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createEmulator } from "../../emulator/index";
import { serveEmulator } from "../../emulator/server";
import type { Emulator, EmulatorOptions, FaultKind, SocketFault } from "../../emulator/types";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import { TERMINAL_STATES } from "../../journal";
import { parseRetryAfter } from "../../pacing";

const ROOT = new URL("../../", import.meta.url).pathname;
const CHILD = join(ROOT, "test/recovery/crash-child.ts");
/**
 * `node --import tsx` rather than node_modules/.bin/tsx: the tsx CLI runs the script in a CHILD
 * node process and cannot forward SIGKILL, so killing its pid would leave the real client running.
 */
const NODE_ARGS = ["--import", "tsx"];

/** mulberry32: deterministic uniform [0, 1) — the same generator the client tests use. */
export { seeded } from "../client/harness";

const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

interface Recorded {
  /** publicKeyId from the bearer token (never the secret). */
  apiKeyId: string | null;
  arrivedAt: number;
  respondedAt: number | null;
  method: string;
  path: string;
  key: string | null;
  bodyHash: string | null;
  requestId: string | null;
  status: number | null;
  retryAfter: string | null;
  /** The answer's X-RateLimit-Remaining (C10), as sent. */
  remaining: string | null;
  socketFault: SocketFault["kind"] | null;
  fault: FaultKind | null;
  /** The emulator's limiter counted it (C5, C6): only these open and fill a server window. */
  counted: boolean;
}

export interface RecordingEmulator {
  emulator: Emulator;
  baseUrl: string;
  log: Recorded[];
  /** Called for every request that the emulator answered with a hang or a reset (fault in flight). */
  onSocketFault?: (r: Recorded) => void;
  /** Called when an API request arrives, before the emulator sees it. */
  onArrive?: (r: Recorded) => void;
  close(): Promise<void>;
}

export async function startRecordingEmulator(options: EmulatorOptions): Promise<RecordingEmulator> {
  const emulator = createEmulator(options);
  const log: Recorded[] = [];
  const rec: RecordingEmulator = { emulator, baseUrl: "", log, close: async () => undefined };
  const served = await serveEmulator({
    async handle(request, info) {
      const url = new URL(request.url);
      const body = request.body === null ? null : new Uint8Array(await request.clone().arrayBuffer());
      const bearer = /^Bearer rsl_(?:test|live)_([A-Za-z0-9]{24})\./.exec(request.headers.get("authorization") ?? "");
      const entry: Recorded = {
        apiKeyId: bearer ? bearer[1] : null,
        arrivedAt: Date.now(),
        respondedAt: null,
        method: request.method,
        path: url.pathname + url.search,
        key: request.headers.get("idempotency-key"),
        bodyHash: body && body.byteLength > 0 ? sha256(body) : null,
        requestId: request.headers.get("x-request-id"),
        status: null,
        retryAfter: null,
        remaining: null,
        socketFault: null,
        fault: null,
        counted: false,
      };
      const isApi = url.pathname.startsWith("/api/");
      if (isApi) {
        log.push(entry);
        rec.onArrive?.(entry);
      }
      const before = emulator.control.requests().length;
      const result = await emulator.handle(request, info);
      const logged = emulator.control.requests();
      if (logged.length > before) {
        entry.fault = logged[logged.length - 1].fault;
        entry.counted = logged[logged.length - 1].counted;
      }
      entry.respondedAt = Date.now();
      if (result instanceof Response) {
        entry.status = result.status;
        entry.retryAfter = result.headers.get("retry-after");
        entry.remaining = result.headers.get("x-ratelimit-remaining");
        if (/\/webhooks(\/[^/]+\/rotate-secret)?$/.test(url.pathname) && request.method === "POST") {
          // Remember every signing_secret the emulator hands out: none may reach the journal (H2).
          const text = await result.clone().text();
          for (const m of text.matchAll(/"signing_secret"\s*:\s*"([^"]+)"/g)) issuedWebhookSecrets.add(m[1]);
        }
      } else {
        entry.socketFault = result.kind;
        if (isApi) rec.onSocketFault?.(entry);
      }
      return result;
    },
  });
  rec.baseUrl = served.baseUrl;
  rec.close = async () => {
    await served.close();
    await emulator.close();
  };
  return rec;
}

export type PlanItem =
  | { key: string; op: "renew"; domainUuid: string; body: { period: number } }
  | { key: string; op: "order"; body: { external_id: string; action: "register"; domain: string; period: number } }
  | { key: string; op: "ns"; domainUuid: string; body: { nameservers: string[] } }
  | { key: string; op: "webhook"; body: { url: string; events: "domain.renewed"[] } };

/** A seeded mix of renews (one per domain: I6 lock), orders (unique external_id) and nameserver changes. */
export function buildPlan(
  emulator: Emulator,
  token: string,
  count: number,
  random: () => number,
  tag: string,
): PlanItem[] {
  const plan: PlanItem[] = [];
  // Each reseller starts with 1,000,000.00 KZT; a .com.kz year costs 3,500.00. Keep the paid share
  // (renews + orders) within ~800,000 so no command is refused for the balance.
  const paid = Math.min(0.66, 800_000 / (3500 * Math.max(1, count)));
  for (let i = 0; i < count; i++) {
    const r = random();
    const key = `${tag}-cmd-${i}`;
    if (r > 0.98) {
      // H2: a webhook's signing_secret comes back in the response; it must never reach the journal.
      plan.push({ key, op: "webhook", body: { url: `https://hooks.example/${tag}/${i}`, events: ["domain.renewed"] } });
    } else if (r < paid / 2) {
      const d = emulator.control.createDomain({ token, name: `${tag}-r${i}.com.kz` });
      plan.push({ key, op: "renew", domainUuid: d.uuid, body: { period: 1 } });
    } else if (r < paid) {
      plan.push({
        key,
        op: "order",
        body: { external_id: `${tag}-ext-${i}`, action: "register", domain: `${tag}-o${i}.com.kz`, period: 1 },
      });
    } else {
      const d = emulator.control.createDomain({ token, name: `${tag}-n${i}.kz` });
      plan.push({
        key,
        op: "ns",
        domainUuid: d.uuid,
        body: { nameservers: [`ns1.${tag}${i}.kz`, `ns2.${tag}${i}.kz`] },
      });
    }
  }
  return plan;
}

const pathOf = (p: PlanItem) =>
  p.op === "order"
    ? "/orders"
    : p.op === "webhook"
      ? "/webhooks"
      : p.op === "renew"
        ? `/domains/${p.domainUuid}/renew`
        : `/domains/${p.domainUuid}/nameservers`;

export interface ChildConfig {
  baseUrl: string;
  token: string;
  journal: string;
  plan: string;
  log: string;
  windowMs: number;
  limit: number;
  workers: number;
  timeoutMs: number;
}

export interface ChildRun {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
  kill: () => void;
}

/** Spawns the client process (crash-child.ts) with tsx. The token goes through the environment, not argv. */
export function spawnChild(cfg: ChildConfig): ChildRun {
  const { token, ...rest } = cfg;
  const child = spawn(process.execPath, [...NODE_ARGS, CHILD, JSON.stringify(rest)], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, RESELLER_TOKEN: token },
  });
  let out = "";
  const keep = (b: Buffer) => (out = (out + b.toString("utf8")).slice(-20_000));
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    exited,
    output: () => out,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}

export interface Invariants {
  planned: number;
  recorded: number;
  /** Planned commands with no journal record (lost). */
  lost: string[];
  /** Recorded commands neither terminal nor needs_manual_check. */
  open: { key: string; state: string }[];
  byState: Record<string, number>;
  effects: number;
  /** Idempotency keys with more than one effect. */
  duplicateEffects: string[];
  /** Effects whose key is not a planned command's (a second command with a new key). */
  foreignEffects: number;
  /** external_ids with more than one order on the server. */
  duplicateOrders: string[];
  /** Keys whose requests carried more than one (method, path, body) or bytes other than planned. */
  changedKeyOrBytes: string[];
  /** Writes sent without a planned key (a key change would show up here). */
  unplannedWrites: number;
  /** Succeeded/completed commands with no effect (a lie in the journal). */
  terminalWithoutEffect: string[];
  requests: number;
  count429: number;
  /** Requests of the same API key that the client dispatched after receiving a 429 and before its Retry-After ended. */
  earlyAfter429: { requestId: string | null; early_ms: number }[];
  /** Requests of the same command (Idempotency-Key) that arrived before a 429's Retry-After had elapsed. */
  earlySameKey: number;
  secretsInJournal: string[];
}

interface DispatchLine {
  e: "send" | "recv" | "fail";
  rid: string | null;
  t: number;
  status?: number;
  ra?: string | null;
  pid?: number;
}

function readDispatchLog(file: string): DispatchLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => {
      try {
        return JSON.parse(l) as DispatchLine;
      } catch {
        return null; // a line cut by SIGKILL
      }
    })
    .filter((l): l is DispatchLine => l !== null);
}

export async function checkInvariants(input: {
  rec: RecordingEmulator;
  plan: PlanItem[];
  journalFile: string;
  apiKeyId: string;
  token: string;
  dispatchLog: string;
}): Promise<Invariants> {
  const { plan } = input;
  // Only this key's traffic: one emulator may serve several runs (C2: one counter per key).
  const rec = { ...input.rec, log: input.rec.log.filter((r) => r.apiKeyId === input.apiKeyId) };
  const journal = createSqliteJournal({ filename: input.journalFile });
  const byState: Record<string, number> = {};
  const lost: string[] = [];
  const open: { key: string; state: string }[] = [];
  const states = new Map<string, string>();
  for (const p of plan) {
    const r = await journal.findByIdempotencyKey(input.apiKeyId, p.key);
    if (!r) {
      lost.push(p.key);
      continue;
    }
    states.set(p.key, r.state);
    byState[r.state] = (byState[r.state] ?? 0) + 1;
    if (!TERMINAL_STATES.includes(r.state) && r.state !== "needs_manual_check")
      open.push({ key: p.key, state: r.state });
  }
  await journal.close();

  const planned = new Map(plan.map((p) => [p.key, p]));
  const effects = rec.emulator.control.effects().filter((e) => e.api_key_id === input.apiKeyId);
  const perKey = new Map<string, number>();
  let foreignEffects = 0;
  for (const e of effects) {
    if (!e.idempotency_key || !planned.has(e.idempotency_key)) foreignEffects += 1;
    else perKey.set(e.idempotency_key, (perKey.get(e.idempotency_key) ?? 0) + 1);
  }
  const duplicateEffects = [...perKey].filter(([, n]) => n > 1).map(([k]) => k);
  const terminalWithoutEffect = [...states]
    .filter(([k, s]) => (s === "succeeded" || s === "completed" || s === "failed") && !perKey.has(k))
    .map(([k]) => k);

  // Orders per external_id, as the server sees them (GET /orders, every page).
  const orders = new Map<string, number>();
  let url: string | null = `${rec.baseUrl}/orders?per_page=100`;
  while (url) {
    const res = await rec.emulator.fetch(url, { headers: { authorization: `Bearer ${input.token}` } });
    const body = (await res.json()) as { data: { external_id: string }[]; meta: { next_cursor: string | null } };
    for (const o of body.data) orders.set(o.external_id, (orders.get(o.external_id) ?? 0) + 1);
    url = body.meta.next_cursor
      ? `${rec.baseUrl}/orders?per_page=100&cursor=${encodeURIComponent(body.meta.next_cursor)}`
      : null;
  }
  const duplicateOrders = [...orders].filter(([, n]) => n > 1).map(([k]) => k);

  // D3/D4: every request of one key carried the same method, path and exact bytes — the planned ones.
  const writes = rec.log.filter((r) => r.method !== "GET" && r.method !== "HEAD");
  const seen = new Map<string, Set<string>>();
  let unplannedWrites = 0;
  for (const w of writes) {
    if (!w.key || !planned.has(w.key)) {
      unplannedWrites += 1;
      continue;
    }
    const set = seen.get(w.key) ?? new Set<string>();
    set.add(`${w.method} ${w.path} ${w.bodyHash}`);
    seen.set(w.key, set);
  }
  const changedKeyOrBytes: string[] = [];
  for (const [key, set] of seen) {
    const p = planned.get(key)!;
    const expected = `${p.op === "ns" ? "PUT" : "POST"} /api/reseller/v1${pathOf(p)} ${sha256(JSON.stringify(p.body))}`;
    if (set.size !== 1 || !set.has(expected)) changedKeyOrBytes.push(key);
  }

  // C12: 429s and what followed. Same command: strictly by server arrival. Whole key: by the
  // client's own dispatch time (requests already in flight when the 429 came back are not "sent after").
  const limited = rec.log.filter((r) => r.status === 429 && r.respondedAt !== null);
  const deadlineOf = (r: Recorded) => {
    const parsed = parseRetryAfter(r.retryAfter, r.respondedAt!);
    return parsed ? r.respondedAt! + parsed.ms : null;
  };
  let earlySameKey = 0;
  for (const r of limited) {
    const until = deadlineOf(r);
    if (until === null || !r.key) continue;
    earlySameKey += rec.log.filter(
      (x) => x.key === r.key && x.arrivedAt > r.respondedAt! && x.arrivedAt < until,
    ).length;
  }
  const dispatch = readDispatchLog(input.dispatchLog);
  const sends = dispatch.filter((d) => d.e === "send");
  const received429 = dispatch.filter((d) => d.e === "recv" && d.status === 429);
  const earlyAfter429: { requestId: string | null; early_ms: number }[] = [];
  for (const r of received429) {
    const parsed = parseRetryAfter(r.ra ?? null, r.t);
    if (!parsed) continue;
    const until = r.t + parsed.ms;
    for (const s of sends)
      if (s.t > r.t && s.t < until) earlyAfter429.push({ requestId: s.rid, early_ms: until - s.t });
  }
  // Across a restart the new process cannot know the old one's 429 from memory: check the server side too.
  for (const r of limited) {
    const until = deadlineOf(r);
    if (until === null) continue;
    const recv = dispatch.find((d) => d.e === "recv" && d.rid === r.requestId);
    const knownAt = recv?.t ?? r.respondedAt! + 50;
    for (const x of rec.log) {
      if (x.arrivedAt <= knownAt || x.arrivedAt >= until) continue;
      const sent = dispatch.find((d) => d.e === "send" && d.rid === x.requestId);
      if (sent && sent.t <= knownAt) continue; // already in flight
      if (!earlyAfter429.some((e) => e.requestId === x.requestId))
        earlyAfter429.push({ requestId: x.requestId, early_ms: until - x.arrivedAt });
    }
  }

  return {
    planned: plan.length,
    recorded: plan.length - lost.length,
    lost,
    open,
    byState,
    effects: effects.length,
    duplicateEffects,
    foreignEffects,
    duplicateOrders,
    changedKeyOrBytes,
    unplannedWrites,
    terminalWithoutEffect,
    requests: rec.log.length,
    count429: limited.length,
    earlyAfter429,
    earlySameKey,
    secretsInJournal: scanSecrets(
      input.journalFile,
      rec.emulator,
      input.token,
      await issuedAuthCodes(rec.emulator, input.token),
    ),
  };
}

/** H2/A4: the raw SQLite file and its WAL must contain no token secret, signing_secret or auth_code. */
function scanSecrets(journalFile: string, emulator: Emulator, token: string, authCodes: string[] = []): string[] {
  const secrets = new Set<string>([token, token.split(".")[1] ?? token]);
  for (const k of emulator.control.keys()) {
    secrets.add(k.token);
    const s = k.token.split(".")[1];
    if (s) secrets.add(s);
  }
  for (const a of authCodes) secrets.add(a);
  for (const w of issuedWebhookSecrets) secrets.add(w);
  const found: string[] = [];
  for (const file of [journalFile, `${journalFile}-wal`, `${journalFile}-shm`]) {
    if (!existsSync(file)) continue;
    const bytes = readFileSync(file).toString("latin1");
    for (const s of secrets)
      if (s.length >= 8 && bytes.includes(s)) found.push(`${file.split("/").pop()}: ${s.slice(0, 6)}…`);
  }
  return found;
}

/** signing_secrets the tests saw the emulator issue (webhooks.create/rotate responses). */
const issuedWebhookSecrets = new Set<string>();

/**
 * Every auth_code the emulator holds for the reseller's domains, read in-process (not through the
 * recording port) with a separate key of the same reseller, so the client's quota is untouched.
 */
async function issuedAuthCodes(emulator: Emulator, token: string): Promise<string[]> {
  const owner = emulator.control.keys().find((k) => k.token === token);
  if (!owner) return [];
  const reader = emulator.control.createKey({
    environment: owner.environment,
    reseller_uuid: owner.reseller_uuid,
    rate_limit_per_minute: 10_000,
  });
  const codes: string[] = [];
  for (const d of emulator.control.domains(token)) {
    const res = await emulator.fetch(`http://127.0.0.1/api/reseller/v1/domains/${d.uuid}/auth-code`, {
      headers: { authorization: `Bearer ${reader.token}` },
    });
    if (res.status !== 200) continue;
    const body = (await res.json()) as { data?: { auth_code?: string } };
    if (body.data?.auth_code) codes.push(body.data.auth_code);
  }
  return codes;
}

export function writePlan(file: string, plan: PlanItem[]): void {
  writeFileSync(file, JSON.stringify(plan));
}

export function invariantFailures(inv: Invariants): string[] {
  const f: string[] = [];
  if (inv.lost.length) f.push(`lost commands: ${inv.lost.length}`);
  if (inv.open.length)
    f.push(
      `open commands: ${inv.open.length} (${inv.open
        .slice(0, 3)
        .map((o) => `${o.key}:${o.state}`)
        .join(", ")})`,
    );
  if (inv.duplicateEffects.length) f.push(`duplicate effects: ${inv.duplicateEffects.join(", ")}`);
  if (inv.foreignEffects) f.push(`effects under unplanned keys: ${inv.foreignEffects}`);
  if (inv.duplicateOrders.length) f.push(`duplicate orders: ${inv.duplicateOrders.join(", ")}`);
  if (inv.changedKeyOrBytes.length) f.push(`key/bytes changed: ${inv.changedKeyOrBytes.join(", ")}`);
  if (inv.unplannedWrites) f.push(`writes without a planned key: ${inv.unplannedWrites}`);
  if (inv.terminalWithoutEffect.length) f.push(`terminal without effect: ${inv.terminalWithoutEffect.join(", ")}`);
  if (inv.earlyAfter429.length) f.push(`requests before Retry-After elapsed: ${inv.earlyAfter429.length}`);
  if (inv.earlySameKey) f.push(`same-command requests before Retry-After: ${inv.earlySameKey}`);
  if (inv.secretsInJournal.length) f.push(`secrets in journal: ${inv.secretsInJournal.join(", ")}`);
  return f;
}
