/**
 * The CLI against hostile answers (E5): a real loopback HTTP proxy in front of `reseller-emulator`
 * rewrites chosen responses — `null`, arrays, numbers, bodies without `data`, list items of the wrong
 * shape, invalid UTF-8 — after the emulator handled the request (so a write really happened). Every
 * command ends with a clear message and a documented exit code: never "unexpected error", never a
 * TypeError, never a purchase sent twice.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, jsonLines, runCli, seedDomains, startEmulator, tempDir, type EmulatorProcess } from "./harness";

interface Reply {
  status: number;
  body: Uint8Array | string;
  contentType?: string;
}
/** Rewrites the emulator's answer to `method path` (path relative to the base path); undefined keeps it. */
type Rewrite = (method: string, path: string, upstream: { status: number; json: unknown }) => Reply | undefined;

let emu: EmulatorProcess;
let proxy: Server;
let proxyUrl: string;
let rewrite: Rewrite = () => undefined;
const tmp = tempDir("reseller-cli-hostile-");
let n = 0;
const env = () => ({
  RESELLER_API_TOKEN: emu.token,
  RESELLER_API_BASE_URL: proxyUrl,
  RESELLER_JOURNAL: join(tmp.dir, `journal-${++n}.sqlite`),
});

async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const base = new URL(emu.baseUrl);
  const url = new URL(req.url ?? "/", base);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string" && k !== "host") headers.set(k, v);
  const upstream = await fetch(url, {
    method: req.method,
    headers,
    body: chunks.length ? Buffer.concat(chunks) : undefined,
  });
  const text = await upstream.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const path = url.pathname.slice(base.pathname.replace(/\/$/, "").length);
  const replaced = rewrite(req.method ?? "GET", path, { status: upstream.status, json });
  const out = new Headers(upstream.headers);
  out.delete("content-length");
  out.delete("content-encoding");
  if (replaced) out.set("content-type", replaced.contentType ?? "application/json");
  res.writeHead(replaced?.status ?? upstream.status, Object.fromEntries(out));
  res.end(replaced ? replaced.body : text);
}

