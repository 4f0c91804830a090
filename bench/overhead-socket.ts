/**
 * Overhead over a real socket: the emulator runs in ANOTHER process (the `reseller-emulator` CLI on
 * loopback), and this process sends sequential `GET /context` through the full client and through
 * bare openapi-fetch, both with the global fetch (undici, a real TCP connection). Each side has its
 * own key at the maximum limit (C1: 10 000) on a 1 s window, so the server's limiter never binds.
 * CPU is this process's only (process.cpuUsage): the server's work is not counted on either side.
 * Interleaved in chunks (alternating which side goes first), reported as the median of per-chunk
 * ratios. Wall time is reported twice: as measured, and without the time the client's calls waited
 * for its pacer (each attempt's `delayMs`: the rate policy's spacing, not the stack's cost).
 * Targets (issue 28): CPU ≤ 1.10×, wall ≤ 1.05×.
 *
 * A third side, the floor, is bare openapi-fetch plus what every attempt of the client must do and
 * bare openapi-fetch does not: a plain AbortController per attempt whose signal goes to fetch (the
 * attempt's timeout and the caller's abort close the socket, E4), and that timeout's timer. It is
 * reported beside the targets: the part of the ratio no client code can remove.
 *
 * Every side above shares this process. The same calls are then measured with bare openapi-fetch, the
 * floor and the client each in a process of its own (overhead-processes.ts), as applications
 * run them, and reported beside the target row for information.
 *
 * Two more sides, reported for information:
 * - the contract minimum (lib/minimal-get.ts): a hand-written GET over the platform's fetch that does
 *   what the contract asks of every attempt and nothing else, without openapi-fetch. It shows the
 *   targets are within reach of a conforming client: it is not bounded below by bare openapi-fetch.
 * - bare + busy work: bare openapi-fetch after 50 µs of busy work per call. Over loopback the next
 *   request's write also pays for waking the server's idle CPU, and that cost grows with the gap
 *   between a response and the next request; this side prints how much process CPU one µs of work
 *   between calls costs here, so an in-process µs figure can be read against the socket's.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { bareGet, clientGet, createMinimalGet, floorGet, timeChunk } from "./lib";
import { measureInSeparateProcesses } from "./overhead-processes";
import { median, rotation } from "./lib/stats";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CLI = fileURLToPath(new URL("../emulator/cli.ts", import.meta.url));
const MAX_LIMIT = 10_000; // C1
const WINDOW_MS = 1000;
/** The busy side's work before each call, µs. */
const BUSY_US = 50;

export interface SocketOverheadResult {
  name: "client-overhead-socket";
  requests: number;
  chunk: number;
  chunks: number;
  /** Median per-request wall and CPU µs of each side. */
  bareWallUs: number;
  clientWallUs: number;
  bareCpuUs: number;
  clientCpuUs: number;
  /** Median of per-chunk ratios client ÷ bare. */
  cpuRatio: number;
  wallRatio: number;
  /** The same, with the client's pacer waits left out of its wall time. */
  wallRatioNoPacerWait: number;
  /** Time the client's calls waited for the pacer (ms, all chunks). */
  pacerWaitedMs: number;
  /** The floor (bare + a plain AbortController per call, its signal to fetch, a timer) ÷ bare. */
  floorCpuRatio: number;
  floorWallRatio: number;
  /** The client ÷ the floor: what the client's own code costs on top. */
  clientOverFloorCpu: number;
  clientOverFloorWall: number;
  /** The contract minimum (a hand-written conforming GET, no openapi-fetch) ÷ bare. */
  minimalCpuRatio: number;
  minimalWallRatio: number;
  /** Bare after BUSY_US µs of busy work per call: its extra process CPU per µs of that work. */
  busyUs: number;
  busyCpuPerUs: number;
  /** Client ÷ bare with each side in a process of its own (overhead-processes.ts). */
  processesCpuRatio: number;
  processesWallRatio: number;
  processesFloorCpuRatio: number;
  processesFloorWallRatio: number;
  cpuTarget: number;
  wallTarget: number;
  cpuPass: boolean;
  wallPass: boolean;
}

interface ServedEmulator {
  child: ChildProcess;
  baseUrl: string;
  controlUrl: string;
}

/** Starts `reseller-emulator` (its source, through tsx) and reads its one JSON line. */
async function startEmulatorProcess(): Promise<ServedEmulator> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", CLI, "--window-ms", String(WINDOW_MS), "--rate-limit", String(MAX_LIMIT)],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once("line", (l) => {
      rl.close();
      resolve(l);
    });
    child.once("exit", (code) => reject(new Error(`reseller-emulator exited (${code}) before it printed: ${stderr}`)));
  });
  const info = JSON.parse(line) as { baseUrl: string; controlUrl: string };
  return { child, baseUrl: info.baseUrl, controlUrl: info.controlUrl };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  await exited;
}

const SIDES = ["bare", "floor", "client", "minimal", "busy"] as const;

