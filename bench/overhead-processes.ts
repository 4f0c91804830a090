/**
 * The overhead row as applications run it: bare openapi-fetch, the floor and the full client each in
 * a process of its own (bench/overhead-side-child.ts), against the same emulator process. In the main
 * socket row all sides share one process, so V8 and undici see every side's calls; here each process
 * sees one kind, as a user's does. Each chunk runs the three in turn, the order rotated and reversed
 * from chunk to chunk, so all meet the same machine; ratios are medians of per-chunk ratios.
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { median, rotation } from "./lib/stats";

const CHILD = fileURLToPath(new URL("./overhead-side-child.ts", import.meta.url));

interface Chunk {
  cpu: number;
  wall: number;
}

interface Side {
  child: ChildProcess;
  run(chunk: number): Promise<Chunk>;
}

type SideName = "bare" | "floor" | "client";
const SIDES: SideName[] = ["bare", "floor", "client"];

async function startSide(side: SideName, args: string[]): Promise<Side> {
  // node --import tsx: the pid we hold is the side itself.
  const child = fork(CHILD, [side, ...args], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  await new Promise<void>((resolve, reject) => {
    const exited = (code: number | null) => reject(new Error(`the ${side} side exited (${code}) before it was ready`));
    child.once("exit", exited);
    child.once("message", () => {
      child.off("exit", exited);
      resolve();
    });
  });
  return {
    child,
    run: (chunk) =>
      new Promise<Chunk>((resolve, reject) => {
        // A side that dies mid-chunk fails the bench instead of leaving it waiting.
        const exited = (code: number | null) => reject(new Error(`the ${side} side exited (${code}) mid-chunk`));
        child.once("exit", exited);
        child.once("message", (m: Chunk & { error?: string }) => {
          child.off("exit", exited);
          if (m.error) reject(new Error(`${side} side: ${m.error}`));
          else resolve(m);
        });
        child.send({ chunk });
      }),
  };
}

export interface ProcessesOverhead {
  cpuRatio: number;
  wallRatio: number;
  /** The floor ÷ bare, each in its own process. */
  floorCpuRatio: number;
  floorWallRatio: number;
}

/** Client and floor ÷ bare, each side in its own process; `tokens` are three keys of the emulator at `baseUrl`. */
export async function measureInSeparateProcesses(
  baseUrl: string,
  tokens: Record<SideName, string>,
  pacing: { windowMs: number; limit: number },
  requests: number,
  chunk: number,
): Promise<ProcessesOverhead> {
  const common = [String(pacing.windowMs), String(pacing.limit)];
  const sides: Partial<Record<SideName, Side>> = {};
  try {
    for (const name of SIDES) sides[name] = await startSide(name, [baseUrl, tokens[name], ...common]);
    const run = sides as Record<SideName, Side>;
    for (let i = 0; i < 10; i++) for (const name of SIDES) await run[name].run(chunk); // warm-up: JIT, the pool
    const cpu: number[] = [];
    const wall: number[] = [];
    const floorCpu: number[] = [];
    const floorWall: number[] = [];
    for (let n = 0; n < Math.ceil(requests / chunk); n++) {
      const m: Partial<Record<SideName, Chunk>> = {};
      for (const name of rotation(SIDES, n)) m[name] = await run[name].run(chunk);
      const { bare, floor, client } = m as Record<SideName, Chunk>;
      if (bare.cpu > 0) {
        cpu.push(client.cpu / bare.cpu);
        floorCpu.push(floor.cpu / bare.cpu);
      }
      wall.push(client.wall / bare.wall);
      floorWall.push(floor.wall / bare.wall);
    }
    return {
      cpuRatio: median(cpu),
      wallRatio: median(wall),
      floorCpuRatio: median(floorCpu),
      floorWallRatio: median(floorWall),
    };
  } finally {
    for (const side of Object.values(sides)) side.child.kill();
  }
}
