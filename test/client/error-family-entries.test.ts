/**
 * One error family, walked for the other entries (reseller-api/pacing, /otel, /emulator): each
 * factory and control call given bad input throws a ResellerClientError — `instanceof` and the
 * guards — with a stable code and a message that names the fix. (The main entry and /stores/* are
 * walked in error-family-walk.test.ts.)
 */
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import * as api from "../../src/index";
import { createPacer, createMemoryWindowStore } from "../../src/pacing";
import { emulatorTracer, otelTelemetry } from "../../otel/index";
import {
  createEmulator,
  isEmulatorControlError,
  seedDomains,
  startEmulatorServer,
  VirtualClock,
} from "../../emulator/public";

async function thrown(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

/** A port something already listens on (EADDRINUSE for the emulator). */
async function busyPort(): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return { port, close: () => new Promise<void>((r) => server.close(() => r())) };
}

type Case = [string, () => unknown, string, RegExp];

const pacing: Case[] = [
  ["createPacer({ windowMs: 0 })", () => createPacer({ windowMs: 0 }), "invalid_options", /windowMs must be .*> 0/],
  [
    "createPacer({ initialLimit: 1.5 })",
    () => createPacer({ initialLimit: 1.5 }),
    "invalid_options",
    /initialLimit must be a whole number/,
  ],
  [
    "createPacer({ maxConcurrency: 0 })",
    () => createPacer({ maxConcurrency: 0 }),
    "invalid_options",
    /maxConcurrency must be a whole number ≥ 1/,
  ],
  [
    "createPacer({ store: {} })",
    () => createPacer({ store: {} as never }),
    "invalid_options",
    /store must be a WindowStore \(createMemoryWindowStore\(\)/,
  ],
  [
    "createPacer({ clock: { now } })",
    () => createPacer({ clock: { now: () => 0 } as never }),
    "invalid_options",
    /clock must have now\(\) and sleep/,
  ],
  [
    "createPacer({ pause: { floorMs: -1 } })",
    () => createPacer({ pause: { floorMs: -1 } }),
    "invalid_options",
    /pause\.floorMs must be a finite number ≥ 0/,
  ],
  [
    "pacer.acquire() past its deadline",
    () => createPacer({ store: createMemoryWindowStore(), clock: new VirtualClock() }).acquire("K", undefined, -1),
    "deadline_exceeded",
    /deadline/i,
  ],
];

const otel: Case[] = [
  [
    "otelTelemetry({ tracerProvider: {} })",
    () => otelTelemetry({ tracerProvider: {} as never }),
    "invalid_options",
    /tracerProvider must be an OpenTelemetry TracerProvider \(with getTracer\(\)\)/,
  ],
  [
    "otelTelemetry({ meterProvider: 5 })",
    () => otelTelemetry({ meterProvider: 5 as never }),
    "invalid_options",
    /meterProvider must be an OpenTelemetry MeterProvider/,
  ],
  [
    "otelTelemetry({ clientName: '' })",
    () => otelTelemetry({ clientName: "" }),
    "invalid_options",
    /clientName must be a non-empty string/,
  ],
  [
    "otelTelemetry({ traces: 'yes' })",
    () => otelTelemetry({ traces: "yes" as never }),
    "invalid_options",
    /traces must be true or false/,
  ],
  [
    "emulatorTracer({ propagator: {} })",
    () => emulatorTracer({ propagator: {} as never }),
    "invalid_options",
    /propagator must be a TextMapPropagator/,
  ],
];

const emulator: Case[] = [
  [
    "createEmulator({ windowMs: -1 })",
    () => createEmulator({ windowMs: -1 }),
    "emulator_control",
    /windowMs must be a finite number of ms > 0/,
  ],
  [
    "createEmulator({ defaultRateLimit: 0 })",
    () => createEmulator({ defaultRateLimit: 0 }),
    "emulator_control",
    /defaultRateLimit must be an integer 1\.\.10000/,
  ],
  [
    "createEmulator({ language: 'de' })",
    () => createEmulator({ language: "de" as never }),
    "emulator_control",
    /language must be "ru", "en" or "kk"/,
  ],
  [
    "control.createKey({ rate_limit_per_minute: 20000 })",
    () => createEmulator().control.createKey({ environment: "test", rate_limit_per_minute: 20_000 }),
    "emulator_control",
    /rate_limit_per_minute must be 1\.\.10000/,
  ],
  [
    "control.createKey({ environment: 'prod' })",
    () => createEmulator().control.createKey({ environment: "prod" as never }),
    "emulator_control",
    /environment must be test or live/,
  ],
  [
    "control.addFault({ kind: 'nope' })",
    () => createEmulator().control.addFault({ method: "GET", path: "/context", kind: "nope" as never }),
    "emulator_control",
    /Unknown fault kind/,
  ],
  [
    "seedDomains with an unknown token",
    () => seedDomains(createEmulator(), { token: `rsl_test_${"Z".repeat(24)}.${"z".repeat(64)}`, count: 1 }),
    "emulator_control",
    /Unknown API key/,
  ],
  [
    "control.advanceClock() on the system clock",
    () => createEmulator().control.advanceClock(10),
    "emulator_control",
    /not a VirtualClock/,
  ],
  [
    "startEmulatorServer({ port: 70000 })",
    () => startEmulatorServer({ port: 70_000 }),
    "emulator_control",
    /port must be an integer 0\.\.65535 \(0 picks a free one\)/,
  ],
];

describe("error family: /pacing, /otel, /emulator with bad input", () => {
  it.each([...pacing, ...otel, ...emulator])(
    "%s → ResellerClientError with a stable code and the fix",
    async (_name, fn, code, fix) => {
      const err = await thrown(fn);
      expect(err).toBeInstanceOf(api.ResellerClientError);
      expect(api.isResellerClientError(err)).toBe(true);
      expect((err as api.ResellerClientError).code).toBe(code);
      expect((err as Error).message).toMatch(fix);
      if (code === "emulator_control") expect(isEmulatorControlError(err)).toBe(true);
      if (code === "invalid_options") expect(api.isInvalidOptionsError(err)).toBe(true);
    },
  );

  it("startEmulatorServer on a port in use → EmulatorControlError naming the port and the fix", async () => {
    const busy = await busyPort();
    try {
      const err = await thrown(() => startEmulatorServer({ port: busy.port }));
      expect(isEmulatorControlError(err)).toBe(true);
      expect(err).toBeInstanceOf(api.ResellerClientError);
      expect((err as Error).message).toContain(`127.0.0.1:${busy.port} (EADDRINUSE)`);
      expect((err as Error).message).toContain("or 0 for a free one");
    } finally {
      await busy.close();
    }
  });

  it("the control API over HTTP still answers a refused call with its status and message", async () => {
    const server = await startEmulatorServer({ port: 0 });
    try {
      const res = await fetch(`${server.controlUrl}/keys`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ environment: "prod" }),
      });
      expect(res.status).toBe(422);
      expect(await res.text()).toContain("environment must be test or live");
    } finally {
      await server.close();
    }
  });
});
