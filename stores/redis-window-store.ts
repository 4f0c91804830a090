/**
 * WindowStore in Redis (I1): the fixed-window counter, the even-spacing cursor and the shared
 * "paused until" of each API key live in one Redis hash, and every decision is one atomic Lua
 * script (a port of the in-process memory store's transitions), so N processes on one key together
 * stay inside the server's window (C3: one fixed window per key; C8: spread evenly; C12: one pause
 * for the whole key after a 429).
 *
 * When Redis fails (error or timeout) the store fails over to local pacing at `share` of the limit
 * and says so through onEvent (`store-failover`, then `store-recovered`); it never stops granting
 * silently and never exceeds the limit. When Redis answers but has lost a key's window (a restart
 * without persistence, an eviction), the sends counted before are invisible to the fresh record:
 * the key is paused for one window and `store-state-lost` reported (I1, C3).
 */
import type { Redis, RedisOptions } from "ioredis";
import { loadPeer } from "./optional-peer";
import { createRedactor, InvalidOptionsError, isResellerClientError, quietly, StoreUnavailableError } from "../core";
import {
  applyConfirm,
  applyObserve,
  applyPause,
  applyRefund,
  applyReserve,
  emptyRecord,
  straddlerWindowId,
  toSnapshot,
  type WindowRecord,
} from "../pacing";
import type { ObserveParams, ReserveDecision, ReserveParams, WindowSnapshot, WindowStore } from "../pacing";
import { CONFIRM_LUA, OBSERVE_LUA, PAUSE_LUA, PEEK_LUA, REFUND_LUA, RESERVE_LUA } from "./redis-window-lua";
import { checkOptionNames, type OptionNames } from "./store-options";

/**
 * `store-failover`'s `error` is a StoreUnavailableError whose message names the failure (refused
 * credentials, connection refused, a timeout) and never holds the password; its `cause`, when there
 * is one, is a sanitized copy of the driver's error (no `command.args`, where ioredis keeps the AUTH password).
 */
export type RedisWindowStoreEvent =
  | {
      type: "store-failover";
      error: unknown;
      /** The error's message (the failure and its fix), as a string: a logger that drops an Error's fields keeps it. */
      message: string;
    }
  | { type: "store-recovered" }
  | { type: "store-state-lost"; key: string };

export interface RedisWindowStoreOptions {
  /** A connected client (not closed by close()), or options / a redis:// URL for one the store owns. */
  redis: Redis | RedisOptions | string;
  /** Prefix of every key this store writes. Default "reseller-api:". */
  keyPrefix?: string | undefined;
  failover?:
    | {
        /**
         * Fraction of the limit one process may use while Redis is unreachable: 1/N for N processes
         * sharing the key (default 1/4). Each process then sends at most floor(limit × share) requests
         * in any window-length interval, so N of them stay within the limit.
         */
        share?: number | undefined;
        /** Give up on a Redis command after this many ms and pace locally (default 1000). */
        commandTimeoutMs?: number | undefined;
        /** While failed over, try Redis again at most this often (default 1000 ms, wall clock). */
        retryIntervalMs?: number | undefined;
      }
    | undefined;
  /** Extra lifetime of a key after every time in it has passed (default 1 h). */
  ttlGraceMs?: number | undefined;
  onEvent?: ((event: RedisWindowStoreEvent) => unknown) | undefined;
}

type Reply = string[];
interface ScriptClient extends Redis {
  rwsReserve(h: string, s: string, ...args: (string | number)[]): Promise<Reply>;
  rwsRefund(h: string, s: string, ...args: (string | number)[]): Promise<Reply>;
  rwsConfirm(h: string, s: string, ...args: (string | number)[]): Promise<Reply>;
  rwsObserve(h: string, s: string, ...args: (string | number)[]): Promise<Reply>;
  rwsPause(h: string, s: string, ...args: (string | number)[]): Promise<Reply>;
  rwsPeek(h: string, s: string): Promise<Reply>;
}

