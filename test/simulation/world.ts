/**
 * One simulated world: the in-process emulator (short replay TTL), one shared journal (memory,
 * SQLite or — the slower tier — PostgreSQL), one shared window store, N fleet workers on one API key — each an application that issues
 * commands, retries a throw or `unknown` with the same key, re-issues settled commands and waits on
 * operations — and the driver that runs a schedule step by step, injecting crashes, outages, faults and
 * time jumps, and checking the invariants after every step.
 */
import { createEmulator, type Emulator } from "../../emulator/index";
import { createResellerClient, type Outcome, type ResellerClient } from "../../src/index";
import type { Journal } from "../../journal";
import { COMMAND_STATES, TERMINAL_STATES } from "../../journal";

const OPEN_STATES = COMMAND_STATES.filter((s) => !TERMINAL_STATES.includes(s) && s !== "needs_manual_check");
import { DEFAULT_FLEET, parseToken } from "../../core";
import { createMemoryWindowStore, type WindowStore } from "../../pacing";
import { createMemoryJournal } from "../../stores/memory-journal";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import { postgresJournal } from "./postgres-tier";
import { seeded } from "../client/harness";
import { Scheduler, SimClock, type Activity, type Role } from "./scheduler";
import { context, deterministicPlatform, scheduledFetch, scheduledJournal, scheduledStore } from "./seams";
import { Tracker, type Violation } from "./invariants";
import type { Scenario, ScenarioEvent, ScriptItem } from "./scenario";
// Loaded up front: the client imports these chunks lazily, and a first load would be real I/O.
import "../../recovery";
import "../../src/operations-wait";
import "../../runner/reconcile-step";

const BASE_URL = "http://127.0.0.1/api/reseller/v1";
const SIM = {
  /** Shorter than an order's registration (pending + processing), so a re-call past it could buy again. */
  replayTtlMs: 45_000,
  windowMs: 60_000,
  rateLimit: 20,
  /** Operations stay pending + processing longer than a lease, so a wait outlives the lease. */
  operationPolicy: { pendingMs: 20_000, processingMs: 40_000 },
  maxSteps: 6_000,
  appRetries: 6,
  appRetryPauseMs: 3_000,
};

const FAULT_PATHS = {
  orders: "/orders",
  renew: "/domains/{domainUuid}/renew",
  operations: "/operations/{operationUuid}",
  any: "*",
};

interface Worker {
  id: string;
  client: ResellerClient;
  dead: boolean;
  background: Activity;
  app?: Promise<void>;
  done?: boolean;
  recovers: boolean;
}

export interface RunResult {
  violations: Violation[];
  coverage: Map<string, number>;
  steps: number;
  trace: string[];
}

interface BusinessCommand {
  key: string;
  kind: "order" | "renew";
  domainUuid?: string;
  domain: string;
}

export async function runScenario(scenario: Scenario): Promise<RunResult> {
  const random = seeded(scenario.seed);
  const restore = deterministicPlatform(random);
  try {
    return await run(scenario, random);
  } finally {
    restore();
  }
}

