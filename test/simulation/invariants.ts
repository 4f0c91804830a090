/**
 * What the simulation checks after every step and at the end of a run (issue 20's invariants), and
 * which paths a run reached (the coverage counts `npm run simulate` and `npm test` print).
 */
import { TERMINAL_STATES, type CommandRecord } from "../../journal";
import type { Emulator } from "../../emulator/index";
import type { Activity } from "./scheduler";

/** Server effects that a business command may cause at most once, ever (also past the replay TTL). */
const PAID_EFFECTS = new Set(["order.create", "domain.renew"]);

/** Paths `npm test` requires at least once, so coverage cannot silently vanish. */
export const REQUIRED_PATHS = [
  "same-key re-call before settle",
  "same-key re-call after settle",
  "same-key re-call after TTL",
  "own-recovery race",
  "own recovery passes over a command taken back",
  "wait past the lease",
  "crash in call at journal.record",
  "crash in call at send POST",
  "crash in call at recv POST",
  "crash in call at journal.addAttempt",
  "crash in call at store.reserve",
  "crash in wait",
  "crash in recovery at journal.claim",
  "crash in recovery at send",
  "crash in recovery at recv",
  "crash in recovery at journal.transition",
  "journal unavailable",
  "window store unavailable",
  "time jump past the lease",
  "time jump past the TTL",
] as const;

export interface Violation {
  invariant: string;
  detail: string;
  at: number;
}

export class Tracker {
  readonly violations: Violation[] = [];
  readonly coverage = new Map<string, number>();
  readonly activities = new Set<Activity>();
  /** command id → activities holding it (a write of theirs went through, or a wait on it runs). */
  private holds = new Map<string, Set<Activity>>();
  private settledBy = new Map<string, Set<string>>();
  private inFlight = new Map<string, Set<string>>();
  private effectsSeen = 0;
  private effectsPerKey = new Map<string, number>();
  private requestsSeen = 0;
  /** Per worker and command: when it last tried to write or renew it (the call started, not finished). */
  private tried = new Map<string, Map<string, number>>();
  /** Per worker and command: journal writes or renewals started and not answered yet. */
  private pending = new Map<string, Map<string, number>>();
  /** Per worker: times its journal was unreachable or its clock jumped (a pause) — excuses for losing a lease. */
  readonly excuses = new Map<string, number[]>();

  constructor(
    private readonly now: () => number,
    private readonly leaseMs: number,
    private readonly alive: (worker: string) => boolean,
  ) {}

  cover(path: string): void {
    this.coverage.set(path, (this.coverage.get(path) ?? 0) + 1);
  }

  violate(invariant: string, detail: string): void {
    this.violations.push({ invariant, detail, at: this.now() });
  }

  /** `worker` is a worker id, or "*" for everyone. */
  excuse(worker: string): void {
    const list = this.excuses.get(worker) ?? [];
    list.push(this.now());
    this.excuses.set(worker, list);
  }

  private excused(worker: string): boolean {
    const since = this.now() - this.leaseMs;
    return [...(this.excuses.get(worker) ?? []), ...(this.excuses.get("*") ?? [])].some((t) => t >= since);
  }

  /** A journal call is about to wait for its turn: the worker is trying to keep its lease on these commands. */
  onAttempt(worker: string, method: string, args: unknown[]): void {
    const ids = idsOf(method, args);
    const mine = this.tried.get(worker) ?? new Map<string, number>();
    for (const id of ids) mine.set(id, this.now());
    this.tried.set(worker, mine);
    const open = this.pending.get(worker) ?? new Map<string, number>();
    for (const id of ids) open.set(id, (open.get(id) ?? 0) + 1);
    this.pending.set(worker, open);
  }

  /** The journal answered (or failed) a call `onAttempt` saw start. */
  onAttemptEnd(worker: string, method: string, args: unknown[]): void {
    const open = this.pending.get(worker);
    if (!open) return;
    for (const id of idsOf(method, args)) {
      const n = (open.get(id) ?? 0) - 1;
      if (n > 0) open.set(id, n);
      else open.delete(id);
    }
  }

  begin(act: Activity): void {
    this.activities.add(act);
  }