const num = (s: string | undefined) => (s === undefined || s === "" ? null : Number(s));

/** The reply of every script → the same WindowRecord the memory store keeps. */
function parseReply(r: Reply): { flag: number; at: number | null; record: WindowRecord } {
  const [flag, at, open, seq, ws, we, count, limit, wms, gms, next, paused, ord, firstOrd, trusted, egms] = r;
  const [peakUsed, peakAt, peakSentAt, priorUsed, priorAt, priorSentAt, straddleUntil, straddleRoom, limitLearned] =
    r.slice(16);
  return {
    flag: Number(flag),
    at: num(at),
    record: {
      seq: num(seq) ?? 0,
      open: open === "1",
      windowStart: num(ws) ?? 0,
      windowEnd: num(we),
      count: num(count) ?? 0,
      limit: num(limit) ?? 0,
      limitLearned: limitLearned === "1",
      windowMs: num(wms) ?? 0,
      guardMs: num(gms) ?? 0,
      endGuardMs: num(egms) ?? num(gms) ?? 0,
      nextSlotAt: num(next) ?? 0,
      pausedUntil: num(paused) ?? 0,
      ord: num(ord) ?? 0,
      firstOrd: num(firstOrd) ?? 0,
      trusted: trusted === "1",
      peakUsed: num(peakUsed) ?? -1,
      peakAt: num(peakAt) ?? 0,
      peakSentAt: num(peakSentAt) ?? 0,
      priorUsed: num(priorUsed) ?? -1,
      priorAt: num(priorAt) ?? 0,
      priorSentAt: num(priorSentAt) ?? 0,
      straddleUntil: num(straddleUntil) ?? 0,
      straddleRoom: num(straddleRoom) ?? 0,
    },
  };
}

const OPTION_NAMES: OptionNames<RedisWindowStoreOptions> = {
  redis: true,
  keyPrefix: true,
  failover: true,
  ttlGraceMs: true,
  onEvent: true,
};
const FAILOVER_NAMES: OptionNames<NonNullable<RedisWindowStoreOptions["failover"]>> = {
  share: true,
  commandTimeoutMs: true,
  retryIntervalMs: true,
};

/**
 * A Redis failure as the package's error, safe to log (I7): ioredis's own errors carry the command
 * they failed on, and for AUTH its `args` are the password. The message names the failure and the
 * fix; the cause keeps only the driver error's name, code and redacted message.
 */
