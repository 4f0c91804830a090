/**
 * H2 end to end: real commands through the client — an order carrying an auth code, renewals, a
 * webhook's signing_secret (create, its replay, rotate), a ticket with an auth code and personal
 * text — into a SQLite journal and a PostgreSQL journal, then a scan of what is at rest: the raw
 * bytes of the SQLite file, its -wal and -shm read while the journal is still open (before close()
 * checkpoints), and the raw PostgreSQL rows; again after prune().
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Journal } from "../../src/index";
import { createPgJournal } from "../../stores/pg-journal";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import { setup } from "../client/harness";
import { startPostgres, type PostgresServer } from "../support/postgres";

const PASSPORT = "passport N 04 11 987654";
const URL_PASSWORD = "UrlPw-Hunter2-777";
const dir = mkdtempSync(join(tmpdir(), "reseller-secrets-at-rest-"));
let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Drives the run through the client; returns every secret it saw (token, its secret part, …). */
async function run(journal: Journal): Promise<{ secrets: string[]; commands: number }> {
  const h = setup({ environment: "live" });
  h.emulator.control.deposit(h.publicKeyId, 1_000_000_00);
  const client = h.makeClient({ journal });
  const secrets = [h.token, h.token.split(".")[1], PASSPORT];

  const auth = await client.domains.getAuthCode({ domainUuid: h.domainUuid });
  expect(auth.kind).toBe("succeeded");
  const authCode = auth.kind === "succeeded" ? (auth.data as { data: { auth_code: string } }).data.auth_code : "";
  secrets.push(authCode);
  // An order body with an auth code (as a transfer would carry): the server refuses the field, the
  // command settles as rejected — and its body must not stay behind.
  const order = await client.orders.create(
    {
      body: {
        external_id: "ext-transfer-1",
        action: "register",
        domain: "moved.kz",
        period: 1,
        auth_code: authCode,
      } as never,
    },
    { idempotencyKey: "order-with-auth-code" },
  );
  expect(["rejected", "succeeded"]).toContain(order.kind);
  const registered = await client.orders.create(
    { body: { external_id: "ext-new-1", action: "register", domain: "fresh-at-rest.kz", period: 1 } },
    { idempotencyKey: "order-plain" },
  );
  expect(["succeeded", "accepted"]).toContain(registered.kind);
  const second = h.emulator.control.createDomain({ token: h.token, name: "second-at-rest.kz" });
  for (const [i, domainUuid] of [h.domainUuid, second.uuid].entries()) {
    const renew = await client.domains.renew(
      { domainUuid, body: { period: 1 } },
      { idempotencyKey: `renew-at-rest-${i}` },
    );
    expect(["accepted", "succeeded"]).toContain(renew.kind);
  }
  const created = await client.webhooks.create(
    { body: { url: "https://hooks.example/at-rest", events: ["operation.completed"] } },
    { idempotencyKey: "hook-at-rest" },
  );
  expect(created.kind).toBe("succeeded");
  const hook = (created as { data: { data: { uuid: string; signing_secret: string } } }).data.data;
  secrets.push(hook.signing_secret);
  const replay = await h
    .makeClient({ journal })
    .webhooks.create(
      { body: { url: "https://hooks.example/at-rest", events: ["operation.completed"] } },
      { idempotencyKey: "hook-at-rest" },
    );
  expect(replay.kind).toBe("succeeded"); // a local or server replay: shows the secret again (D9)
  const rotated = await client.webhooks.rotateSecret({ webhookUuid: hook.uuid }, { idempotencyKey: "rotate-at-rest" });
  expect(rotated.kind).toBe("succeeded");
  secrets.push((rotated as { data: { data: { signing_secret: string } } }).data.data.signing_secret);
  // A webhook behind basic auth: the password in its URL must leave the body once the command settled.
  const withPassword = await client.webhooks.create(
    { body: { url: `https://hookuser:${URL_PASSWORD}@hooks.example/basic`, events: ["operation.completed"] } },
    { idempotencyKey: "hook-basic-auth" },
  );
  expect(["succeeded", "rejected"]).toContain(withPassword.kind);
  secrets.push(URL_PASSWORD);
  // Free text a reseller pastes into a ticket: the auth code and a customer's passport number.
  const ticket = await client.tickets.create(
    { body: { subject: "Transfer of moved.kz", message: `Auth code ${authCode}; registrant ${PASSPORT}.` } },
    { idempotencyKey: "ticket-at-rest" },
  );
  expect(ticket.kind).toBe("succeeded");
  const ticketUuid = (ticket as { data: { data: { uuid: string } } }).data.data.uuid;
  const message = await client.tickets.addMessage(
    { ticketUuid, body: { message: `Again: ${PASSPORT}, code ${authCode}` } },
    { idempotencyKey: "ticket-message-at-rest" },
  );
  expect(message.kind).toBe("succeeded");
  expect(secrets.every((s) => s.length >= 8)).toBe(true);
  const settled = await journal.listCommands({ limit: 100 });
  expect(settled.length).toBeGreaterThanOrEqual(8);
  await client.close();
  return { secrets, commands: settled.length };
}