/** Busy work on the main thread, as the client's own code between two requests would be. */
function busy(us: number): void {
  const until = performance.now() + us / 1000;
  while (performance.now() < until);
}

async function createKey(controlUrl: string): Promise<string> {
  const response = await fetch(`${controlUrl}/keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ environment: "test", rate_limit_per_minute: MAX_LIMIT }),
  });
  if (!response.ok) throw new Error(`POST /_emulator/keys → ${response.status}`);
  const body = (await response.json()) as { token?: string; data?: { token: string } };
  const token = body.data?.token ?? body.token;
  if (!token) throw new Error("POST /_emulator/keys: no token in the answer");
  return token;
}

export async function runSocketOverheadBench(
  options: { requests?: number; chunk?: number } = {},
): Promise<SocketOverheadResult> {
  const requests = options.requests ?? 3000;
  const chunk = options.chunk ?? 50;
  const served = await startEmulatorProcess();
  try {
    const bareToken = await createKey(served.controlUrl);
    const clientToken = await createKey(served.controlUrl);
    const floorToken = await createKey(served.controlUrl);
    const minimalToken = await createKey(served.controlUrl);
    const busyToken = await createKey(served.controlUrl);
    const bare = bareGet(served.baseUrl, bareToken);
    const floor = floorGet(served.baseUrl, floorToken);
    const busyBare = bareGet(served.baseUrl, busyToken, "busy");
    const minimal = createMinimalGet(served.baseUrl, minimalToken, { windowMs: WINDOW_MS, limit: MAX_LIMIT });
    let waited = 0;
    const client = clientGet(served.baseUrl, clientToken, { windowMs: WINDOW_MS, limit: MAX_LIMIT }, (ms) => {
      waited += ms;
    });
    const sides = {
      bare,
      floor,
      minimal: async () => {
        const r = await minimal("/context");
        if (r.status !== 200) throw new Error(`minimal GET /context → ${r.status}`);
      },
      busy: async () => {
        busy(BUSY_US);
        await busyBare();
      },
      client,
    };
    const measure = async (once: () => Promise<void>) => {
      const w = waited;
      return { ...(await timeChunk(once, chunk)), waited: waited - w };
    };
    for (let i = 0; i < 10; i++) {
      for (const side of SIDES) await measure(sides[side]); // warm-up: JIT, the connection pool
    }
    waited = 0;
    const cpu: number[] = [];
    const wall: number[] = [];
    const wallNoWait: number[] = [];
    const floorCpu: number[] = [];
    const floorWall: number[] = [];
    const overFloorCpu: number[] = [];
    const overFloorWall: number[] = [];
    const minimalCpu: number[] = [];
    const minimalWall: number[] = [];
    const busyCpuPerUs: number[] = [];
    const per = {
      bareWall: [] as number[],
      clientWall: [] as number[],
      bareCpu: [] as number[],
      clientCpu: [] as number[],
    };
    const chunks = Math.ceil(requests / chunk);
    for (let n = 0; n < chunks; n++) {
      const m: Partial<Record<keyof typeof sides, Awaited<ReturnType<typeof measure>>>> = {};
      for (const side of rotation(SIDES, n)) m[side] = await measure(sides[side]);
      const b = m.bare!;
      const c = m.client!;
      const f = m.floor!;
      if (b.cpu > 0) {
        cpu.push(c.cpu / b.cpu);
        floorCpu.push(f.cpu / b.cpu);
        minimalCpu.push(m.minimal!.cpu / b.cpu);
      }
      minimalWall.push(m.minimal!.wall / b.wall);
      busyCpuPerUs.push(((m.busy!.cpu - b.cpu) * 1000) / chunk / BUSY_US);
      if (f.cpu > 0) overFloorCpu.push(c.cpu / f.cpu);
      floorWall.push(f.wall / b.wall);
      overFloorWall.push(c.wall / f.wall);
      wall.push(c.wall / b.wall);
      wallNoWait.push((c.wall - c.waited) / b.wall);
      per.bareWall.push((b.wall / chunk) * 1000);
      per.clientWall.push((c.wall / chunk) * 1000);
      per.bareCpu.push((b.cpu / chunk) * 1000);
      per.clientCpu.push((c.cpu / chunk) * 1000);
    }
    const processes = await measureInSeparateProcesses(
      served.baseUrl,
      {
        bare: await createKey(served.controlUrl),
        floor: await createKey(served.controlUrl),
        client: await createKey(served.controlUrl),
      },
      { windowMs: WINDOW_MS, limit: MAX_LIMIT },
      requests,
      chunk,
    );
    const cpuRatio = median(cpu);
    const wallRatio = median(wall);
    const wallRatioNoPacerWait = median(wallNoWait);
    return {
      name: "client-overhead-socket",
      requests: chunks * chunk,
      chunk,
      chunks,
      bareWallUs: median(per.bareWall),
      clientWallUs: median(per.clientWall),
      bareCpuUs: median(per.bareCpu),
      clientCpuUs: median(per.clientCpu),
      cpuRatio,
      wallRatio,
      wallRatioNoPacerWait,
      pacerWaitedMs: waited,
      floorCpuRatio: median(floorCpu),
      floorWallRatio: median(floorWall),
      clientOverFloorCpu: median(overFloorCpu),
      clientOverFloorWall: median(overFloorWall),
      minimalCpuRatio: median(minimalCpu),
      minimalWallRatio: median(minimalWall),
      busyUs: BUSY_US,
      busyCpuPerUs: median(busyCpuPerUs),
      processesCpuRatio: processes.cpuRatio,
      processesWallRatio: processes.wallRatio,
      processesFloorCpuRatio: processes.floorCpuRatio,
      processesFloorWallRatio: processes.floorWallRatio,
      cpuTarget: 1.1,
      wallTarget: 1.05,
      cpuPass: cpuRatio <= 1.1,
      wallPass: wallRatio <= 1.05,
    };
  } finally {
    await stop(served.child);
  }
}

/** Prints the socket rows beside the in-process ratio and writes bench/results/client-overhead-socket.json. */
export async function reportSocketOverheadBench(
  result: SocketOverheadResult,
  inProcess?: { ratio: number; cpuRatio: number },
): Promise<string> {
  const { printTable, writeResult } = await import("./lib");
  const r3 = (n: number) => Number(n.toFixed(3));
  printTable(
    [
      {
        path: "real socket (emulator in another process)",
        requests: result.requests,
        bare_us: Number(result.bareWallUs.toFixed(1)),
        client_us: Number(result.clientWallUs.toFixed(1)),
        cpu_ratio: r3(result.cpuRatio),
        wall_ratio: r3(result.wallRatio),
        wall_ratio_no_pacer_wait: r3(result.wallRatioNoPacerWait),
        pacer_waited_ms: Math.round(result.pacerWaitedMs),
        target: `cpu ≤ ${result.cpuTarget}, wall ≤ ${result.wallTarget}`,
        pass: result.cpuPass && result.wallPass,
      },
      {
        path: "each side in its own process (as applications run it)",
        requests: result.requests,
        bare_us: "",
        client_us: "",
        cpu_ratio: r3(result.processesCpuRatio),
        wall_ratio: r3(result.processesWallRatio),
        wall_ratio_no_pacer_wait: "",
        pacer_waited_ms: "",
        target: "information (one process sees one kind of call, as a user's does)",
        pass: true,
      },
      {
        path: "the floor, each side in its own process",
        requests: result.requests,
        bare_us: "",
        client_us: "",
        cpu_ratio: r3(result.processesFloorCpuRatio),
        wall_ratio: r3(result.processesFloorWallRatio),
        wall_ratio_no_pacer_wait: "",
        pacer_waited_ms: "",
        target: "information",
        pass: true,
      },
      {
        path: "floor: bare + a plain AbortController per call, its signal to fetch, a timer",
        requests: result.requests,
        bare_us: "",
        client_us: "",
        cpu_ratio: r3(result.floorCpuRatio),
        wall_ratio: r3(result.floorWallRatio),
        wall_ratio_no_pacer_wait: "",
        pacer_waited_ms: "",
        target: "information (what every attempt needs, E4)",
        pass: true,
      },
      {
        path: "full client ÷ the floor: the client's own code",
        requests: result.requests,
        bare_us: "",
        client_us: "",
        cpu_ratio: r3(result.clientOverFloorCpu),
        wall_ratio: r3(result.clientOverFloorWall),
        wall_ratio_no_pacer_wait: "",
        pacer_waited_ms: "",
        target: "information",
        pass: true,
      },
      {
        path: "contract minimum: a hand-written conforming GET over fetch, no openapi-fetch",
        requests: result.requests,
        bare_us: "",
        client_us: "",
        cpu_ratio: r3(result.minimalCpuRatio),
        wall_ratio: r3(result.minimalWallRatio),
        wall_ratio_no_pacer_wait: "",
        pacer_waited_ms: "",
        target: "information (the targets are within a conforming client's reach when below them)",
        pass: true,
      },
      {
        path: `bare after ${result.busyUs} µs of busy work per call: process CPU per µs of that work`,
        requests: result.requests,
        bare_us: "",
        client_us: "",
        cpu_ratio: r3(result.busyCpuPerUs),
        wall_ratio: "",
        wall_ratio_no_pacer_wait: "",
        pacer_waited_ms: "",
        target: "information (above 1: work between calls also costs the server's wake-up)",
        pass: true,
      },
      ...(inProcess
        ? [
            {
              path: "in-process emulator (reported, no target)",
              requests: "",
              bare_us: "",
              client_us: "",
              cpu_ratio: r3(inProcess.cpuRatio),
              wall_ratio: r3(inProcess.ratio),
              wall_ratio_no_pacer_wait: "",
              pacer_waited_ms: "",
              target: "report",
              pass: true,
            },
          ]
        : []),
    ],
    {
      title:
        "client overhead over a real loopback socket: full client ÷ bare openapi-fetch (median of per-chunk ratios)",
    },
  );
  return writeResult("client-overhead-socket", result);
}
