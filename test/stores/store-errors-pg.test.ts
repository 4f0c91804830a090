/**
 * createPgJournal's set-up failures against a real PostgreSQL started by this file, with a role that
 * must log in with a password (scram-sha-256 in pg_hba.conf): a wrong password, a missing database,
 * nothing listening and a malformed URL are each the package's error with a stable `code`, the fix in
 * words and the SQLSTATE kept — and the password nowhere (message, stack, cause, logs). A misspelt
 * option next to a correct connectionString is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isInvalidOptionsError, isResellerClientError, isStoreUnavailableError } from "../../core";
import { createPgJournal } from "../../stores/pg-journal";
import { freePort } from "../support/process";
import { addPasswordRole, startPostgres, type PostgresServer } from "../support/postgres";
import { expectNoSecret } from "./no-secret";

const PASSWORD = "AppPgPass9876";
const WRONG = "WrongPgPw4321";

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
  await addPasswordRole(server, "app", PASSWORD, "reseller");
});
afterAll(async () => {
  await server?.stop();
});

const url = (password: string, db = "reseller", port = server.port) =>
  `postgres://app:${password}@127.0.0.1:${port}/${db}`;

async function failure(options: Parameters<typeof createPgJournal>[0]): Promise<Error & Record<string, unknown>> {
  try {
    const journal = await createPgJournal(options);
    await journal.close();
  } catch (e) {
    return e as Error & Record<string, unknown>;
  }
  throw new Error("createPgJournal() did not throw");
}

describe("postgres journal: set-up failures are typed, say the fix, and never show the password", () => {
  it("G1: the right password opens the journal (the server really checks it)", async () => {
    const journal = await createPgJournal({ connectionString: url(PASSWORD) });
    await journal.close();
  });

  it("G1/H2: a wrong password → InvalidOptionsError with sqlState 28P01 telling to check the credentials", async () => {
    const e = await failure({ connectionString: url(WRONG), reconnectWithinMs: 0 });
    expect(isResellerClientError(e)).toBe(true);
    expect(isInvalidOptionsError(e)).toBe(true);
    expect(e.code).toBe("invalid_options");
    expect(e.sqlState).toBe("28P01");
    expect(e.message).toMatch(/check the credentials/);
    expect(e.message).toContain('"app"');
    expectNoSecret(e, WRONG);
  });

  it("G1/H2: a missing database → sqlState 3D000 and the createdb command", async () => {
    const e = await failure({ connectionString: url(PASSWORD, "nosuchdb"), reconnectWithinMs: 0 });
    expect(isInvalidOptionsError(e)).toBe(true);
    expect(e.sqlState).toBe("3D000");
    expect(e.message).toContain(`createdb -h 127.0.0.1 -p ${server.port} -U app nosuchdb`);
    expectNoSecret(e, PASSWORD);
  });

  it("G1/H2: nothing listening → StoreUnavailableError asking whether PostgreSQL runs at host:port", async () => {
    const port = await freePort();
    const e = await failure({ connectionString: url(PASSWORD, "reseller", port), reconnectWithinMs: 0 });
    expect(isStoreUnavailableError(e)).toBe(true);
    expect(e.code).toBe("store_unavailable");
    expect(e.message).toContain(`is PostgreSQL running at 127.0.0.1:${port}`);
    expectNoSecret(e, PASSWORD);
  });

  it("G1/H2: a malformed URL (port 99999) → InvalidOptionsError showing the expected form", async () => {
    const e = await failure({ connectionString: url(PASSWORD, "reseller", 99999), reconnectWithinMs: 0 });
    expect(isInvalidOptionsError(e)).toBe(true);
    expect(e.option).toBe("connectionString");
    expect(e.message).toContain("postgres://user:password@host:5432/db");
    expectNoSecret(e, PASSWORD);
  });

  it("H2: a password with an unencoded @ and / → InvalidOptionsError before any connection, naming no part of it", async () => {
    const e = await failure({
      connectionString: `postgres://app:Xy@zq:9/Secr%t@127.0.0.1:${server.port}/reseller`,
      reconnectWithinMs: 0,
    });
    expect(isInvalidOptionsError(e)).toBe(true);
    expect(e.option).toBe("connectionString");
    expect(e.message).toContain("%40");
    for (const part of ["Xy", "zq", "Secr"]) expectNoSecret(e, part);
  });
});

describe("postgres journal: option names", () => {
  it("G1: a misspelt option next to a correct connectionString is refused, naming the near one", async () => {
    const e = await failure({ connectionString: url(PASSWORD), shema: "shop" } as never);
    expect(isInvalidOptionsError(e)).toBe(true);
    expect(e.message).toContain("did you mean schema?");
    expect(e.option).toBe("shema");
    expectNoSecret(e, PASSWORD);
  });

  it("G1: every known option is accepted", async () => {
    const journal = await createPgJournal({
      connectionString: url(PASSWORD),
      schema: "named_options",
      clock: { now: () => Date.now() },
      reconnectWithinMs: 1000,
    });
    await journal.close();
  });
});
