/**
 * client.recover() (G1, G4, D3, D6, D7, F1, F4, I4, I5): after a crash or restart, finds this key's
 * journalled commands that never reached a final state and settles each one by GET — operation by
 * UUID, order by external_id — resending only with the journal's OWN Idempotency-Key and body bytes,
 * only inside the replay TTL (or past it for async domain operations, whose key → task binding is
 * durable, D7), and never creating a second business command. What cannot be decided becomes
 * `needs_manual_check` with every id a support ticket needs (F4). Every move goes through the
 * journal, whose state machine (`canTransition`) is the single authority.
 */
import {
  InvalidTransitionError,
  LeaseLostError,
  type CommandPatch,
  type CommandRecord,
  type CommandState,
  type ManualCheck,
  type WriteOptions,
} from "../journal";
import { operationRoles } from "../generated/operations";
import { DEFAULT_RECOVER, operationResourceOf, quietly, RequestAbortedError } from "../core";
import { listDomainOperations, lookupOrderByExternalId } from "./lookups";
import {
  RECOVERABLE_STATES,
  operationOf,
  pathParamsOf,
  pauseAfterJournalled429,
  planRecovery,
  requestIdsOf,
  type PlanOptions,
} from "./plan";
import type { Outcome } from "../core";
import type { RecoveryEvent } from "../core";
import type { RecoverDeps, RecoverOptions, RecoverSummary, RecoveryTransition } from "./types";

const TERMINAL: readonly CommandState[] = ["succeeded", "completed", "failed", "rejected"];
/** Moves from each state to `reconciling` (the claim: a racing process loses with InvalidTransitionError). */
const TO_RECONCILING: Partial<Record<CommandState, CommandState[]>> = {
  recorded: ["sending", "unknown", "reconciling"],
  sending: ["unknown", "reconciling"],
  unknown: ["reconciling"],
  conflict: ["reconciling"],
  reconciling: [],
  needs_manual_check: ["reconciling"],
};

/**
 * recover()'s own moves are redoable: one lost in a power cut leaves the command where the next
 * recover() finds it and settles it again (the record and the client's attempt writes, which a send
 * depends on, stay durable, G1) — so a durable store need not wait for the disk on each of them.
 */
const SETTLE: WriteOptions = { redoable: true };

/** Claimed only after every other recoverable state (fleet mode). */
const LATER: readonly CommandState[] = ["accepted", "needs_manual_check"];

class Skip extends Error {}

/** Commands read per listByState() page outside fleet mode. */
const PAGE = 500;

