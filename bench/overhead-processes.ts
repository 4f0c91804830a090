/**
 * The overhead row as applications run it: bare openapi-fetch and the full client each in a process
 * of its own (bench/overhead-side-child.ts), against the same emulator process. In the main socket
 * row all sides share one process, so V8 and undici see every side's calls; here each process sees
 * one kind, as a user's does. Chunks alternate between the two, and which goes first, so both meet
 * the same machine; the ratio is the median of per-chunk ratios.
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { median } from "./lib/stats";

const CHILD = fileURLToPath(new URL("./overhead-side-child.ts", import.meta.url));

interface Chunk {
  cpu: number;
  wall: number;
}

interface Side {
  child: ChildProcess;
  run(chunk: number): Promise<Chunk>;
}

async function startSide(side: "bare" | "client", args: string[]): Promise<Side> {
  // node --import tsx: the pid we hold is the side itself.
  const child = fork(CHILD, [side, ...args], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  await new Promise<void>((resolve, reject) => {
    child.once("message", () => resolve());
    child.once("exit", (code) => reject(new Error(`the ${side} side exited (${code}) before it was ready`)));
  });
  return {
    child,
    run: (chunk) =>
      new Promise<Chunk>((resolve, reject) => {
        child.once("message", (m: Chunk & { error?: string }) =>
          m.error ? reject(new Error(`${side} side: ${m.error}`)) : resolve(m),
        );
        child.send({ chunk });
      }),
  };
}

export interface ProcessesOverhead {
  cpuRatio: number;
  wallRatio: number;
}

/** Client ÷ bare, each side in its own process; `tokens` are two keys of the emulator at `baseUrl`. */
export async function measureInSeparateProcesses(
  baseUrl: string,
  tokens: { bare: string; client: string },
  pacing: { windowMs: number; limit: number },
  requests: number,
  chunk: number,
): Promise<ProcessesOverhead> {
  const common = [String(pacing.windowMs), String(pacing.limit)];
  const bare = await startSide("bare", [baseUrl, tokens.bare, ...common]);
  const client = await startSide("client", [baseUrl, tokens.client, ...common]).catch((error: unknown) => {
    bare.child.kill();
    throw error;
  });
  try {
    for (let i = 0; i < 10; i++) {
      await bare.run(chunk); // warm-up: JIT, the connection pool
      await client.run(chunk);
    }
    const cpu: number[] = [];
    const wall: number[] = [];
    for (let n = 0; n < Math.ceil(requests / chunk); n++) {
      const first = n % 2 === 0;
      const a = await (first ? bare : client).run(chunk);
      const b = await (first ? client : bare).run(chunk);
      const [bb, cc] = first ? [a, b] : [b, a];
      if (bb.cpu > 0) cpu.push(cc.cpu / bb.cpu);
      wall.push(cc.wall / bb.wall);
    }
    return { cpuRatio: median(cpu), wallRatio: median(wall) };
  } finally {
    bare.child.kill();
    client.child.kill();
  }
}
