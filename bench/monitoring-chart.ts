/**
 * Renders docs/guides/monitoring.svg from the metrics of a real run: the in-process emulator and an
 * instrumented client share a VirtualClock (five simulated minutes in about a second), the SDK's
 * metric reader collects every 10 s of simulated time, and the three panels the monitoring guide
 * recommends are drawn from those exports: window utilisation, pacer wait, unknown outcomes and
 * manual checks. Not a benchmark: `npm run docs:monitoring-chart` (deterministic for a seed).
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { AggregationTemporality, MeterProvider, MetricReader, type MetricData } from "@opentelemetry/sdk-metrics";
import { createEmulator } from "../emulator/public";
import { METRIC, ATTR, otelTelemetry } from "../otel/index";
import { VirtualClock } from "../src/index";
import { createResellerClient } from "../src/index";
import { createMemoryJournal } from "../stores/memory-journal";
import { runWhenDirect } from "./lib/direct";
import { seeded } from "../test/client/harness";

/** Collects on demand (no export timer: the run is on a virtual clock). */
class PullReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected onForceFlush(): Promise<void> {
    return Promise.resolve(); // nothing buffered: collect() reads the SDK directly
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export interface Sample {
  /** Seconds since the run started (simulated). */
  t: number;
  utilization: number;
  /** Cumulative pacer wait, s, and the number of attempts that waited. */
  pacerWaitS: number;
  pacerWaits: number;
  unknown: number;
  manualChecks: number;
  rateLimited: number;
}

const sumOf = (
  metrics: MetricData[],
  name: string,
  where: Record<string, string> = {},
  field?: "sum" | "count",
): number => {
  const m = metrics.find((x) => x.descriptor.name === name);
  let total = 0;
  for (const p of m?.dataPoints ?? []) {
    if (!Object.entries(where).every(([k, v]) => p.attributes[k] === v)) continue;
    const v = p.value as number | { sum?: number; count: number };
    total += typeof v === "number" ? v : field ? (v[field] ?? 0) : 0;
  }
  return total;
};

/**
 * One run: 60 requests per 60 s window on the key; the offered load is half the limit, then 1.5 times
 * it (minutes 1–2.5: the pacer holds the excess, utilisation saturates), then back to half. A third of
 * the webhook creates lose their answer (unknown: never resent, x-unknown-outcome report); recover()
 * at minute 4, once no call is in flight, turns those into manual checks.
 */
export async function collectMonitoringRun(options: { minutes?: number; seed?: number } = {}): Promise<Sample[]> {
  const minutes = options.minutes ?? 5;
  const clock = new VirtualClock();
  const random = seeded(options.seed ?? 42);
  const emulator = createEmulator({ clock, random, defaultRateLimit: 60 });
  const key = emulator.control.createKey({ environment: "test", rate_limit_per_minute: 60 });
  const domain = emulator.control.createDomain({ token: key.token, name: "monitoring.kz" });
  emulator.control.addFault({
    method: "POST",
    path: "/webhooks",
    kind: "reset_after",
    probability: 0.35,
    times: 10_000,
  });
  const reader = new PullReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const client = createResellerClient({
    baseUrl: "http://127.0.0.1/api/reseller/v1",
    token: key.token,
    fetch: emulator.fetch,
    clock,
    random,
    journal: createMemoryJournal(),
    telemetry: otelTelemetry({ meterProvider }),
  });
  await client.context.get();
  const start = clock.now();
  const end = start + minutes * 60_000;
  const samples: Sample[] = [];
  const inFlight: Promise<unknown>[] = [];
  let stopped = false;

  const sampler = (async () => {
    for (;;) {
      const { resourceMetrics } = await reader.collect();
      const metrics = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
      samples.push({
        t: (clock.now() - start) / 1000,
        utilization: sumOf(metrics, METRIC.windowUtilization),
        pacerWaitS: sumOf(metrics, METRIC.pacerWait, {}, "sum"),
        pacerWaits: sumOf(metrics, METRIC.pacerWait, {}, "count"),
        unknown: sumOf(metrics, METRIC.outcomes, { [ATTR.outcomeKind]: "unknown" }),
        manualChecks: sumOf(metrics, METRIC.journalCommandCount, { [ATTR.commandState]: "needs_manual_check" }),
        rateLimited: sumOf(metrics, METRIC.rateLimited),
      });
      if (stopped) return;
      await clock.sleep(10_000);
    }
  })();

  let n = 0;
  let recovered = false;
  while (clock.now() < end) {
    const minute = (clock.now() - start) / 60_000;
    const perMinute = minute >= 1 && minute < 2.5 ? 90 : 30;
    n += 1;
    inFlight.push(
      n % 10 === 0
        ? client.webhooks.create({ body: { url: `https://hooks.example/${n}`, events: ["operation.completed"] } })
        : client.domains.get({ domainUuid: domain.uuid }),
    );
    if (minute >= 4 && !recovered) {
      // recover() is for commands no live call owns: let the in-flight ones settle first.
      recovered = true;
      await Promise.all(inFlight);
      await client.recover();
    }
    await clock.sleep(60_000 / perMinute);
  }
  await Promise.all(inFlight);
  stopped = true;
  await sampler;
  await meterProvider.shutdown();
  await emulator.close();
  return samples;
}

const W = 900;
const PANEL = 210;
const PAD = { left: 64, right: 24, top: 34, bottom: 30 };

function panel(
  minutes: string,
  y0: number,
  title: string,
  samples: Sample[],
  series: { label: string; color: string; values: number[]; dashed?: boolean }[],
  yMax: number,
  yFmt: (v: number) => string,
): string {
  const tMax = samples.at(-1)?.t ?? 1;
  const x = (t: number) => PAD.left + (t / tMax) * (W - PAD.left - PAD.right);
  const y = (v: number) => y0 + PAD.top + (1 - v / yMax) * (PANEL - PAD.top - PAD.bottom);
  const out: string[] = [`<text x="${PAD.left}" y="${y0 + 20}" class="title">${title}</text>`];
  for (let i = 0; i <= 4; i++) {
    const v = (yMax * i) / 4;
    out.push(`<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(v)}" y2="${y(v)}" class="grid"/>`);
    out.push(`<text x="${PAD.left - 8}" y="${y(v) + 4}" class="tick" text-anchor="end">${yFmt(v)}</text>`);
  }
  for (let m = 0; m <= tMax / 60; m++) {
    out.push(`<text x="${x(m * 60)}" y="${y0 + PANEL - 10}" class="tick" text-anchor="middle">${m} ${minutes}</text>`);
  }
  series.forEach((s, i) => {
    const points = s.values.map((v, j) => `${x(samples[j].t).toFixed(1)},${y(Math.min(v, yMax)).toFixed(1)}`).join(" ");
    out.push(
      `<polyline points="${points}" fill="none" stroke="${s.color}" stroke-width="2"${
        s.dashed ? ' stroke-dasharray="6 4"' : ""
      }/>`,
    );
    out.push(`<rect x="${W - PAD.right - 250}" y="${y0 + 10 + i * 16}" width="12" height="3" fill="${s.color}"/>`);
    out.push(`<text x="${W - PAD.right - 232}" y="${y0 + 15 + i * 16}" class="tick">${s.label}</text>`);
  });
  return out.join("\n");
}

const CHART_WORDS = {
  en: {
    minutes: "min",
    utilisation: "Window utilisation (reseller.client.window.utilization)",
    utilisationSeries: "used ÷ limit of the open window",
    wait: "Mean pacer wait per 10 s (pacer.wait.duration sum ÷ count)",
    waitSeries: "seconds an attempt waited for its slot",
    unknown: "Unknown outcomes and manual checks",
    unknownSeries: "unknown outcomes (cumulative)",
    manualSeries: "journal: needs_manual_check",
    seconds: "s",
  },
  ru: {
    minutes: "мин",
    utilisation: "Загрузка окна (reseller.client.window.utilization)",
    utilisationSeries: "использовано ÷ лимит открытого окна",
    wait: "Среднее ожидание пейсера за 10 с (pacer.wait.duration: сумма ÷ число)",
    waitSeries: "секунды ожидания попыткой своего слота",
    unknown: "Неизвестные исходы и ручные проверки",
    unknownSeries: "неизвестные исходы (нарастающим итогом)",
    manualSeries: "журнал команд: needs_manual_check",
    seconds: "с",
  },
};

export type ChartLang = keyof typeof CHART_WORDS;

export function renderMonitoringChart(samples: Sample[], lang: ChartLang = "en"): string {
  const w = CHART_WORDS[lang];
  // Mean wait of the attempts that waited in each 10 s interval: how long the queue holds a request.
  const perInterval = samples.map((s, i) => {
    const n = i === 0 ? 0 : s.pacerWaits - samples[i - 1].pacerWaits;
    return n > 0 ? (s.pacerWaitS - samples[i - 1].pacerWaitS) / n : 0;
  });
  const waitMax = Math.max(4, Math.ceil(Math.max(...perInterval) / 4) * 4);
  const countPeak = Math.max(...samples.map((s) => Math.max(s.unknown, s.manualChecks)));
  const countMax = Math.max(4, Math.ceil(countPeak / 4) * 4);
  const body = [
    panel(
      w.minutes,
      0,
      w.utilisation,
      samples,
      [{ label: w.utilisationSeries, color: "#2563eb", values: samples.map((s) => s.utilization) }],
      1,
      (v) => `${Math.round(v * 100)} %`,
    ),
    panel(
      w.minutes,
      PANEL,
      w.wait,
      samples,
      [{ label: w.waitSeries, color: "#d97706", values: perInterval }],
      waitMax,
      (v) => `${v.toFixed(0)} ${w.seconds}`,
    ),
    panel(
      w.minutes,
      PANEL * 2,
      w.unknown,
      samples,
      [
        { label: w.unknownSeries, color: "#dc2626", values: samples.map((s) => s.unknown) },
        {
          label: w.manualSeries,
          color: "#7c3aed",
          values: samples.map((s) => s.manualChecks),
          dashed: true,
        },
      ],
      countMax,
      (v) => v.toFixed(0),
    ),
  ].join("\n");
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${PANEL * 3}" viewBox="0 0 ${W} ${
    PANEL * 3
  }" font-family="system-ui, sans-serif">
<style>.title{font-size:14px;font-weight:600;fill:#6b7280}.tick{font-size:11px;fill:#6b7280}.grid{stroke:#9ca3af;stroke-opacity:.35;stroke-width:1}</style>
${body}
</svg>
`;
}

runWhenDirect("monitoring-chart", async () => {
  const samples = await collectMonitoringRun();
  // Transparent, mid-grey text: one picture reads in the site's light and dark themes alike.
  const file = fileURLToPath(new URL("../docs/guides/monitoring.svg", import.meta.url));
  writeFileSync(file, renderMonitoringChart(samples, "en"));
  writeFileSync(
    fileURLToPath(new URL("../docs/ru/guides/monitoring.svg", import.meta.url)),
    renderMonitoringChart(samples, "ru"),
  );
  const last = samples.at(-1)!;
  process.stderr.write(
    `wrote ${file}: ${samples.length} samples, peak utilisation ${Math.max(
      ...samples.map((s) => s.utilization),
    ).toFixed(2)}, ` + `${last.unknown} unknown, ${last.manualChecks} manual checks, ${last.rateLimited} 429s\n`,
  );
  return true;
});
