/**
 * One CLI session: credentials (or the in-process emulator), the journal, the client, and the first
 * call (A5: GET /context, which also teaches the pacer the key's limit). Every command that talks to
 * the API opens exactly one session and closes it on the way out.
 */
import {
  systemClock,
  createResellerClient,
  type AttemptInfo,
  type Clock,
  type ClientEvent,
  type Journal,
  type Outcome,
  type ResellerClient,
  type RecoverSummary,
  type RecoveryEvent,
} from "../src/index";
import { connectionMessage, failureOf, probeConnection } from "./connect";
import { resolveCredentials } from "./credentials";
import { CLI_DEFAULTS } from "./defaults";
import { ConnectionError, SetupError } from "./errors";
import { dataRecordOf, recordOf, stringOf } from "./shape";
import type { Runtime } from "./job-session";
import { lockJournal, type JournalLock } from "./journal-lock";
import {
  chooseJournal,
  describeJournal,
  dryRunBesideJobNotice,
  journalNotice,
  newJournalNotice,
  openJournal,
  type OpenedJournal,
} from "./stores";

export interface GlobalOptions {
  tokenFile?: string;
  baseUrl?: string;
  emulator: boolean;
  journal?: string;
  json: boolean;
  windowMs: number;
  requestTimeoutMs: number;
  /** Connect timeout (DNS + TCP + TLS) of the first request of the command. */
  connectTimeoutMs: number;
  /** SQLite journal durability: "full" fsyncs every commit (default), "normal" survives SIGKILL but not a power cut. */
  journalSync: "full" | "normal";
  /** recover() only touches commands not updated for this long (several processes on one journal). */
  recoverOlderThanMs: number;
  /** --window-ms was given (else the window is the API's documented one, not reported by the server). */
  windowFromFlag?: boolean;
  /** --wide: tables at full width. */
  wide?: boolean;
  /** false with --no-color (NO_COLOR is read from the environment too). */
  color?: boolean;
}

export interface ContextInfo {
  environment: "test" | "live";
  resellerStatus: string | null;
  publicKeyId: string;
  scopes: string[];
  limit: number | null;
  expiresAt: string | null;
  language: string | null;
}

export interface Session {
  client: ResellerClient;
  journal: Journal;
  journalLabel: string;
  journalKind: OpenedJournal["kind"];
  apiKeyId: string;
  environment: "test" | "live";
  windowMs: number;
  baseUrl: string;
  /** The client's clock: job times (deadlines, "renewed within") are read from it too. */
  clock: Clock;
  /** Lines to print once on stderr before anything else (warnings, where the journal is). */
  notices: string[];
  /** Replace the event listener (the progress renderer subscribes once it exists). */
  onEvent(listener: ((event: ClientEvent) => void) | undefined): void;
  context(): Promise<ContextInfo>;
  recover(onEvent?: (event: RecoveryEvent) => void, signal?: AbortSignal): Promise<RecoverSummary>;
  close(): Promise<void>;
}

/**
 * A session of a command that journals nothing (`context`, `domains list`): the same credentials,
 * client and first call, but no journal is opened — no file, no folder, no connection.
 */
export type ReadSession = Omit<Session, "journal" | "journalKind" | "recover">;

/**
 * How a command uses the journal: "write" opens (and creates) it; "dry-run" opens it when it exists,
 * else an empty in-memory one (no file); "none" opens nothing (a read-only command).
 */
export type JournalUse = "write" | "dry-run" | "none";

type SessionRuntime = Pick<Runtime, "env" | "clock" | "emulator" | "redactor">;