async function run(scenario: Scenario, random: () => number): Promise<RunResult> {
  const sched = new Scheduler();
  const clock = new SimClock();
  const leaseMs = DEFAULT_FLEET.leaseMs;
  const workers: Worker[] = [];
  const alive = (id: string) => workers.some((w) => w.id === id && !w.dead);
  const tracker = new Tracker(() => clock.now(), leaseMs, alive);
  const emulator: Emulator = createEmulator({
    clock: clock.virtual,
    random,
    windowMs: SIM.windowMs,
    replayTtlMs: SIM.replayTtlMs,
    operationPolicy: SIM.operationPolicy,
  });
  const key = emulator.control.createKey({ environment: "test", rate_limit_per_minute: SIM.rateLimit });
  const commands: BusinessCommand[] = scenario.commands.map((kind, i) => {
    const domain = `sim-${kind === "order" ? "o" : "r"}${i}.kz`;
    const domainUuid =
      kind === "renew" ? emulator.control.createDomain({ token: key.token, name: domain }).uuid : undefined;
    return { key: `cmd-${i}`, kind, domain, domainUuid };
  });
  const journalClock = { now: () => clock.now() };
  const shared: Journal =
    scenario.journal === "postgres"
      ? await postgresJournal(journalClock)
      : scenario.journal === "sqlite"
        ? createSqliteJournal({ filename: ":memory:", clock: journalClock })
        : createMemoryJournal({ clock: journalClock });
  const windows = createMemoryWindowStore();
  const down = { journal: new Set<string>(), store: new Set<string>() };
  const outages = {
    journalDown: (w: string) => down.journal.has(w) || down.journal.has("*"),
    storeDown: (w: string) => down.store.has(w) || down.store.has("*"),
  };
  const ends: { step: number; set: Set<string>; who: string }[] = [];
  let activitySeq = 0;
  const activity = (worker: string, role: Role, extra: Partial<Activity> = {}): Activity => ({
    id: ++activitySeq,
    worker,
    role,
    startedAt: clock.now(),
    sends: 0,
    done: false,
    ...extra,
  });

  function startWorker(id: string, script: ScriptItem[], continuous: boolean): Worker {
    const background = activity(id, "background");
    tracker.begin(background);
    const client = context.run(background, () =>
      createResellerClient({
        baseUrl: BASE_URL,
        token: key.token,
        fetch: scheduledFetch(emulator, sched, tracker, id),
        clock,
        random: seeded(scenario.seed ^ ((workers.length + 1) * 7919)),
        journal: scheduledJournal(shared, sched, tracker, id, outages),
        pacing: { store: scheduledStore(windows, sched, tracker, id, outages), initialLimit: SIM.rateLimit },
        onEvent: (event) => {
          // I6: a call or wait took back a command this worker's recovery held but had not started on.
          if (
            event.type === "recovery" &&
            event.event.type === "recovery-skip" &&
            event.event.reason.startsWith("taken back")
          )
            tracker.cover("own recovery passes over a command taken back");
        },
        fleet: {
          workerId: id,
          // The defaults (DEFAULT_FLEET); onRound only tells the tracker that a round let go of its commands.
          continuousRecovery: continuous && {
            onRound: () => {
              tracker.end(background);
              tracker.begin(background);
            },
          },
        },
      }),
    );
    const worker: Worker = { id, client, dead: false, background, recovers: continuous };
    workers.push(worker);
    worker.app = application(worker, script).then(() => void (worker.done = true));
    return worker;
  }

  async function application(w: Worker, script: ScriptItem[]): Promise<void> {
    for (const item of script) {
      if (w.dead) return;
      if (item.op === "recover") {
        const act = activity(w.id, "recover");
        tracker.begin(act);
        await context.run(act, () => w.client.recover()).catch(() => undefined);
        tracker.end(act);
      } else if (item.op === "pause") {
        await clock.sleep(item.ms);
      } else {
        await business(w, commands[item.cmd % commands.length], item.wait);
      }
    }
  }

  /** The application's loop for one business command: same key after any throw, unknown or conflict. */
  async function business(w: Worker, cmd: BusinessCommand, wait: boolean): Promise<void> {
    for (let attempt = 0; attempt < SIM.appRetries && !w.dead; attempt++) {
      if (attempt > 0) await clock.sleep(SIM.appRetryPauseMs);
      await coverRecall(cmd);
      const act = activity(w.id, "call", { key: cmd.key });
      tracker.begin(act);
      let outcome: Outcome | undefined;
      try {
        outcome = await context.run(act, () => issue(w.client, cmd));
      } catch (error) {
        if (!w.dead) tracker.onThrow(act, error);
      }
      tracker.end(act);
      if (!outcome || outcome.kind === "unknown" || outcome.kind === "conflict") continue;
      if (outcome.kind === "accepted" && wait && outcome.commandId) {
        const waitAct = activity(w.id, "wait", { commandId: outcome.commandId, key: cmd.key });
        tracker.begin(waitAct);
        // A wait holds its command when this worker owns it under a live lease (the lease is held for
        // the whole wait); an expired one it must claim first — the claim registers the hold then.
        const id = outcome.commandId;
        const rec = await sched.withIo(() => shared.get(id));
        if (rec?.owner === w.id && rec.leaseUntil !== null && rec.leaseUntil > clock.now()) tracker.hold(waitAct, id);
        const uuid = outcome.operationUuid;
        await context
          .run(waitAct, () => w.client.operations.wait(uuid, { commandId: outcome.commandId }))
          .catch((error: unknown) => {
            if (!w.dead) tracker.onThrow(waitAct, error);
          });
        if (clock.now() - waitAct.startedAt > leaseMs && !w.dead) tracker.cover("wait past the lease");
        tracker.end(waitAct);
      }
      return;
    }
  }

  function issue(client: ResellerClient, cmd: BusinessCommand): Promise<Outcome> {
    if (cmd.kind === "order") {
      return client.orders.create(
        { body: { external_id: `ext-${cmd.key}`, action: "register", domain: cmd.domain, period: 1 } } as never,
        { idempotencyKey: cmd.key },
      );
    }
    return client.domains.renew(
      { domainUuid: cmd.domainUuid!, body: { period: 1 } },
      {
        idempotencyKey: cmd.key,
      },
    );
  }

  async function coverRecall(cmd: BusinessCommand): Promise<void> {
    const record = await sched.withIo(() => shared.findByIdempotencyKey(key.public_key_id, cmd.key));
    if (!record) return;
    if (!TERMINAL_STATES.includes(record.state)) return void tracker.cover("same-key re-call before settle");
    const first = tracker.firstEffectAt(cmd.key, emulator.control.effects());
    if (first !== undefined && clock.now() >= first + SIM.replayTtlMs) tracker.cover("same-key re-call after TTL");
    else tracker.cover("same-key re-call after settle");
  }

  const liveWorker = (index: number) => {
    const live = workers.filter((x) => !x.dead);
    return live[index % Math.max(1, live.length)];
  };
  const armed: Extract<ScenarioEvent, { kind: "crash-at" }>[] = [];
  const groupOf = (role: Role | undefined) => (role === "call" || role === "wait" ? role : "recovery");

  /** Fires armed crashes whose worker now waits at the aimed point. */
  function fireArmed(): void {
    for (const a of [...armed]) {
      const w = liveWorker(a.worker);
      if (!w) continue;
      const hit = sched.pending.some(
        (p) => p.worker === w.id && groupOf(p.activity?.role) === a.role && p.label.startsWith(a.at),
      );
      if (!hit) continue;
      armed.splice(armed.indexOf(a), 1);
      crash(a.worker, a.restart);
    }
  }

  function crash(index: number, restart: boolean): void {
    const w = liveWorker(index);
    if (!w) return;
    w.dead = true;
    const lost = sched.kill(w.id);
    if (lost.length === 0) tracker.cover("crash while idle");
    for (const p of lost) {
      const group = groupOf(p.activity?.role);
      if (group === "wait") tracker.cover("crash in wait");
      // Three grains: "send", "send POST", "send POST /orders" (journal labels: "journal.transition", "…→succeeded").
      const words = p.label.split(/[→ ]/);
      for (const n of new Set([1, Math.min(2, words.length)]))
        tracker.cover(`crash in ${group} at ${words.slice(0, n).join(" ")}`);
      tracker.cover(`crash in ${group} at ${p.label}`);
    }
    tracker.dropWorker(w.id);
    const i = workers.indexOf(w);
    if (restart)
      startWorker(
        `${w.id}-r`,
        scenario.scripts[i % scenario.scripts.length],
        scenario.continuous[i % scenario.continuous.length],
      );
  }

  function apply(event: ScenarioEvent, step: number): void {
    const who = (n: number | "all") =>
      n === "all" ? "*" : (workers.filter((w) => !w.dead)[n % Math.max(1, workers.length)]?.id ?? "*");
    switch (event.kind) {
      case "crash":
        return void crash(event.worker, event.restart);
      case "crash-at":
        return void armed.push(event);
      case "journal-outage":
      case "store-outage": {
        const set = event.kind === "journal-outage" ? down.journal : down.store;
        const id = who(event.worker);
        set.add(id);
        ends.push({ step: step + event.steps, set, who: id });
        return;
      }
      case "fault":
        emulator.control.addFault({
          method: event.path === "operations" ? "GET" : event.path === "any" ? "*" : "POST",
          path: FAULT_PATHS[event.path],
          kind: event.fault,
          times: event.times,
        });
        return;
      case "jump": {
        const ms = event.to === "lease" ? leaseMs + 1 : event.to === "ttl" ? SIM.replayTtlMs + 1 : 5_000;
        tracker.excuse("*");
        clock.jump(ms);
        tracker.excuse("*");
        if (event.to !== "short")
          tracker.cover(event.to === "lease" ? "time jump past the lease" : "time jump past the TTL");
        return;
      }
    }
  }

  for (let i = 0; i < scenario.workers; i++) {
    startWorker(
      `w${i}`,
      scenario.scripts[i % scenario.scripts.length],
      scenario.continuous[i % scenario.continuous.length],
    );
  }
  const events = [...scenario.events].sort((a, b) => a.step - b.step);
  let step = 0;
  let choice = 0;

  // Phase A: the schedule, the scenario's events, until every application is done.
  await sched.settle();
  for (; step < SIM.maxSteps; step++) {
    while (events.length > 0 && events[0].step <= step) apply(events.shift()!, step);
    for (const e of ends.filter((x) => x.step <= step)) {
      e.set.delete(e.who);
      ends.splice(ends.indexOf(e), 1);
    }
    for (const set of [down.journal, down.store]) for (const id of set) tracker.excuse(id);
    fireArmed();
    if (appsDoneFlag(workers) && events.length === 0) break;
    const picked = scenario.schedule[choice++] ?? 0;
    if (!advance(sched, clock, picked)) {
      // A worker restarted by this step's event registers its first point only once its start ran:
      // nothing pending yet is not "nothing left to do" (seed 20 runs 48035, 53189, 75087).
      await sched.settle();
      if (!advance(sched, clock, picked)) break;
    }
    await sched.settle();
    tracker.checkServer(emulator);
  }

  // Phase B: the faults stop. Every command must be settled within lease + interval + one window
  // (docs/guides/fleet.md).
  emulator.control.clearFaults();
  down.journal.clear();
  down.store.clear();
  ends.length = 0;
  if (!workers.some((w) => !w.dead && w.recovers)) startWorker("survivor", [], true);
  const stoppedAt = clock.now();
  const boundMs = leaseMs + DEFAULT_FLEET.recoveryIntervalMs + (await pacerWaitMs(windows, key.token, stoppedAt));
  // An accepted operation also needs the registry's own time (pending + processing) before anyone can
  // settle it: that part is not the client's latency, so it is checked after that much more.
  const registryMs = SIM.operationPolicy.pendingMs + SIM.operationPolicy.processingMs;
  let checkedBound = false;
  for (let n = 0; n < SIM.maxSteps && clock.now() <= stoppedAt + boundMs + registryMs; n++, step++) {
    if (!checkedBound && clock.now() > stoppedAt + boundMs) {
      checkedBound = true;
      const open = await shared.listByState(OPEN_STATES);
      tracker.checkSettled(
        open.filter((r) => r.state !== "accepted"),
        boundMs,
      );
    }
    if (n % 50 === 0 && (await allSettled(shared)) && appsDoneFlag(workers)) break;
    if (!advance(sched, clock, 0)) break;
    await sched.settle();
    tracker.checkServer(emulator);
  }
  tracker.checkServer(emulator);
  if (!checkedBound) tracker.checkSettled(await shared.listByState(OPEN_STATES), boundMs);
  else tracker.checkSettled(await shared.listByState(OPEN_STATES), boundMs + registryMs);
  await shared.close();
  return { violations: tracker.violations, coverage: tracker.coverage, steps: step, trace: sched.trace };
}

