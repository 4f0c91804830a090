/**
 * I7 (failures are reported already redacted) for the Redis window store against a real redis-server that requires a password: what the
 * store reports (the `store-failover` event's error) and throws never carries the password — not in
 * JSON, util.inspect, String, the stack, a pino log line or the cause — and a misspelt option name
 * is refused (a fleet would otherwise share the default key prefix).
 */
import Redis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isInvalidOptionsError, isResellerClientError } from "../../core";
import { createRedisWindowStore, type RedisWindowStoreEvent } from "../../stores/redis-window-store";
import { startRedis, type RedisServer } from "../support/redis";
import { expectNoSecret } from "./no-secret";

const RIGHT = "RightRedisPw5512";
const WRONG = "WrongRedisPw";

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
  const admin = new Redis(server.url);
  await admin.config("SET", "requirepass", RIGHT);
  admin.disconnect();
});
afterAll(async () => {
  await server?.stop();
});

const p = (now: number) => ({ limit: 8, windowMs: 3000, spacingMs: 0, guardMs: 25, now });

describe("redis window store: errors carry no credentials (I7)", () => {
  for (const how of ["a redis:// URL", "Redis options"] as const) {
    it(`I7: a wrong AUTH password (${how}) fails over with a package error that names the failure, never the password`, async () => {
      const events: RedisWindowStoreEvent[] = [];
      const store = createRedisWindowStore({
        redis:
          how === "a redis:// URL"
            ? `redis://:${WRONG}@127.0.0.1:${server.port}/0`
            : { host: "127.0.0.1", port: server.port, password: WRONG },
        failover: { commandTimeoutMs: 1000 },
        onEvent: (e) => events.push(e),
      });
      try {
        await store.reserve("k", p(1_900_000_000_000));
        expect(events.map((e) => e.type)).toEqual(["store-failover"]);
        const event = events[0] as { type: "store-failover"; error: unknown; message: string };
        expect(isResellerClientError(event.error)).toBe(true);
        // A logger that keeps only plain fields (pino outside `err`) still gets the failure and its fix.
        expect(JSON.parse(JSON.stringify(event)).message).toMatch(/password|credentials/i);
        const error = event.error as Error & { code: string; cause?: unknown };
        expect(error.code).toBe("store_unavailable");
        expect(error.message).toMatch(/password|credentials/i);
        expectNoSecret(event, WRONG);
        expectNoSecret(event.error, WRONG);
        if (error.cause !== undefined) expectNoSecret(error.cause, WRONG);
      } finally {
        await store.close();
      }
    });
  }

  it("I7: with the right password the store works (the test server really requires AUTH)", async () => {
    const events: RedisWindowStoreEvent[] = [];
    const store = createRedisWindowStore({
      redis: `redis://:${RIGHT}@127.0.0.1:${server.port}/0`,
      onEvent: (e) => events.push(e),
    });
    try {
      expect((await store.reserve("ok", p(1_900_000_000_000))).granted).toBe(true);
      expect(events).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it("I7: a store that is closed throws a package error without the URL's password", async () => {
    const store = createRedisWindowStore({ redis: `redis://:${WRONG}@127.0.0.1:${server.port}/0` });
    await store.close();
    const error = await store.reserve("k", p(1)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isResellerClientError(error)).toBe(true);
    expectNoSecret(error, WRONG);
  });

  it("I7: a malformed redis URL is refused without echoing it", () => {
    let error: unknown;
    try {
      createRedisWindowStore({ redis: `redis://:${WRONG}@127.0.0.1:99999999/0` });
    } catch (e) {
      error = e;
    }
    expect(isResellerClientError(error)).toBe(true);
    expectNoSecret(error, WRONG);
  });
});

describe("redis window store: option names", () => {
  it("I1: a misspelt option (keyPrefx) is refused naming the nearest one, before anything connects", () => {
    let error: unknown;
    try {
      createRedisWindowStore({ redis: server.url, keyPrefx: "shop:" } as never);
    } catch (e) {
      error = e;
    }
    expect(isInvalidOptionsError(error)).toBe(true);
    expect((error as Error).message).toContain("did you mean keyPrefix?");
    expect((error as { option: string }).option).toBe("keyPrefx");
  });

  it("I1: a misspelt failover option is refused too (failover.comandTimeoutMs)", () => {
    expect(() => createRedisWindowStore({ redis: server.url, failover: { comandTimeoutMs: 10 } } as never)).toThrow(
      /did you mean failover\.commandTimeoutMs\?/,
    );
  });

  it("I1: every known option is accepted", async () => {
    const store = createRedisWindowStore({
      redis: server.url,
      keyPrefix: "shop:",
      failover: { share: 0.5, commandTimeoutMs: 500, retryIntervalMs: 500 },
      ttlGraceMs: 1000,
      onEvent: () => undefined,
    });
    await store.close();
  });
});