export async function openSession(
  options: GlobalOptions,
  rt: SessionRuntime,
  use?: "write" | "dry-run",
): Promise<Session>;
export async function openSession(options: GlobalOptions, rt: SessionRuntime, use: "none"): Promise<ReadSession>;
export async function openSession(
  options: GlobalOptions,
  rt: SessionRuntime,
  use: JournalUse = "write",
): Promise<Session | ReadSession> {
  const { env } = rt;
  const clock = rt.clock ?? systemClock;
  let token: string;
  let baseUrl: string;
  let fetchFn: ((input: Request) => Promise<Response>) | undefined;
  let closeEmulator: (() => Promise<void>) | undefined;
  const notices: string[] = [];
  // A journal value that can never open is a usage error before credentials or the network.
  chooseJournal(options.journal, env, options.emulator);
  if (options.emulator) {
    const { createEmulator } = await import("../emulator/public");
    const emulator = rt.emulator ?? createEmulator({ withDefaultKeys: true, windowMs: options.windowMs, clock });
    const key = emulator.control.keys().find((k) => k.environment === "test" && !k.revoked);
    if (!key) throw new SetupError("The in-process emulator has no test key.");
    token = key.token;
    rt.redactor?.addToken(token);
    baseUrl = "http://127.0.0.1/api/reseller/v1";
    fetchFn = (input) => emulator.fetch(input);
    if (!rt.emulator) closeEmulator = () => emulator.close();
    notices.push("emulator: in-process, test key, no network and no real money");
  } else {
    const credentials = resolveCredentials({ tokenFile: options.tokenFile, baseUrl: options.baseUrl, env });
    token = credentials.token;
    rt.redactor?.addToken(token);
    baseUrl = credentials.baseUrl;
    if (credentials.warning) notices.push(credentials.warning);
    // The client refuses a bad URL (userinfo, query, http to a remote host) before any network.
    checkClientOptions(baseUrl, token);
    await probeConnection(baseUrl, options.connectTimeoutMs);
  }
  let opened: OpenedJournal | undefined;
  let lock: JournalLock | undefined;
  /** Closes what this session opened: on close(), and when setting it up fails part-way. */
  const letGo = async () => {
    await opened?.journal.close().catch(() => undefined);
    lock?.release();
    await closeEmulator?.().catch(() => undefined);
  };
  if (use === "none") {
    // Short enough for an 80-column terminal; `context` prints where jobs journal.
    notices.push("journal: none (this command only reads)");
  } else {
    opened = await openJournal(
      options.journal,
      env,
      options.emulator,
      options.journalSync,
      use === "dry-run" ? { dryRun: true } : undefined,
    );
    if (use === "write" && opened.kind === "sqlite") {
      try {
        lock = lockJournal(opened.label);
      } catch (error) {
        await letGo();
        throw error;
      }
    }
    notices.push(journalNotice(opened));
    const created = newJournalNotice(opened);
    if (created) notices.push(created);
  }
  const journalLabel = opened?.label ?? describeJournal(options.journal, env, options.emulator);
  let listener: ((event: ClientEvent) => void) | undefined;
  let client: ResellerClient;
  try {
    client = createResellerClient({
      baseUrl,
      token,
      fetch: fetchFn,
      clock,
      journal: opened?.journal,
      timeoutMs: options.requestTimeoutMs,
      // A job's rows wait their turn in the key's window, however long (C3): a row never sent is
      // not an unknown outcome. Attempts stay bounded (timeout, retries); Ctrl-C stops the rest.
      deadlineMs: Number.POSITIVE_INFINITY,
      pacing: { windowMs: options.windowMs },
      onEvent: (event) => listener?.(event),
    });
  } catch (error) {
    await letGo();
    throw error;
  }
  const { publicKeyId, environment } = client.credential;
  if (use === "write" && opened?.lockJob) {
    // PostgreSQL: one job per key on the journal (several machines share it, each with its own key).
    try {
      lock = await opened.lockJob({ apiKeyId: publicKeyId, environment });
    } catch (error) {
      await client.close().catch(() => undefined);
      await letGo();
      throw error;
    }
  }
  if (use === "dry-run" && opened?.jobHolder) {
    // B1: a dry run takes no lock and is not refused, but its requests share the key's window (C3).
    const busy = await opened.jobHolder({ apiKeyId: publicKeyId, environment }).catch(() => undefined);
    if (busy) notices.push(dryRunBesideJobNotice(busy));
  }
  const session: ReadSession = {
    client,
    journalLabel,
    apiKeyId: publicKeyId,
    environment,
    windowMs: options.windowMs,
    baseUrl,
    clock,
    notices,
    onEvent(next) {
      listener = next;
    },
    async context() {
      const firstAnswerMs = Math.min(options.requestTimeoutMs, CLI_DEFAULTS.http.firstAnswerMs);
      const outcome = await client.context.get(undefined, {
        timeoutMs: firstAnswerMs,
        deadlineMs: 2 * firstAnswerMs,
      });
      if (outcome.kind !== "succeeded")
        throw contextFailure(outcome, baseUrl, { connectMs: options.connectTimeoutMs, firstAnswerMs });
      // E5: a 200 from a proxy or a broken server may hold anything; read it field by field.
      const data = dataRecordOf(outcome.data);
      const environment = data?.environment;
      if (environment !== "test" && environment !== "live") {
        throw new SetupError(
          `GET /context answered ${outcome.status} without a context object (request ${
            outcome.requestId ?? "none"
          }): a proxy or a wrong base URL in between? Check the base URL; nothing was sent besides this read.`,
        );
      }
      const credential = recordOf(data?.credential);
      const scopes = credential?.scopes;
      const limit = credential?.rate_limit_per_minute;
      return {
        environment,
        resellerStatus: stringOf(recordOf(data?.reseller)?.status) ?? null,
        publicKeyId: stringOf(credential?.public_key_id) ?? publicKeyId,
        scopes: Array.isArray(scopes) ? scopes.filter((x): x is string => typeof x === "string") : [],
        limit: typeof limit === "number" && Number.isFinite(limit) ? limit : null,
        expiresAt: stringOf(credential?.expires_at) ?? null,
        language: stringOf(data?.language) ?? null,
      };
    },
    close: letGo,
  };
  if (!opened) return session;
  return {
    ...session,
    journal: opened.journal,
    journalKind: opened.kind,
    recover(onEvent, signal) {
      return client.recover({ onEvent, signal, staleAfterMs: options.recoverOlderThanMs });
    },
  };
}

