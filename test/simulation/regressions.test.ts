// The shortest simulated runs that found issue 20's defects (regressions.ts), replayed exactly: each
// broke its invariant on the code before the fixes and must now run with no violation at all.
import { describe, expect, it } from "vitest";
import { runSimulation } from "./bundle";
import { REGRESSIONS } from "./regressions";

interface Line {
  name: string;
  invariant: string;
  violations: { invariant: string; detail: string }[];
}

describe("simulation regressions", async () => {
  const { stdout, stderr } = await runSimulation(["--regressions"]);
  const lines = stdout
    .trim()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Line);

  it("replays every kept regression", () => {
    expect(
      lines.map((l) => l.name),
      stderr,
    ).toEqual(REGRESSIONS.map((r) => r.name));
  });

  for (const r of REGRESSIONS) {
    it(r.name, () => {
      const line = lines.find((l) => l.name === r.name);
      expect(line?.violations.map((v) => `${v.invariant}: ${v.detail}`)).toEqual([]);
    });
  }
});
