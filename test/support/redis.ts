/**
 * startRedis(): a real redis-server on a free 127.0.0.1 port, no persistence, in a temp dir,
 * stopped by its own PID. Tests call it in beforeAll and stop() in afterAll.
 */
import { connect } from "node:net";
import { freePort, removeDir, requireBinary, spawnLogged, stopProcess, tempDir, waitUntil } from "./process";

export interface RedisServer {
  port: number;
  url: string;
  pid: number;
  stop(): Promise<void>;
}

const REDIS_CANDIDATES = [
  process.env.REDIS_SERVER ?? "",
  "/usr/bin/redis-server",
  "/usr/local/bin/redis-server",
].filter(Boolean);

/** PING over a raw socket: true on +PONG. */
export function redisPing(port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect({ host: "127.0.0.1", port });
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.on("error", () => done(false));
    sock.on("connect", () => sock.write("PING\r\n"));
    sock.on("data", (b) => done(b.toString().startsWith("+PONG")));
  });
}

/** `port`: restart on a known port (e.g. after stopping a server mid-test); default a free one. */
export async function startRedis(options: { port?: number } = {}): Promise<RedisServer> {
  const bin = requireBinary(REDIS_CANDIDATES, "redis-server");
  let lastError: unknown;
  for (let attempt = 0; attempt < (options.port ? 1 : 3); attempt++) {
    const port = options.port ?? (await freePort());
    const dir = await tempDir("reseller-redis-");
    const proc = spawnLogged(
      bin,
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        dir,
        "--daemonize",
        "no",
      ],
      { cwd: dir },
    );
    try {
      await waitUntil(() => redisPing(port), proc, `redis-server on port ${port}`);
    } catch (e) {
      // Most likely the port was taken between freePort() and bind: try another one.
      lastError = e;
      await stopProcess(proc.child.pid, proc.exited, "SIGTERM", 2000);
      await removeDir(dir);
      continue;
    }
    let stopped = false;
    return {
      port,
      url: `redis://127.0.0.1:${port}`,
      pid: proc.child.pid!,
      async stop() {
        if (stopped) return;
        stopped = true;
        await stopProcess(proc.child.pid, proc.exited, "SIGTERM", 5000);
        await removeDir(dir);
      },
    };
  }
  throw lastError;
}