beforeAll(async () => {
  emu = await startEmulator(["--window-ms", "1000", "--rate-limit", "300"]);
  proxy = createServer((req, res) => {
    forward(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const base = new URL(emu.baseUrl);
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${base.pathname}`;
  await seedDomains(emu, 2, "hostile-", 20);
});
afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await emu?.stop();
  tmp.cleanup();
});

const json = (status: number, value: unknown): Reply => ({ status, body: JSON.stringify(value) });

function expectNoCrash(r: { stdout: string; stderr: string }): void {
  expect(r.stderr + r.stdout).not.toMatch(/unexpected error|TypeError|SyntaxError|Cannot read propert/);
}

describe("cli: every response it reads is read totally", () => {
  const CONTEXTS: [string, Reply][] = [
    // A body that is no envelope at all (null, an array, `data: null`, invalid UTF-8) the client
    // already reports as a malformed response after its retries; these are envelopes of the wrong shape.
    ["data a list", json(200, { data: [{ environment: "test" }] })],
    ["data without environment", json(200, { data: { credential: 5 } })],
    ["an unknown environment", json(200, { data: { environment: 3 } })],
  ];
  it.each(CONTEXTS)("E5: GET /context answering %s → exit 4 with what to check, no TypeError", async (_name, reply) => {
    rewrite = (method, path) => (method === "GET" && path === "/context" ? reply : undefined);
    const r = await runCli(cli(), ["context"], env());
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/GET \/context answered 200 without a context object.*Check the base URL/s);
    expectNoCrash(r);
  });

  it("E5: GET /context with scopes and limit of the wrong type still prints the context (fields it cannot read are empty)", async () => {
    rewrite = (method, path, up) => {
      if (method !== "GET" || path !== "/context") return undefined;
      const data = (up.json as { data: Record<string, unknown> }).data;
      return json(200, { data: { ...data, credential: { scopes: "all", rate_limit_per_minute: "60" }, reseller: 7 } });
    };
    const r = await runCli(cli(), ["--json", "context"], env());
    expect(r.code).toBe(0);
    const [info] = jsonLines(r.stdout);
    expect(info).toMatchObject({ environment: "test", scopes: [], rate_limit_per_window: null, reseller_status: null });
    expectNoCrash(r);
  });

  it("E5: domains list skips listed items of the wrong shape and says how many", async () => {
    rewrite = (method, path, up) => {
      if (method !== "GET" || path !== "/domains") return undefined;
      const page = up.json as { data: unknown[] };
      return json(200, {
        ...page,
        data: [null, 5, "x", { name: "no-uuid.kz" }, { uuid: "u", name: "n", expires_at: "soon" }, ...page.data],
      });
    };
    const r = await runCli(cli(), ["--json", "domains", "list"], env());
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout).map((d) => d.name)).toEqual(
      expect.arrayContaining(["hostile-001.kz", "hostile-002.kz"]),
    );
    expect(r.stderr).toContain("5 listed item(s) without a uuid, a name or a valid expires_at were skipped");
    expectNoCrash(r);
  });

  const CHECKS: [string, Reply][] = [
    ["data as an object", json(200, { data: { name: "free-one.kz", available: true } })],
    ["entries of the wrong shape", json(200, { data: [null, { name: 5 }, { name: "free-one.kz", available: "yes" }] })],
    ["an empty data object", json(200, { data: {} })],
  ];
  it.each(CHECKS)(
    "E5: POST /domains/check answering %s → the names are unknown (exit 3), nothing invented",
    async (_n, reply) => {
      rewrite = (method, path) => (method === "POST" && path === "/domains/check" ? reply : undefined);
      const r = await runCli(cli(), ["--json", "check", "free-one.kz"], env());
      expect(r.code).toBe(3);
      const [row] = jsonLines(r.stdout);
      expect(row).toMatchObject({ subject: "free-one.kz", kind: "unknown" });
      expectNoCrash(r);
    },
  );

  it("E5/F5: POST /orders committed but answered `null` → found by external_id, done; a re-run sends nothing", async () => {
    const effects = async () =>
      (await emu.control<{ kind: string }[]>("GET", "/effects")).filter((e) => e.kind === "order.create").length;
    const before = await effects();
    rewrite = (method, path, up) =>
      method === "POST" && path === "/orders" && up.status < 300 ? json(up.status, null) : undefined;
    const journalEnv = env();
    const csv = "external_id,domain,period\ncrm-hostile-1,hostile-new.kz,1\n";
    const r = await runCli(cli(), ["--json", "register", "-"], journalEnv, csv);
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout)[0]).toMatchObject({ kind: "done" });
    expect(jsonLines(r.stdout)[0].message).toMatch(/found by external_id/);
    expectNoCrash(r);
    const again = await runCli(cli(), ["--json", "register", "-"], journalEnv, csv);
    expect(jsonLines(again.stdout)[0]).toMatchObject({ kind: "already_done" });
    expect(await effects()).toBe(before + 1);
  });

  it("G1: a journal row with timestamps another tool wrote badly is listed and shown, not a RangeError", async () => {
    rewrite = () => undefined;
    const journalEnv = env();
    const csv = "external_id,domain,period\ncrm-hostile-ts,hostile-ts.kz,1\n";
    expect((await runCli(cli(), ["--json", "register", "-"], journalEnv, csv)).code).toBe(0);
    const db = new Database(journalEnv.RESELLER_JOURNAL);
    db.prepare("UPDATE commands SET created_at = 'yesterday', updated_at = 'later'").run();
    db.close();
    const list = await runCli(cli(), ["--json", "commands", "list", "--all"], journalEnv);
    expect(list.code).toBe(0);
    expect(jsonLines(list.stdout)[0]).toMatchObject({ external_id: "crm-hostile-ts", created_at: "(invalid time)" });
    const table = await runCli(cli(), ["commands", "list", "--all"], journalEnv);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain("(invalid time)");
    expectNoCrash(list);
    expectNoCrash(table);
    expect(table.stderr).not.toContain("RangeError");
  });

  it("E5: a priced dry run whose quotes answer without a readable price counts nothing and does not crash", async () => {
    rewrite = (method, path) =>
      method === "POST" && path === "/quotes"
        ? json(200, { data: { price: { amount: 4500, currency: null } } })
        : undefined;
    const r = await runCli(
      cli(),
      ["--json", "register", "--dry-run", "-"],
      env(),
      "external_id,domain\ncrm-q-1,priced.kz\n",
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("would cost nothing");
    expectNoCrash(r);
  });
});
