// The guide's picture comes from a real run: the chart script's run against the emulator produces the
// metrics the panels claim (saturated window, pacer waits, unknown outcomes, manual checks).
import { describe, expect, it } from "vitest";
import { collectMonitoringRun, renderMonitoringChart } from "../../bench/monitoring-chart";

describe("monitoring chart", () => {
  it("C3/F4: five simulated minutes saturate the window, make the pacer wait, and leave manual checks", async () => {
    const samples = await collectMonitoringRun({ seed: 42 });
    expect(samples.length).toBeGreaterThanOrEqual(30);
    expect(Math.max(...samples.map((s) => s.utilization))).toBe(1);
    expect(samples.every((s) => s.utilization >= 0 && s.utilization <= 1)).toBe(true);
    expect(samples.at(-1)!.pacerWaitS).toBeGreaterThan(60);
    expect(samples.at(-1)!.unknown).toBeGreaterThan(0);
    expect(samples.at(-1)!.manualChecks).toBeGreaterThan(0);
    expect(samples.at(-1)!.rateLimited).toBe(0); // C3: the pacer fits the window, so no 429 at all
    const svg = renderMonitoringChart(samples);
    expect(svg).toMatch(/^<svg /);
    for (const title of ["Window utilisation", "Mean pacer wait", "Unknown outcomes and manual checks"]) {
      expect(svg).toContain(title);
    }
    expect(svg.match(/<polyline /g)).toHaveLength(4);
    const ru = renderMonitoringChart(samples, "ru"); // the Russian guide gets Russian labels (J1)
    for (const title of ["Загрузка окна", "Среднее ожидание пейсера", "Неизвестные исходы и ручные проверки"]) {
      expect(ru).toContain(title);
    }
    expect(ru).not.toContain("Window utilisation");
  });
});
