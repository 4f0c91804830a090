/**
 * The real-server harness itself: servers start on loopback, answer, and stop() really ends the
 * process we started (no orphan postmaster behind a wrapper) and removes its directory.
 */
import { describe, expect, it } from "vitest";
import pg from "pg";
import Redis from "ioredis";
import { startPostgres } from "../support/postgres";
import { redisPing, startRedis } from "../support/redis";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("test/support: real servers on loopback", () => {
  it("I1: startRedis() serves PING on 127.0.0.1 and stop() ends that process", async () => {
    const redis = await startRedis();
    try {
      const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
      await client.connect();
      expect(await client.ping()).toBe("PONG");
      expect(client.options.host).toBe("127.0.0.1");
      client.disconnect();
    } finally {
      await redis.stop();
    }
    expect(alive(redis.pid)).toBe(false);
    expect(await redisPing(redis.port)).toBe(false);
  });

  it("G1: startPostgres() accepts connections and stop() ends the postmaster itself", async () => {
    const server = await startPostgres();
    let backendPid = 0;
    try {
      const client = new pg.Client({ connectionString: server.connectionString });
      await client.connect();
      const res = await client.query<{ pid: number; addr: string }>(
        "SELECT pg_backend_pid() AS pid, inet_server_addr()::text AS addr",
      );
      backendPid = res.rows[0].pid;
      expect(res.rows[0].addr).toMatch(/^127\.0\.0\.1/);
      // A client still connected must not block stop() (fast shutdown, not smart).
      client.on("error", () => undefined);
      await server.stop();
    } finally {
      await server.stop();
    }
    expect(alive(server.pid)).toBe(false);
    expect(alive(backendPid)).toBe(false);
  });
});
