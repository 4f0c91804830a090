/**
 * I5: the command state machine, edge by edge. Every allowed move is listed explicitly here (an
 * independent copy of the table, so a silent change to command-state.ts fails a test).
 */
import { describe, expect, it } from "vitest";
import {
  COMMAND_STATES,
  LOCK_HOLDING_STATES,
  TERMINAL_STATES,
  allowedTransitions,
  assertAttemptMove,
  assertTransition,
  canMoveWithAttempt,
  canTransition,
  holdsLock,
  isCommandState,
  isTerminal,
} from "../../journal";
import { InvalidTransitionError, type CommandState } from "../../journal";

const EXPECTED: [CommandState, CommandState][] = [
  ["recorded", "sending"],
  ["sending", "sending"],
  ["sending", "succeeded"],
  ["sending", "accepted"],
  ["sending", "rejected"],
  ["sending", "conflict"],
  ["sending", "unknown"],
  ["accepted", "accepted"],
  ["accepted", "completed"],
  ["accepted", "failed"],
  ["accepted", "unknown"],
  ["accepted", "needs_manual_check"],
  ["unknown", "reconciling"],
  ["conflict", "reconciling"],
  ["reconciling", "succeeded"],
  ["reconciling", "accepted"],
  ["reconciling", "completed"],
  ["reconciling", "failed"],
  ["reconciling", "rejected"],
  ["reconciling", "unknown"],
  ["reconciling", "needs_manual_check"],
  ["reconciling", "sending"],
  ["needs_manual_check", "reconciling"],
  ["needs_manual_check", "completed"],
  ["needs_manual_check", "failed"],
];

describe("I5: command state machine", () => {
  it.each(EXPECTED)("I5: %s → %s is allowed", (from, to) => {
    expect(canTransition(from, to)).toBe(true);
    expect(() => assertTransition(from, to)).not.toThrow();
  });

  it("I5: nothing else is allowed (all 121 pairs checked against the table)", () => {
    const allowed = new Set(EXPECTED.map(([a, b]) => `${a}>${b}`));
    let forbidden = 0;
    for (const from of COMMAND_STATES) {
      for (const to of COMMAND_STATES) {
        expect(canTransition(from, to), `${from} → ${to}`).toBe(allowed.has(`${from}>${to}`));
        if (!allowed.has(`${from}>${to}`)) forbidden++;
      }
    }
    expect(forbidden).toBe(121 - EXPECTED.length);
    expect(Object.values(allowedTransitions).flat()).toHaveLength(EXPECTED.length);
  });

  it.each([
    ["recorded", "succeeded", "a command is never done without being sent"],
    ["recorded", "accepted", "acceptance needs a response"],
    ["sending", "failed", "E4: a timeout/5xx is unknown, not failed"],
    ["sending", "completed", "F1: 202 is acceptance, not the registry's result"],
    ["unknown", "sending", "G4: reconcile before any resend"],
    ["unknown", "failed", "E4: unknown is never failed without reconciliation"],
    ["conflict", "sending", "G5: a 409 is reconciled, never bypassed"],
    ["accepted", "sending", "F4: never a second command after acceptance"],
    ["needs_manual_check", "sending", "F4: no automatic purchase after a manual check request"],
    ["needs_manual_check", "succeeded", "manual checks resolve an async outcome"],
    ["reconciling", "recorded", "a command is never re-recorded"],
  ] as [CommandState, CommandState, string][])("I5: %s → %s is forbidden (%s)", (from, to) => {
    expect(canTransition(from, to)).toBe(false);
    const err = (() => {
      try {
        assertTransition(from, to);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(InvalidTransitionError);
    expect(err).toMatchObject({ from, to });
  });

  it("I5: terminal states have no way out", () => {
    expect([...TERMINAL_STATES].sort()).toEqual(["completed", "failed", "rejected", "succeeded"]);
    for (const t of TERMINAL_STATES) {
      expect(isTerminal(t)).toBe(true);
      for (const to of COMMAND_STATES) expect(canTransition(t, to)).toBe(false);
    }
    for (const s of COMMAND_STATES.filter((s) => !TERMINAL_STATES.includes(s))) {
      expect(isTerminal(s)).toBe(false);
      expect(allowedTransitions[s].length).toBeGreaterThan(0); // no dead end outside the terminals
    }
  });

  it("I6/F4: every non-terminal state holds the domain lock, including needs_manual_check", () => {
    expect([...LOCK_HOLDING_STATES].sort()).toEqual(
      ["accepted", "conflict", "needs_manual_check", "reconciling", "recorded", "sending", "unknown"].sort(),
    );
    for (const s of COMMAND_STATES) expect(holdsLock(s)).toBe(!isTerminal(s));
  });

  it("I5: every terminal state is reachable from recorded", () => {
    const seen = new Set<CommandState>(["recorded"]);
    const queue: CommandState[] = ["recorded"];
    while (queue.length)
      for (const n of allowedTransitions[queue.shift()!])
        if (!seen.has(n)) {
          seen.add(n);
          queue.push(n);
        }
    expect([...seen].sort()).toEqual([...COMMAND_STATES].sort());
  });

  it("isCommandState accepts exactly the eleven states", () => {
    for (const s of COMMAND_STATES) expect(isCommandState(s)).toBe(true);
    for (const v of ["pending", "awaiting_registry", "", "FAILED", 1, null, undefined])
      expect(isCommandState(v)).toBe(false);
  });

  it("I5: an attempt write moves through sending — exactly from recorded, reconciling and sending, to sending's targets", () => {
    const from: CommandState[] = ["recorded", "reconciling", "sending"];
    const to: CommandState[] = ["sending", "succeeded", "accepted", "rejected", "conflict", "unknown"];
    for (const f of COMMAND_STATES) {
      for (const t of COMMAND_STATES) {
        const want = from.includes(f) && to.includes(t);
        expect(canMoveWithAttempt(f, t), `${f} → (sending) → ${t}`).toBe(want);
        if (!want) expect(() => assertAttemptMove(f, t)).toThrow(InvalidTransitionError);
      }
    }
  });
});
