// The soak in small (bench/soak.ts runs 1,000 commands and 3 kills): 150 commands, one SIGKILL and
// restart of the client process, faults of every kind on ≥ 20 % of the commands. Every invariant of
// the soak must hold: G1/I5 nothing lost, I4/D3 one execution per command and never a changed key or
// byte, C12 nothing sent before a Retry-After elapsed, H2 no secret in the journal file.
import { describe, expect, it } from "vitest";
import { runSoak } from "../../bench/soak";

describe("soak (small)", () => {
  it("G1/I4/I5/D3/C12/H2: 150 commands, faults of every kind, one SIGKILL/restart → every invariant holds", async () => {
    const result = await runSoak({ commands: 150, killCycles: 1, seed: 4242, maxMs: 150_000 });
    expect(result.failures, JSON.stringify({ states: result.invariants.byState, fired: result.faultsFired })).toEqual(
      [],
    );
    expect(result.kills.length).toBe(1);
    expect(result.invariants.recorded).toBe(150);
    expect(result.faultShare).toBeGreaterThanOrEqual(0.2);
  }, 180_000);
});