/** Builds a throwaway client only to run the SDK's own option checks (nothing is sent, no journal). */
function checkClientOptions(baseUrl: string, token: string): void {
  createResellerClient({ baseUrl, token });
}

function timedOut(attempt: AttemptInfo): boolean {
  return attempt.error === "timeout";
}

/**
 * GET /context did not succeed. Without any response, nobody received the request: the cause is named
 * (refused, DNS, TLS, timeout) and no request id is quoted; with a response, its status and request id.
 */
function contextFailure(
  outcome: Exclude<Outcome, { kind: "succeeded" }>,
  baseUrl: string,
  limits: { connectMs: number; firstAnswerMs: number },
): Error {
  const status = "status" in outcome && outcome.status ? outcome.status : undefined;
  if (outcome.kind === "unknown" && status === undefined) {
    const url = new URL(baseUrl);
    const host = `${url.hostname}:${url.port || (url.protocol === "https:" ? 443 : 80)}`;
    // Every attempt ran out of time (or the short deadline ended the retries): the port took the connection.
    if (outcome.reason === "timeout" || (outcome.reason === "deadline" && outcome.attempts.every(timedOut)))
      return new SetupError(
        `GET /context: ${host} accepted the connection but sent no HTTP response within ${limits.firstAnswerMs} ms (${outcome.attempts.length} attempt${outcome.attempts.length === 1 ? "" : "s"}); nobody answered, so there is no request id. Check that the base URL points at the Reseller API (not another service on that port, or a proxy that holds connections).`,
      );
    const code = outcome.cause && "causeCode" in outcome.cause ? outcome.cause.causeCode : undefined;
    const failure = failureOf(code);
    return new ConnectionError(
      connectionMessage(failure, host, code ?? outcome.reason, limits.connectMs),
      failure,
      host,
    );
  }
  const code = "error" in outcome && outcome.error ? ` ${outcome.error.code}` : "";
  const reason = outcome.kind === "unknown" ? ` (${outcome.reason})` : "";
  const hint =
    status === 401
      ? "The token is wrong, revoked or expired: check RESELLER_API_TOKEN / --token-file."
      : status === 403
        ? "The key lacks a scope, or this machine's IP is not on the key's allowlist."
        : "Check the token, the base URL and the key's IP allowlist.";
  return new SetupError(
    `GET /context: ${outcome.kind}${status ? ` ${status}` : ""}${code}${reason} (request ${outcome.requestId ?? "none"}). ${hint}`,
  );
}

export const DEFAULT_GLOBALS: Omit<GlobalOptions, "emulator" | "json"> = {
  journalSync: "full",
  windowMs: CLI_DEFAULTS.http.windowMs,
  requestTimeoutMs: CLI_DEFAULTS.http.requestTimeoutMs,
  connectTimeoutMs: CLI_DEFAULTS.http.connectTimeoutMs,
  recoverOlderThanMs: 0,
};