  end(act: Activity): void {
    act.done = true;
    this.activities.delete(act);
    for (const set of this.holds.values()) set.delete(act);
  }

  hold(act: Activity, commandId: string): void {
    let set = this.holds.get(commandId);
    if (!set) this.holds.set(commandId, (set = new Set()));
    set.add(act);
  }

  /** A crashed worker holds nothing any more. */
  dropWorker(worker: string): void {
    for (const act of [...this.activities]) if (act.worker === worker) this.end(act);
  }

  /** Invariant: no throw after a send — a call that threw must have put nothing on the wire. */
  onThrow(act: Activity, error: unknown): void {
    this.cover("call threw");
    if (act.sends > 0) {
      const name = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      this.violate(
        "no throw after a send",
        `${act.worker} ${act.role} ${act.key ?? ""} threw after ${act.sends} send(s): ${name}`,
      );
    }
  }

  /**
   * Invariant: no command in two workers' hands — two live workers never send one key at once, unless
   * the one sending first could not keep its lease: its journal was unreachable or its clock jumped
   * within the last lease (a request sent under a live lease may outlast it; the server's idempotency
   * record answers the second send, and "at most one effect" is checked on its own).
   */
  onSend(worker: string, act: Activity | undefined, key: string | null): void {
    if (act) act.sends += 1;
    if (!key) return;
    const set = this.inFlight.get(key) ?? new Set();
    const others = [...set].filter((w) => w !== worker && this.alive(w) && !this.excused(w));
    if (others.length > 0)
      this.violate(
        "no command in two workers' hands",
        `${worker} sent ${key} while ${others.join(",")} was sending it`,
      );
    set.add(worker);
    this.inFlight.set(key, set);
  }

  onSendEnd(worker: string, key: string | null): void {
    if (key) this.inFlight.get(key)?.delete(worker);
  }

  onClaimStart(worker: string, act: Activity | undefined): void {
    if (!act || (act.role !== "recover" && act.role !== "background")) return;
    // Own-recovery race: this worker's recovery claims while one of its own calls holds an open command.
    for (const other of this.activities) {
      if (other.worker !== worker || other.role !== "call") continue;
      if ([...this.holds.entries()].some(([, set]) => set.has(other))) return void this.cover("own-recovery race");
    }
  }

