/**
 * The shape of createResellerClient()'s options: names it does not know (a typo such as `jounral`
 * would otherwise run a purchase with no journal, G1) and objects that are not what an option takes
 * (a journal that is still a Promise). Checked before anything is recorded or sent.
 */
import { JOURNAL_METHODS } from "../journal";
import type { Pacer, WindowStore } from "../pacing";
import type { CallOptions, RetryBudgetOptions } from "../runner";
import { InvalidArgumentError, InvalidOptionsError } from "../core";
import type { FleetOptions, ResellerClientOptions } from "./options";
import type { WaitOptions } from "./operations-wait";
import { editDistance } from "../runtime/edit-distance";

type Names<T> = { readonly [K in keyof Required<T>]: true };

const TOP: Names<ResellerClientOptions> = {
  baseUrl: true,
  token: true,
  fetch: true,
  clock: true,
  random: true,
  language: true,
  timeoutMs: true,
  deadlineMs: true,
  maxResponseBytes: true,
  retry: true,
  pacing: true,
  pacer: true,
  journal: true,
  onEvent: true,
  logger: true,
  telemetry: true,
  allowLiveOnlyWithTestKey: true,
  allowInsecureHttp: true,
  recoverOnStart: true,
  fleet: true,
};
const RETRY: Names<NonNullable<ResellerClientOptions["retry"]>> = {
  maxAttempts: true,
  baseMs: true,
  capMs: true,
  maxRateLimitRetries: true,
  budget: true,
};
const PACING: Names<NonNullable<ResellerClientOptions["pacing"]>> = {
  windowMs: true,
  store: true,
  maxConcurrency: true,
  initialLimit: true,
};
const BUDGET: Names<RetryBudgetOptions> = { capacity: true, retryCost: true, timeoutCost: true, successRefill: true };
const FLEET: Names<FleetOptions> = { workerId: true, leaseMs: true, heartbeatMs: true, continuousRecovery: true };
const CONTINUOUS: Names<Exclude<FleetOptions["continuousRecovery"], boolean | undefined>> = {
  intervalMs: true,
  batch: true,
  concurrency: true,
  onRound: true,
};

const STORE_METHODS: Names<WindowStore> = {
  reserve: true,
  refund: true,
  confirmWindowStart: true,
  observe: true,
  pauseUntil: true,
  peek: true,
  close: true,
};
const PACER_METHODS: Names<Pacer> = { acquire: true, learnLimit: true, snapshot: true };

/** "x is not an option: did you mean y? (known: …)" for a name `known` lacks. */
function unknownName(name: string, known: Readonly<Record<string, true>>, prefix: string): string {
  const near = Object.keys(known)
    .map((k) => ({ k, d: editDistance(name.toLowerCase(), k.toLowerCase()) }))
    .filter(({ d }) => d <= 2)
    .sort((x, y) => x.d - y.d)[0];
  return (
    `${prefix}${name} is not an option${near ? `: did you mean ${prefix}${near.k}?` : ""} ` +
    `(known: ${Object.keys(known).join(", ")})`
  );
}

function checkNames(value: unknown, known: Readonly<Record<string, true>>, prefix: string): void {
  if (value === null || typeof value !== "object") return; // the type checks report it
  for (const name of Object.keys(value)) {
    if (!Object.hasOwn(known, name))
      throw new InvalidOptionsError(`${unknownName(name, known, prefix)}. Nothing was created.`, `${prefix}${name}`);
  }
}

const CALL: Names<CallOptions> = {
  idempotencyKey: true,
  signal: true,
  timeoutMs: true,
  deadlineMs: true,
  language: true,
};
const WAIT: Names<WaitOptions> = {
  signal: true,
  deadline: true,
  deadlineMs: true,
  minIntervalMs: true,
  maxIntervalMs: true,
  commandId: true,
  onPoll: true,
};

/**
 * A call's or a wait's options (built in a variable, TypeScript does not check their names): a
 * misspelt `idempotencykey` would send with a fresh random key — a second purchase when the app
 * retries "with the same key" (D2) — so it is refused before anything is recorded or sent.
 */
export function checkArgumentNames(value: object, of: "call" | "wait"): void {
  const known = of === "call" ? CALL : WAIT;
  for (const name in value) {
    if (!Object.hasOwn(known, name))
      throw new InvalidArgumentError(`${unknownName(name, known, "")}. Nothing was sent.`, name);
  }
}

/**
 * A call's first argument (built in a variable, TypeScript does not check it): its path parameters,
 * `query` and `body`. Options put there by mistake (`context.get({ signal })`) would be ignored — the
 * call would go without its signal or timeout — so any other name is refused before anything is sent.
 */
export function checkCallArgs(operationId: string, pathParams: readonly string[], args: unknown): void {
  if (args === undefined) return;
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    throw new InvalidArgumentError(
      `${operationId}'s first argument must be an object of its path parameters, query and body. Nothing was sent.`,
      "args",
    );
  }
  for (const name in args) {
    if (name === "query" || name === "body" || pathParams.includes(name)) continue;
    const option = Object.hasOwn(CALL, name);
    const known: Record<string, true> = { query: true, body: true };
    for (const p of pathParams) known[p] = true;
    throw new InvalidArgumentError(
      option
        ? `${name} is a call option, not an argument of ${operationId}: pass it in the second argument (${operationId}(args, { ${name} })). Nothing was sent.`
        : `${unknownName(name, known, "").replace("is not an option", `is not an argument of ${operationId}`)}. Nothing was sent.`,
      name,
    );
  }
}

/** An object option that must have these methods (a JavaScript caller may pass anything). */
function checkMethods(value: unknown, methods: Readonly<Record<string, true>>, option: string, fix: string): void {
  if (value === undefined) return;
  if (value !== null && typeof (value as { then?: unknown }).then === "function") {
    throw new InvalidOptionsError(`${option} is a Promise: await it first (${fix}).`, option);
  }
  // close() is the owner's to call (the client never closes what it was given): not required.
  const needed = Object.keys(methods).filter((m) => m !== "close");
  const missing =
    value === null || typeof value !== "object"
      ? needed
      : needed.filter((m) => typeof (value as Record<string, unknown>)[m] !== "function");
  if (missing.length > 0) {
    throw new InvalidOptionsError(`${option} is not one (it lacks ${missing.join(", ")}): ${fix}.`, option);
  }
}

export function checkOptionsShape(options: ResellerClientOptions): void {
  checkNames(options, TOP, "");
  checkNames(options.retry, RETRY, "retry.");
  checkNames(options.pacing, PACING, "pacing.");
  checkNames(options.retry?.budget, BUDGET, "retry.budget.");
  checkNames(options.fleet, FLEET, "fleet.");
  checkNames(options.fleet?.continuousRecovery, CONTINUOUS, "fleet.continuousRecovery.");
  checkMethods(
    options.journal,
    JOURNAL_METHODS,
    "journal",
    "pass createSqliteJournal(…) from reseller-api/stores/sqlite, await createPgJournal(…) from reseller-api/stores/postgres, or createMemoryJournal() from reseller-api/stores/memory",
  );
  checkMethods(
    options.pacing?.store,
    STORE_METHODS,
    "pacing.store",
    "pass createRedisWindowStore(…) from reseller-api/stores/redis, or leave it out for the in-memory store",
  );
  checkMethods(options.pacer, PACER_METHODS, "pacer", "pass createPacer(…) from reseller-api/pacing");
}