/** Every secret (and the prefixes that would betray one) absent from `text`. */
function expectClean(where: string, text: string, secrets: string[]): void {
  for (const s of secrets) expect(text.includes(s), `${where}: a secret (${s.slice(0, 4)}…) is at rest`).toBe(false);
  expect(text, where).not.toMatch(/rsl_(test|live)_/);
  expect(text, where).not.toMatch(/whsec_/);
}

describe("H2: secrets at rest after real commands through the client", () => {
  it("H2: SQLite file, -wal and -shm (raw bytes, journal still open) hold no token, secret part, signing_secret, auth code or ticket text — also after prune()", async () => {
    const filename = join(dir, "journal.sqlite");
    const journal = createSqliteJournal({ filename });
    const { secrets } = await run(journal);
    const raw = () =>
      [filename, `${filename}-wal`, `${filename}-shm`]
        .map((f) => {
          try {
            return readFileSync(f).toString("latin1");
          } catch {
            return "";
          }
        })
        .join("\n");
    const before = raw();
    // The scan sees the journal's content: the renewal bodies are there as plain text.
    expect(before).toContain('{"period":1}');
    expectClean("sqlite before prune", before, secrets);
    const { pruned } = await journal.prune({ settledBefore: Date.now() + 1 });
    expect(pruned).toBeGreaterThan(0);
    expectClean("sqlite after prune", raw(), secrets);
    await journal.close();
    expectClean("sqlite after close", raw(), secrets);
  });

  it("H2: PostgreSQL rows (every column, bodies decoded) hold no token, secret part, signing_secret, auth code or ticket text — also after prune()", async () => {
    const journal = await createPgJournal({ connectionString: server.connectionString, schema: "at_rest" });
    const { secrets } = await run(journal);
    const pool = new pg.Pool({ connectionString: server.connectionString });
    try {
      const raw = async () => {
        const out: string[] = [];
        for (const t of ["commands", "command_attempts"]) {
          const res = await pool.query<{ row: string }>(`SELECT t::text AS row FROM at_rest.${t} t`);
          out.push(...res.rows.map((r) => r.row));
        }
        const bodies = await pool.query<{ b: string }>(
          "SELECT encode(body, 'escape') AS b FROM at_rest.commands WHERE body IS NOT NULL",
        );
        out.push(...bodies.rows.map((r) => r.b));
        return out.join("\n");
      };
      const before = await raw();
      expect(before).toContain('{"period":1}');
      expectClean("postgres before prune", before, secrets);
      const { pruned } = await journal.prune({ settledBefore: Date.now() + 1 });
      expect(pruned).toBeGreaterThan(0);
      expectClean("postgres after prune", await raw(), secrets);
    } finally {
      await pool.end();
      await journal.close();
    }
  });
});