  onJournalWrite(
    worker: string,
    act: Activity | undefined,
    method: string,
    args: unknown[],
    before: CommandRecord | undefined,
    after: CommandRecord | undefined,
    result: unknown,
  ): void {
    if (method === "renewLeases") {
      // The journal told this worker it lost these commands: its calls and waits hold them no more
      // (what they write from now on is refused by the fence — the non-owner invariant checks that).
      for (const id of result as string[])
        for (const holder of [...(this.holds.get(id) ?? [])])
          if (holder.worker === worker) this.holds.get(id)!.delete(holder);
      return;
    }
    if (method === "claim") {
      // A claim of named commands (a wait asking for its lease) that comes back without one: the journal
      // told this activity another worker has it, so it holds it no more (seed 20 run 90428).
      const returned = new Set((result as CommandRecord[]).map((r) => r.id));
      if (act) for (const id of idsOf(method, args)) if (!returned.has(id)) this.holds.get(id)?.delete(act);
      for (const r of result as CommandRecord[]) {
        for (const holder of this.holds.get(r.id) ?? []) {
          if (holder.worker === worker || !this.alive(holder.worker) || this.excused(holder.worker)) continue;
          // A recovery round lets go of a command it leaves open (no more heartbeats, recovery/recover.ts)
          // while its other commands keep the round going: that it never writes over the new owner's
          // lease is the non-owner invariant below, that it never settles it twice is "settled by one worker".
          if (holder.role === "background" || holder.role === "recover") continue;
          // It tried to renew within the lease, but the journal was slow (the schedule held the call back):
          // a lease is only as long as the longest pause (docs/guides/fleet.md); what counts is that it tried.
          const tried = this.tried.get(holder.worker)?.get(r.id);
          if (tried !== undefined && tried >= this.now() - this.leaseMs) continue;
          // Its renewal is still waiting for the journal's answer: it is trying still, the journal is slow.
          if (this.pending.get(holder.worker)?.has(r.id)) continue;
          this.violate(
            "no command in two workers' hands",
            `${worker} claimed ${r.idempotencyKey} (${r.state}) while live ${holder.worker} holds it in a ${holder.role}`,
          );
        }
        if (act) this.hold(act, r.id);
      }
      return;
    }
    const record = method === "record" ? (result as CommandRecord) : after;
    if (!record) return;
    // Invariant: no journal write by a non-owner — never over another worker's live lease.
    if (before && before.owner !== null && before.owner !== worker) {
      const live = before.leaseUntil === null || before.leaseUntil > this.now();
      if (live)
        this.violate(
          "no journal write by a non-owner",
          `${worker} wrote ${method}(${typeof args[1] === "string" ? args[1] : ""}) to ${before.idempotencyKey} owned by ${before.owner}`,
        );
    }
    // Invariant: one mover per command in a worker — its recovery never writes a command that one of
    // its own live calls or waits holds (a claim may re-stamp such a row; recovery must hand it back).
    if (act && (act.role === "recover" || act.role === "background")) {
      for (const holder of this.holds.get(record.id) ?? []) {
        if (holder.worker !== worker || (holder.role !== "call" && holder.role !== "wait")) continue;
        this.violate(
          "one mover per command",
          `${worker}'s recovery wrote ${method}(${typeof args[1] === "string" ? args[1] : ""}) to ${record.idempotencyKey} while its own ${holder.role} holds it`,
        );
      }
    }
    if (act) this.hold(act, record.id);
    if (TERMINAL_STATES.includes(record.state) && (!before || !TERMINAL_STATES.includes(before.state))) {
      const set = this.settledBy.get(record.id) ?? new Set();
      set.add(worker);
      this.settledBy.set(record.id, set);
      if (set.size > 1)
        this.violate("settled by one worker", `${record.idempotencyKey} settled by ${[...set].join(" and ")}`);
    }
  }

  /** After every step: at most one paid effect per business command, ever; 0 × 429 from our own pacing. */
  checkServer(emulator: Emulator): void {
    const effects = emulator.control.effects();
    for (let i = this.effectsSeen; i < effects.length; i++) {
      const e = effects[i];
      if (!PAID_EFFECTS.has(e.kind) || e.idempotency_key === null) continue;
      const key = `${e.kind} ${e.idempotency_key}`;
      const n = (this.effectsPerKey.get(key) ?? 0) + 1;
      this.effectsPerKey.set(key, n);
      if (n > 1) this.violate("at most one effect per business command", `${n} × ${key}`);
    }
    this.effectsSeen = effects.length;
    const requests = emulator.control.requests();
    for (let i = this.requestsSeen; i < requests.length; i++) {
      const r = requests[i];
      if (r.fault) this.cover(`fault ${r.fault}`);
      if (r.status === 429 && r.fault === null)
        this.violate("0 × 429 from our own pacing", `${r.method} ${r.path} at ${r.at}`);
    }
    this.requestsSeen = requests.length;
  }

  /** At the end: every command settled or needs_manual_check within the documented bound. */
  checkSettled(records: CommandRecord[], boundMs: number): void {
    for (const r of records) {
      if (TERMINAL_STATES.includes(r.state) || r.state === "needs_manual_check") continue;
      this.violate(
        "settled within the bound",
        `${r.idempotencyKey} still ${r.state} (owner ${r.owner}) ${boundMs} ms after the faults stopped`,
      );
    }
  }

  firstEffectAt(
    key: string,
    effects: readonly { idempotency_key: string | null; at: string; kind: string }[],
  ): number | undefined {
    const e = effects.find((x) => x.idempotency_key === key && PAID_EFFECTS.has(x.kind));
    return e ? Date.parse(e.at) : undefined;
  }
}

/** The command ids a journal call writes or renews. */
function idsOf(method: string, args: unknown[]): readonly string[] {
  if (method === "renewLeases") return args[1] as readonly string[];
  if (method === "claim") return (args[0] as { ids?: readonly string[] } | undefined)?.ids ?? [];
  return typeof args[0] === "string" ? [args[0]] : [];
}
