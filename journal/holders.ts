/**
 * Which journalled commands THIS process is working on, and who: a call (by Idempotency-Key and by
 * command id) or recovery. Every check-and-take here is synchronous — one step between two awaits —
 * so recovery and a call can never both take a command (I6: one mover per command), and a second
 * call with the same key joins the first instead of sending again (D5, G4). In fleet mode the
 * lease keeper adds the cross-process half (leases); this registry is the in-process half.
 */

/** What an in-flight call settles with; undefined when it ended without an Outcome (a pre-send throw). */
type Settled = unknown;

interface CallEntry {
  promise: Promise<Settled>;
  settle: (value: Settled) => void;
}

/** A call's hold; settle() is idempotent and frees the key and the command. */
export interface CallHold {
  /** The command id this call works on, once known. */
  bind(commandId: string): void;
  settle(result?: Settled): void;
}

export interface CommandHolders {
  /**
   * The call in flight in this process with this key, if any (its promise settles with its Outcome);
   * otherwise takes the key for the caller and returns a hold. One synchronous step.
   */
  enterKey(scopedKey: string): { joined: Promise<Settled> } | { hold: CallHold };
  /** Whether recovery of this process holds `commandId` (a call must wait for whenFree()). */
  recovering(commandId: string): boolean;
  whenFree(commandId: string): Promise<void>;
  /**
   * Recovery takes the given ids: returns those no call of this process holds, now held by
   * recovery; the others are left to their calls untouched. One synchronous step.
   */
  enterRecovery(ids: readonly string[]): Set<string>;
  /**
   * Recovery starts working on `commandId`: false when a call or wait took it back meanwhile (the
   * round passes over it, then leaves it as usual). One synchronous step.
   */
  startRecovery(commandId: string): boolean;
  /**
   * A call or wait of this process takes back a command its recovery holds but has not started on
   * (I6: still one mover — recovery passes over it). True when taken: recovering() is false from
   * now on. The caller holds it (bind, enterWait) in the same synchronous step.
   */
  takeBack(commandId: string): boolean;
  leaveRecovery(commandId: string): void;
  /** A poll (operations.wait) works on `commandId`: recovery leaves it alone until release. */
  enterWait(commandId: string): () => void;
  /** Ids held by calls and waits (recovery's claim excludes them). */
  busy(): string[];
}

export function createCommandHolders(): CommandHolders {
  const byKey = new Map<string, CallEntry>();
  const callIds = new Map<string, number>();
  /**
   * Recovery's commands. `started`: a lane works on it (no take-back). `yielded`: a call or wait took
   * it back; the entry stays until the round leaves it, so no other round takes it meanwhile.
   */
  const recovery = new Map<string, { done: Promise<void>; free: () => void; started: boolean; yielded: boolean }>();

  const addCall = (id: string) => callIds.set(id, (callIds.get(id) ?? 0) + 1);
  const dropCall = (id: string) => {
    const n = (callIds.get(id) ?? 1) - 1;
    if (n <= 0) callIds.delete(id);
    else callIds.set(id, n);
  };

  return {
    enterKey(scopedKey) {
      const existing = byKey.get(scopedKey);
      if (existing) return { joined: existing.promise };
      let settle!: (value: Settled) => void;
      const promise = new Promise<Settled>((resolve) => (settle = resolve));
      const entry: CallEntry = { promise, settle };
      byKey.set(scopedKey, entry);
      let bound: string | undefined;
      let done = false;
      return {
        hold: {
          bind(commandId) {
            if (done || bound === commandId) return;
            if (bound) dropCall(bound);
            bound = commandId;
            addCall(commandId);
          },
          settle(result) {
            if (done) return;
            done = true;
            if (bound) dropCall(bound);
            if (byKey.get(scopedKey) === entry) byKey.delete(scopedKey);
            settle(result);
          },
        },
      };
    },
    recovering: (id) => {
      const r = recovery.get(id);
      return r !== undefined && !r.yielded;
    },
    whenFree: (id) => recovery.get(id)?.done ?? Promise.resolve(),
    enterRecovery(ids) {
      const taken = new Set<string>();
      for (const id of ids) {
        if (callIds.has(id) || recovery.has(id)) continue;
        let free!: () => void;
        const done = new Promise<void>((resolve) => (free = resolve));
        recovery.set(id, { done, free, started: false, yielded: false });
        taken.add(id);
      }
      return taken;
    },
    startRecovery(id) {
      const r = recovery.get(id);
      if (!r || r.yielded) return false;
      r.started = true;
      return true;
    },
    takeBack(id) {
      const r = recovery.get(id);
      if (!r || r.started || r.yielded) return false;
      r.yielded = true;
      r.free(); // whoever awaits whenFree() decides afresh
      return true;
    },
    leaveRecovery(id) {
      const r = recovery.get(id);
      if (!r) return;
      recovery.delete(id);
      r.free();
    },
    enterWait(id) {
      addCall(id);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        dropCall(id);
      };
    },
    busy: () => [...callIds.keys()],
  };
}