function redisFailure(error: unknown, client: Redis): StoreUnavailableError {
  if (isResellerClientError(error) && (error as { cause?: unknown }).cause === undefined) {
    return error as StoreUnavailableError;
  }
  const { host, port, password, username } = client.options ?? {};
  const where = `Redis at ${host ?? "127.0.0.1"}:${port ?? 6379}`;
  const secrets = [password, username].filter((s): s is string => typeof s === "string" && s.length >= 4);
  const redactor = createRedactor(secrets);
  const clean = (text: string) => {
    let out = text;
    for (const s of secrets) out = out.split(s).join("[REDACTED]");
    return redactor.text(out);
  };
  const raw = error instanceof Error ? error.message : String(error);
  const detail = clean(raw.split("\n")[0] ?? "");
  const nodeCode = (error as { code?: unknown } | null)?.code;
  const reply = /^([A-Z][A-Z_-]+)\b/.exec(raw)?.[1];
  const code = typeof nodeCode === "string" ? nodeCode : reply;
  let message: string;
  if (reply === "WRONGPASS" || /invalid password|invalid username-password/i.test(raw)) {
    message = `${where} refused this client's credentials (${reply ?? "AUTH"}): check the password (and user name) in the redis URL or options.`;
  } else if (reply === "NOAUTH") {
    message = `${where} requires a password (NOAUTH) and none was accepted: put it in the URL (redis://:password@host:6379) or in the options' password.`;
  } else {
    message = `${where} failed${code ? ` (${code})` : ""}: ${detail}`;
  }
  const cause = new Error(detail);
  cause.name = error instanceof Error ? error.name : "Error";
  cause.stack = `${cause.name}: ${detail}`;
  if (code !== undefined) Object.assign(cause, { code });
  return new StoreUnavailableError(`${message} Pacing locally until Redis answers again.`, { cause });
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms.`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * A window store in Redis, so every process using one API key draws from one rate-limit window
 * (I1: pace across instances through a shared store). Pass it as the client's `pacing.store`. Needs
 * the optional peer `ioredis` (`npm install ioredis`); throws MissingDependencyError without it.
 */
export function createRedisWindowStore(options: RedisWindowStoreOptions): WindowStore {
  if (options === null || typeof options !== "object" || !options.redis) {
    throw new InvalidOptionsError(
      'createRedisWindowStore() needs { redis: "redis://127.0.0.1:6379" } (a URL, Redis options or a client).',
      "redis",
    );
  }
  checkOptionNames(options, OPTION_NAMES, "createRedisWindowStore()");
  checkOptionNames(options.failover, FAILOVER_NAMES, "createRedisWindowStore()", "failover.");
  const prefix = options.keyPrefix ?? "reseller-api:";
  const share = options.failover?.share ?? 1 / 4;
  if (!(share > 0 && share <= 1)) {
    throw new InvalidOptionsError(
      "failover.share must be in (0, 1]: this process's share of the limit while Redis is away (1/N for N processes).",
      "failover.share",
    );
  }
  const timeoutMs = options.failover?.commandTimeoutMs ?? 1000;
  const retryMs = options.failover?.retryIntervalMs ?? 1000;
  const grace = options.ttlGraceMs ?? 3_600_000;
  // The user's handler observes the store; a throw or a rejection of it must not change the pacing (I7).
  const onEvent = (event: RedisWindowStoreEvent): void => {
    try {
      quietly(options.onEvent?.(event));
    } catch {
      // see above
    }
  };

  const driver = loadPeer("ioredis", "reseller-api/stores/redis") as typeof Redis & { default?: typeof Redis };
  const RedisClient = driver.default ?? driver;
  const owns = !(options.redis instanceof RedisClient);
  const redis = (
    options.redis instanceof RedisClient
      ? options.redis
      : new RedisClient({
          // Fail fast while disconnected: a queued reserve would stall the pacer instead of failing over.
          enableOfflineQueue: false,
          maxRetriesPerRequest: 0,
          lazyConnect: true,
          retryStrategy: (times) => Math.min(50 * times, 1000),
          ...(typeof options.redis === "string" ? { ...parseUrl(options.redis) } : options.redis),
        })
  ) as ScriptClient;
  if (owns) redis.on("error", () => undefined); // surfaced through failover events instead
  const define = (name: string, lua: string) => redis.defineCommand(name, { numberOfKeys: 2, lua });
  define("rwsReserve", RESERVE_LUA);
  define("rwsRefund", REFUND_LUA);
  define("rwsConfirm", CONFIRM_LUA);
  define("rwsObserve", OBSERVE_LUA);
  define("rwsPause", PAUSE_LUA);
  define("rwsPeek", PEEK_LUA);

  let everReady = false;
  let failedOver = false;
  let lastTry = 0;
  /** Failover episode: local windowIds are "local<episode>:<n>", so they never match Redis or older ids. */
  let episode = 0;
  let localPrefix = "local0:";
  /** Local records while failed over. */
  let local = new Map<string, WindowRecord>();
  /** Keys whose first local reserve already blocked a window (see localRecord). */
  let blocked = new Set<string>();
  /** Latest locally granted sendAt per key: Redis is paused for a window after it on recovery. */
  let lastLocalSend = new Map<string, { at: number; span: number }>();
  /** The last record Redis returned per key (to inherit a 429 pause on failover). */
  const lastKnown = new Map<string, WindowRecord>();
  /** When each key's record was last returned (wall clock): its keys cannot have expired since. */
  const lastSeenAt = new Map<string, number>();
  /** Keys whose window Redis lost while it still had to hold it; the next reserve pauses them. */
  const lost = new Set<string>();
  let closed = false;
  /** One recovery at a time: concurrent calls share it (one pause per key, one event). */
  let recovering: Promise<void> | null = null;

  const hashKey = (key: string) => `${prefix}window:{${key}}`;
  const seqKey = (key: string) => `${prefix}window-seq:{${key}}`;

  async function ready(): Promise<void> {
    if (redis.status === "ready") {
      everReady = true;
      return;
    }
    // Only the first connection is waited for; later outages fail over at once.
    if (!everReady && (redis.status === "wait" || redis.status === "connecting" || redis.status === "connect")) {
      if (redis.status === "wait") redis.connect().catch(() => undefined);
      await withTimeout(
        new Promise<void>((resolve, reject) => {
          const ok = () => {
            cleanup();
            resolve();
          };
          const bad = (e: unknown) => {
            cleanup();
            reject(e);
          };
          const cleanup = () => {
            redis.off("ready", ok);
            redis.off("error", bad);
          };
          redis.once("ready", ok);
          redis.once("error", bad);
        }),
        timeoutMs,
      );
      everReady = true;
      return;
    }
    throw new StoreUnavailableError(`Redis connection is ${redis.status}; pacing locally until it is back.`);
  }

  /** Runs `op` against Redis, or returns undefined when the caller must pace locally. */
  async function viaRedis<T>(op: () => Promise<T>): Promise<T | undefined> {
    if (closed) throw new StoreUnavailableError("The window store is closed: create a new one.");
    if (failedOver) {
      if (Date.now() - lastTry < retryMs && redis.status !== "ready") return undefined;
      lastTry = Date.now();
    }
    try {
      await ready();
      if (failedOver) await (recovering ??= recover().finally(() => (recovering = null)));
      return await withTimeout(op(), timeoutMs);
    } catch (error) {
      if (!failedOver) {
        failedOver = true;
        lastTry = Date.now();
        episode += 1;
        localPrefix = `local${episode}:`;
        local = new Map();
        blocked = new Set();
        lastLocalSend = new Map();
        const failure = redisFailure(error, redis);
        onEvent({ type: "store-failover", error: failure, message: failure.message });
      }
      return undefined;
    }
  }

  /**
   * Back on Redis: while we paced locally, our sends were invisible to the shared window. Pause every
   * key we paced locally for one window (from the latest time we know), so no server window can
   * hold both our local sends and a full Redis-coordinated window.
   */
  async function recover(): Promise<void> {
    // Pausing only the keys we actually sent on locally; the pause never shortens a longer one.
    for (const [key, { at, span }] of lastLocalSend) {
      await withTimeout(redis.rwsPause(hashKey(key), seqKey(key), at + span, "", "0", grace, "1"), timeoutMs);
    }
    failedOver = false;
    // A failover already waited a window before its first local send and paused Redis a window past
    // its last: what Redis forgot meanwhile needs no second pause.
    lastSeenAt.clear();
    local = new Map();
    blocked = new Set();
    lastLocalSend = new Map();
    onEvent({ type: "store-recovered" });
  }

  /**
   * Redis lost `key`'s window: the server may still count sends the fresh record does not hold (this
   * process's and others'). As on a failover, no new window opens before one full window has passed;
   * the pause is in Redis, so every process on the key waits, including those that saw no loss.
   */
  async function stateLost(key: string, p: ReserveParams): Promise<ReserveDecision> {
    const until = p.now + p.windowMs + p.guardMs;
    onEvent({ type: "store-state-lost", key });
    const reply = await viaRedis(() => redis.rwsPause(hashKey(key), seqKey(key), until, "", "0", grace, "1"));
    const state = reply ? fromRedis(key, reply, p.now).snapshot : toSnapshot(localRecord(key), p.now);
    return { granted: false, retryAt: until, state };
  }

  /** The local record of `key`, created with the last 429 pause Redis told us about. */
  function localRecord(key: string): WindowRecord {
    let r = local.get(key);
    if (!r) {
      r = emptyRecord();
      r.pausedUntil = lastKnown.get(key)?.pausedUntil ?? 0;
      r.nextSlotAt = r.pausedUntil;
      local.set(key, r);
    }
    return r;
  }

  const localId = (id: string) => (id.startsWith(localPrefix) ? id.slice(localPrefix.length) : `foreign:${id}`);
  const wrap = (s: WindowSnapshot): WindowSnapshot =>
    s.windowId === null ? s : { ...s, windowId: localPrefix + s.windowId };
  const fromRedis = (key: string, reply: Reply, snapshotNow: number) => {
    const { flag, at, record } = parseReply(reply);
    // The grant ordinal and the window seq only grow while a key's hash lives, and it lives `grace`
    // past its last time: a lower one within that means Redis lost it (restarted without its data,
    // or evicted it).
    const prev = lastKnown.get(key);
    const seenAt = Date.now();
    const lower = prev !== undefined && (record.ord < prev.ord || record.seq < prev.seq);
    const seen = lastSeenAt.get(key);
    if (lower && seen !== undefined && seenAt - seen < grace) lost.add(key);
    lastKnown.set(key, record);
    lastSeenAt.set(key, seenAt);
    return { flag, at, record, snapshot: toSnapshot(record, snapshotNow) };
  };
  // A local windowId sent to Redis never matches (Redis ids are plain digits): a stale id, a no-op.
  const redisId = (id: string) => id;

  return {
    async reserve(key, p: ReserveParams): Promise<ReserveDecision> {
      const reply = await viaRedis(() =>
        redis.rwsReserve(
          hashKey(key),
          seqKey(key),
          p.limit,
          p.windowMs,
          p.spacingMs,
          p.guardMs,
          p.now,
          grace,
          p.burst ?? 1,
          p.endGuardMs ?? "",
          p.limitAssumed ? "1" : "",
        ),
      );
      if (reply) {
        const { flag, at, record, snapshot } = fromRedis(key, reply, p.now);
        if (lost.delete(key)) return stateLost(key, p);
        if (flag !== 1 && flag !== 2) return { granted: false, retryAt: at!, state: snapshot };
        // flag 2: a straddler (I3), whose answers must confirm and observe nothing.
        const windowId = flag === 2 ? straddlerWindowId(snapshot.windowId!) : snapshot.windowId!;
        return { granted: true, sendAt: at!, windowId, ord: record.ord, state: snapshot };
      }
      // Local pacing at `share` of the limit, spaced so no window-length interval holds more (I3).
      // A limit another process learned (the last Redis record seen) beats this process's assumption.
      const known = lastKnown.get(key);
      const limit = p.limitAssumed && known?.limitLearned && known.limit >= 1 ? known.limit : p.limit;
      const localLimit = Math.max(1, Math.floor(limit * share));
      const spacingMs = Math.max(p.spacingMs / share, (p.windowMs + p.guardMs) / localLimit);
      const r = localRecord(key);
      if (!blocked.has(key)) {
        // Other processes may have filled the current server window just before Redis went away,
        // and we cannot see their sends: the first local window opens one full window later.
        blocked.add(key);
        applyPause(r, p.now + p.windowMs + p.guardMs, null, true);
      }
      // No burst allowance here: the spacing alone keeps every window-length interval within the share.
      const d = applyReserve(r, { ...p, limit: localLimit, spacingMs, burst: 1 });
      if (!d.granted) return { ...d, state: wrap(d.state) };
      const prev = lastLocalSend.get(key)?.at ?? Number.NEGATIVE_INFINITY;
      lastLocalSend.set(key, { at: Math.max(prev, d.sendAt), span: p.windowMs + p.guardMs });
      return { ...d, windowId: localPrefix + d.windowId, state: wrap(d.state) };
    },

    async refund(key, windowId) {
      const reply = await viaRedis(() => redis.rwsRefund(hashKey(key), seqKey(key), redisId(windowId), grace));
      if (reply) return fromRedis(key, reply, Number.NEGATIVE_INFINITY).snapshot;
      const r = localRecord(key);
      applyRefund(r, localId(windowId));
      return wrap(toSnapshot(r, Number.NEGATIVE_INFINITY));
    },

    async confirmWindowStart(key, windowId, receivedAt) {
      const reply = await viaRedis(() =>
        redis.rwsConfirm(hashKey(key), seqKey(key), redisId(windowId), receivedAt, grace),
      );
      if (reply) return fromRedis(key, reply, receivedAt).snapshot;
      const r = localRecord(key);
      applyConfirm(r, localId(windowId), receivedAt);
      return wrap(toSnapshot(r, receivedAt));
    },

    async observe(key, p: ObserveParams) {
      const valid = Number.isFinite(p.remaining) && Number.isFinite(p.limit) ? "1" : "0";
      const reply = await viaRedis(() =>
        redis.rwsObserve(
          hashKey(key),
          seqKey(key),
          redisId(p.windowId),
          valid === "1" ? p.remaining : 0,
          valid === "1" ? p.limit : 0,
          p.now,
          grace,
          valid,
          p.ord !== undefined && Number.isFinite(p.ord) ? p.ord : "",
          p.sentAt !== undefined && Number.isFinite(p.sentAt) ? p.sentAt : "",
          p.slack !== undefined && Number.isFinite(p.slack) ? p.slack : 0,
          p.unsent !== undefined && Number.isFinite(p.unsent) ? p.unsent : "",
        ),
      );
      if (reply) return fromRedis(key, reply, p.now).snapshot;
      const r = localRecord(key);
      applyObserve(r, { ...p, windowId: localId(p.windowId) });
      return wrap(toSnapshot(r, p.now));
    },

    async pauseUntil(key, until, windowId, closesWindow) {
      const reply = await viaRedis(() =>
        redis.rwsPause(
          hashKey(key),
          seqKey(key),
          Number.isFinite(until) ? until : "",
          windowId ?? "",
          windowId === null ? "0" : "1",
          grace,
          closesWindow ? "1" : "0",
        ),
      );
      if (reply) return fromRedis(key, reply, Number.NEGATIVE_INFINITY).snapshot;
      const r = localRecord(key);
      applyPause(r, until, windowId === null ? null : localId(windowId), closesWindow);
      return wrap(toSnapshot(r, Number.NEGATIVE_INFINITY));
    },

    async peek(key, now) {
      const reply = await viaRedis(() => redis.rwsPeek(hashKey(key), seqKey(key)));
      if (reply) return fromRedis(key, reply, now).snapshot;
      return wrap(toSnapshot(local.get(key) ?? emptyRecord(), now));
    },

    async close() {
      if (closed) return;
      closed = true;
      if (owns) redis.disconnect();
    },
  };
}

function parseUrl(url: string): RedisOptions {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new InvalidOptionsError(
      "RedisWindowStoreOptions.redis must be a redis:// URL, Redis options or a client.",
      "redis",
    );
  }
  if (u.protocol !== "redis:") {
    throw new InvalidOptionsError(
      "RedisWindowStoreOptions.redis as a URL must be redis:// (rediss:// is not supported).",
      "redis",
    );
  }
  const out: RedisOptions = { host: u.hostname, port: u.port ? Number(u.port) : 6379 };
  if (u.password) out.password = decodeURIComponent(u.password);
  if (u.username) out.username = decodeURIComponent(u.username);
  const db = u.pathname.replace(/^\//, "");
  if (db) out.db = Number(db);
  return out;
}