/**
 * The pacer's part of the bound (docs/guides/fleet.md, rate-limits guide): one window — or, when no
 * answer of the key's open window reached anyone (every one lost to crashes and resets), until that
 * window is given up at windowStart + 2·windowMs + guard (guard at most windowMs / 40).
 */
async function pacerWaitMs(windows: WindowStore, token: string, now: number): Promise<number> {
  const w = await windows.peek(parseToken(token).publicKeyId, now);
  const givenUpAt =
    w.windowStart !== null && w.windowEnd === null ? w.windowStart + 2 * SIM.windowMs + SIM.windowMs / 40 : 0;
  return Math.max(SIM.windowMs, givenUpAt - now);
}

function appsDoneFlag(workers: Worker[]): boolean {
  return workers.every((w) => w.dead || w.done);
}

async function allSettled(journal: Journal): Promise<boolean> {
  return (await journal.listByState(OPEN_STATES)).length === 0;
}

/** One step of the schedule: release the chosen pending point, or move time to the next timer. */
function advance(sched: Scheduler, clock: SimClock, choice: number): boolean {
  const timer = clock.nextTimer();
  const options = sched.pending.length + (timer !== undefined ? 1 : 0);
  if (options === 0) return false;
  const i = choice % options;
  if (i < sched.pending.length) sched.release(i);
  else {
    sched.trace.push(`tick ${timer}`);
    clock.tick();
  }
  return true;
}