export async function recoverCommands(deps: RecoverDeps, options: RecoverOptions = {}): Promise<RecoverSummary> {
  const { journal, clock, redactor } = deps;
  const plan: PlanOptions = {
    replayTtlMs: options.replayTtlMs ?? DEFAULT_RECOVER.replayTtlMs,
    safetyMarginMs: options.safetyMarginMs ?? DEFAULT_RECOVER.safetyMarginMs,
    asyncResendPastTtl: options.asyncResendPastTtl ?? DEFAULT_RECOVER.asyncResendPastTtl,
  };
  const emit = (e: RecoveryEvent) => {
    try {
      quietly(options.onEvent?.(redactor.value(e)));
    } catch {
      // a broken logger must not change what recovery does
    }
  };
  const states =
    (options.recheckManual ?? DEFAULT_RECOVER.recheckManual)
      ? [...RECOVERABLE_STATES, "needs_manual_check" as const]
      : RECOVERABLE_STATES;
  const staleAfterMs = options.staleAfterMs ?? DEFAULT_RECOVER.staleAfterMs;
  const maxCommands = options.maxCommands ?? DEFAULT_RECOVER.maxCommands;
  const { leases, holders } = deps;
  // Continuous recovery: accepted commands polled lately wait for their next check (F1), left out below.
  const notDue = deps.schedule?.notDue(clock.now()) ?? [];
  const lease = leases?.lease;
  /**
   * The atomic half of "never take what a call of this process holds": in the same synchronous
   * step, rows a call or a wait holds are handed back untouched (the claim only re-stamped our own
   * lease on them; nothing else is written) and the rest become recovery's (I6: one mover).
   */
  const take = (rows: CommandRecord[]): CommandRecord[] => {
    if (!holders) return rows;
    const taken = holders.enterRecovery(rows.map((r) => r.id));
    return rows.filter((r) => taken.has(r.id));
  };
  let records: CommandRecord[];
  // G4: commands left out only for being newer than staleAfterMs are reported, never silently passed over.
  const tooRecent: RecoverSummary["tooRecent"] = [];
  if (leases) {
    // Fleet mode: one atomic claim takes the batch — expired leases, our own, and unowned commands
    // past staleAfterMs — so a live worker's command is never touched and each has one recoverer.
    const claim = async (only: readonly CommandState[], limit: number) => {
      const claimed = await journal.claim({
        ...leases.lease,
        apiKeyId: deps.apiKeyId,
        environment: deps.environment,
        states: only,
        limit,
        unownedStaleAfterMs: staleAfterMs,
        // A first filter only; take() decides, after the claim, with what is held at that moment.
        excludeIds: [...leases.busy(), ...(holders?.busy() ?? []), ...notDue],
      });
      return take(claimed);
    };
    // Commands that may not have reached the server first, then accepted ones waiting for their
    // operation: polling a backlog of accepted work must not hold a dead worker's commands back.
    const urgent = states.filter((st) => !LATER.includes(st));
    records = await claim(urgent, maxCommands);
    const later = states.filter((st) => LATER.includes(st));
    if (records.length < maxCommands && later.length > 0) {
      try {
        records = records.concat(await claim(later, maxCommands - records.length));
      } catch (error) {
        for (const r of records) holders?.leaveRecovery(r.id); // taken, never worked on: calls may have them
        throw error;
      }
    }
    for (const r of records) leases.adopt(r.id);
  } else {
    // updatedAt and leaseUntil come from the journal's own clock (Date.now by default).
    const now = Date.now();
    const skip = new Set(notDue);
    const isOurs = (r: CommandRecord) =>
      !skip.has(r.id) &&
      r.apiKeyId === deps.apiKeyId &&
      r.environment === deps.environment &&
      !(r.owner !== null && r.leaseUntil !== null && r.leaseUntil > now); // a live fleet worker's
    const isStale = (r: CommandRecord) => staleAfterMs <= 0 || r.updatedAt <= now - staleAfterMs;
    const held = new Set(holders?.busy()); // this process's own calls and waits: not left for a later recover()
    // A bounded read: pages of the oldest commands until enough are eligible (never the whole backlog).
    const wanted = maxCommands + held.size;
    const eligible: CommandRecord[] = [];
    const seen = new Set<string>();
    for (let after: CommandRecord | undefined; eligible.length < wanted;) {
      const limit = Math.min(PAGE, wanted);
      const page = await journal.listByState(states, {
        limit,
        after: after && { createdAt: after.createdAt, id: after.id },
      });
      let fresh = 0;
      for (const r of page) {
        if (seen.has(r.id)) continue; // a store that does not page returns everything every time
        seen.add(r.id);
        fresh += 1;
        if (!isOurs(r)) continue;
        if (isStale(r)) eligible.push(r);
        else if (!held.has(r.id)) tooRecent.push({ commandId: r.id, staleAt: r.updatedAt + staleAfterMs });
      }
      if (page.length !== limit || fresh === 0) break; // the last page
      after = page.at(-1);
    }
    // G4/I5: a command one of this client's calls is sending stays with that call (two movers would clash).
    const taken = take(eligible.slice(0, wanted));
    records = taken.slice(0, maxCommands);
    for (const r of taken.slice(maxCommands)) holders?.leaveRecovery(r.id);
  }
  const leave = (id: string) => {
    leases?.release(id);
    holders?.leaveRecovery(id);
  };
  const summary: RecoverSummary = {
    examined: records.length,
    resolved: [],
    manual: [],
    stillPending: [],
    skipped: [],
    tooRecent,
  };
  let next = 0;
  try {
    emit({ type: "recovery-start", examined: records.length, apiKeyId: deps.apiKeyId });
    if (records.length === 0) return summary;

    // C12: the previous process may have been honouring a Retry-After when it died.
    const pauseUntil = pauseAfterJournalled429(records, options.pauseAfter429Ms ?? deps.windowMs);
    if (pauseUntil > clock.now()) {
      emit({ type: "recovery-pause", untilMs: pauseUntil, reason: "journalled-429" });
      await clock.sleep(pauseUntil - clock.now(), options.signal);
    }

    // The first lane that fails ends the round — but only once every lane has let go of what it
    // holds: a lane still running after recover() returned would take commands the round already
    // handed back, which a call or wait of this process may hold by then (I6: one mover).
    let failed: { error: unknown } | undefined;
    const lane = async () => {
      while (!failed && next < records.length) {
        const record = records[next++];
        if (options.signal?.aborted) {
          leave(record.id);
          summary.skipped.push({ commandId: record.id, reason: "aborted" });
          continue;
        }
        if (holders && !holders.startRecovery(record.id)) {
          // I6: a call or wait of this client took it back before any lane started on it; it moves it.
          leave(record.id);
          const reason = "taken back by a call or wait of this client, which settles it";
          summary.skipped.push({ commandId: record.id, reason });
          emit({ type: "recovery-skip", commandId: record.id, operationId: record.operationId, reason });
          continue;
        }
        try {
          await recoverOne(record);
        } catch (thrown) {
          leave(record.id);
          const error = thrown instanceof RequestAbortedError ? new Skip("aborted") : thrown;
          if (error instanceof Skip || error instanceof InvalidTransitionError || error instanceof LeaseLostError) {
            const reason =
              error instanceof Skip
                ? error.message
                : error instanceof LeaseLostError
                  ? `taken over by worker ${error.currentOwner ?? "?"} (this worker's lease ran out)`
                  : `claimed elsewhere (${error.message})`;
            summary.skipped.push({ commandId: record.id, reason });
            emit({ type: "recovery-skip", commandId: record.id, operationId: record.operationId, reason });
            continue;
          }
          failed ??= { error };
          return;
        }
        leave(record.id); // settled or left open: ours until the lease runs out, no more heartbeats
      }
    };
    await Promise.all(
      Array.from(
        { length: Math.max(1, Math.min(options.concurrency ?? DEFAULT_RECOVER.concurrency, records.length)) },
        lane,
      ),
    );
    if (failed) throw failed.error;
    return summary;
  } finally {
    for (let i = next; i < records.length; i++) leave(records[i].id); // never reached: a pause was aborted, or a lane failed
  }

  async function recoverOne(record: CommandRecord): Promise<void> {
    const from = record.state;
    const decision = planRecovery(record, clock.now(), plan);
    emit({
      type: "recovery-step",
      commandId: record.id,
      operationId: record.operationId,
      from,
      action: decision.action,
    });
    const extraIds: (string | undefined)[] = [];
    let note: string | undefined;
    switch (decision.action) {
      case "manual":
        await claim(record);
        return manual(record, from, decision.reason, extraIds);
      case "poll_operation":
        return poll(record, from, decision.operationUuid);
      case "lookup_order": {
        await claim(record);
        const found = await lookupOrderByExternalId(deps.call, decision.externalId, options.signal);
        extraIds.push(found.requestId);
        if (found.kind === "found") {
          const order = found.order;
          const to = await move(record.id, "succeeded", {
            response: { status: 200, body: redactor.value({ data: order }) },
            resources: typeof order.uuid === "string" ? { orderUuid: order.uuid } : {},
            reconciliation: `order found by external_id ${decision.externalId}; not created again (I4, F5)`,
          });
          return void report(record, from, to);
        }
        if (found.kind === "failed") {
          await move(record.id, "unknown", {
            reconciliation: `order lookup failed (${found.why}); do not create it again`,
          });
          return void pending(record, from, "unknown", `order lookup by external_id failed: ${found.why}`);
        }
        if (!decision.resendAllowed) {
          return manual(
            record,
            from,
            `no order with external_id ${decision.externalId} and the replay TTL has passed: do not create it again before a manual check (D7)`,
            extraIds,
          );
        }
        await move(record.id, "unknown", {
          reconciliation: `no order with external_id ${decision.externalId}: resending the same key and bytes`,
        });
        return resend(record, from, note);
      }
      case "resend": {
        await claim(record); // a racing recoverer loses here, before anything is sent
        if (decision.pastTtl) {
          // Seed 000: after the TTL, reconcile against the domain's operations first; D7 then makes
          // the same key + bytes return the bound task rather than start a second one.
          const domainUuid = pathParamsOf(operationOf(record)!, record.path)?.domainUuid;
          if (domainUuid) {
            const ops = await listDomainOperations(deps.call, domainUuid, record.createdAt, options.signal);
            extraIds.push(ops.requestId);
            note = `past the replay TTL; domain operations since the command: ${ops.uuids.join(", ") || "none"}; resent with the same key (D7)`;
          }
          await move(record.id, "unknown", {
            reconciliation: note ?? "past the replay TTL; resent with the same key (D7)",
          });
        }
        return resend(record, from, note);
      }
    }
  }

  /** Walks the command to `reconciling` (the claim) from wherever it is. */
  async function claim(record: CommandRecord): Promise<void> {
    const path = TO_RECONCILING[record.state];
    if (!path) throw new Skip(`state ${record.state} cannot be reconciled`);
    for (const s of path) await journal.transition(record.id, s, undefined, lease, SETTLE);
  }

  async function move(id: string, to: CommandState, patch?: CommandPatch): Promise<CommandState> {
    const rec = await journal.transition(id, to, patch, lease, SETTLE);
    return rec.state;
  }

  /** Resends (or sends) through the client's own call path with the journal's key and bytes (D3). */
  async function resend(record: CommandRecord, from: CommandState, note?: string): Promise<void> {
    const op = operationOf(record)!;
    const current = await journal.get(record.id);
    if (!current) throw new Skip("command disappeared from the journal");
    if (current.state === "reconciling") await journal.transition(record.id, "unknown", undefined, lease, SETTLE);
    else if (current.state === "needs_manual_check") {
      await journal.transition(record.id, "reconciling", undefined, lease, SETTLE);
      await journal.transition(record.id, "unknown", undefined, lease, SETTLE);
    }
    const params = pathParamsOf(op, record.path);
    if (!params) return manual(record, from, `journalled path ${record.path} does not match ${op.path}`, []);
    const args: Record<string, unknown> = { ...params };
    if (record.body !== null) args.body = record.body; // exact bytes: the client sends a Uint8Array untouched
    let outcome: Outcome;
    try {
      outcome = await deps.call(op.operationId, args, {
        idempotencyKey: record.idempotencyKey,
        signal: options.signal,
      });
    } catch (error) {
      if (error instanceof InvalidTransitionError || error instanceof LeaseLostError) throw error; // another process moved it first
      if (error instanceof RequestAbortedError) throw new Skip("aborted");
      // A local refusal (e.g. a journalled path that no longer validates, A9): never work around it
      // with other bytes or another key — a human decides (F4).
      return manual(record, from, `resend refused locally: ${redactor.text(describe(error))}`, []);
    }
    // The journal refused the resend's write: another mover has the command now, it is theirs to report.
    if (outcome.journalRace) throw new Skip(`journal race on the resend: ${outcome.journalRace.message}`);
    const ids = outcome.attempts.map((a) => a.requestId);
    const after = (await journal.get(record.id))!;
    switch (after.state) {
      case "accepted": {
        const uuid = outcome.kind === "accepted" ? outcome.operationUuid : after.resources.operationUuid;
        if (uuid) return poll(after, from, uuid);
        return void pending(record, from, "accepted", "accepted; operation UUID unknown");
      }
      case "conflict":
        // D6: still processing (or another fingerprint) — never a new key; a human checks it (F4).
        await journal.transition(record.id, "reconciling", undefined, lease, SETTLE);
        return manual(
          after,
          from,
          "409 conflict on the resend with the same key and bytes: the first attempt is still processing or stuck (D6); ask support",
          ids,
        );
      case "unknown":
        return void pending(
          after,
          from,
          "unknown",
          `resend outcome unknown (${outcome.kind === "unknown" ? outcome.reason : outcome.kind})`,
        );
      default:
        if (TERMINAL.includes(after.state)) return void report(after, from, after.state, note);
        return void pending(after, from, after.state, `after resend: ${outcome.kind}`);
    }
  }

  /** F1/F3: one GET of the operation; only completed and a confirmed failed end the command. */
  async function poll(record: CommandRecord, from: CommandState, operationUuid: string): Promise<void> {
    const outcome = await deps.call(operationRoles.pollOperation, { operationUuid }, { signal: options.signal });
    if (outcome.kind === "succeeded") {
      const op = operationResourceOf(outcome.data);
      if (op && (op.status === "completed" || op.status === "failed")) {
        deps.schedule?.done(record.id);
        const to = await move(record.id, op.status, { response: { status: 200, body: redactor.value({ data: op }) } });
        return void report(record, from, to);
      }
      if (op) await move(record.id, "accepted", { response: { status: 200, body: redactor.value({ data: op }) } });
      deps.schedule?.stillRunning(record.id, outcome.data, clock.now());
      // F3: pending, processing, uncertain and statuses we do not know are not failures.
      return void pending(record, from, "accepted", `operation ${operationUuid} is ${op?.status ?? "unreadable"}`);
    }
    if (outcome.kind === "rejected" && outcome.status === 404) {
      deps.schedule?.done(record.id);
      return manual(
        record,
        from,
        `operation ${operationUuid} is not visible (404)`,
        outcome.attempts.map((a) => a.requestId),
      );
    }
    deps.schedule?.stillRunning(record.id, undefined, clock.now()); // a failed poll: back off too
    return void pending(
      record,
      from,
      "accepted",
      `operation poll: ${outcome.kind}${"status" in outcome && outcome.status ? ` ${outcome.status}` : ""}`,
    );
  }

  async function manual(
    record: CommandRecord,
    from: CommandState,
    reason: string,
    extraIds: (string | undefined)[],
  ): Promise<void> {
    const fresh = (await journal.get(record.id)) ?? record;
    const params = pathParamsOf(operationOf(record)!, record.path) ?? {};
    const check: ManualCheck = {
      reason,
      requestIds: requestIdsOf(fresh, extraIds),
    };
    const operationUuid = fresh.resources.operationUuid;
    const domainUuid = fresh.resources.domainUuid ?? params.domainUuid;
    const orderUuid = fresh.resources.orderUuid;
    if (operationUuid) check.operationUuid = operationUuid;
    if (domainUuid) check.domainUuid = domainUuid;
    if (orderUuid) check.orderUuid = orderUuid;
    if (fresh.state !== "reconciling" && fresh.state !== "accepted") {
      for (const s of TO_RECONCILING[fresh.state] ?? [])
        await journal.transition(record.id, s, undefined, lease, SETTLE);
    }
    await journal.transition(
      record.id,
      "needs_manual_check",
      { manualCheck: check, reconciliation: reason },
      lease,
      SETTLE,
    );
    summary.manual.push({ ...base(record, from, "needs_manual_check"), manualCheck: check });
    emit({
      type: "recovery-result",
      commandId: record.id,
      operationId: record.operationId,
      idempotencyKey: record.idempotencyKey,
      from,
      to: "needs_manual_check",
      note: reason,
      manualCheck: check,
    });
  }

  function report(record: CommandRecord, from: CommandState, to: CommandState, note?: string): void {
    if (TERMINAL.includes(to)) summary.resolved.push(base(record, from, to));
    else summary.stillPending.push({ ...base(record, from, to), reason: note ?? to });
    emit({ type: "recovery-result", ...base(record, from, to), note });
  }

  function pending(record: CommandRecord, from: CommandState, to: CommandState, reason: string): void {
    summary.stillPending.push({ ...base(record, from, to), reason });
    emit({ type: "recovery-result", ...base(record, from, to), note: reason });
  }
}

function base(record: CommandRecord, from: CommandState, to: CommandState): RecoveryTransition {
  return { commandId: record.id, operationId: record.operationId, idempotencyKey: record.idempotencyKey, from, to };
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
