/**
 * A4/H2: the ways the CLI's messages give to pass a PostgreSQL journal's password really open it,
 * against a real PostgreSQL whose role must prove its password (scram-sha-256): the password in
 * PGPASSWORD with none in the URL (no warning), and one with special characters percent-encoded in
 * a --journal URL (it runs, with the warning that the command line shows it). The same password
 * typed unencoded is refused before any connection, and no output shows any part of it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addPasswordRole, startPostgres, type PostgresServer } from "../support/postgres";
import { cli, jsonLines, runCli } from "./harness";

/** Every character the messages say to percent-encode. */
const PASSWORD = "Xy@z:9/Secr#t?Pw";
const PARTS = ["Xy", "Secr", "t?Pw", encodeURIComponent(PASSWORD)];

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
  await addPasswordRole(server, "app", PASSWORD, "reseller");
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

const env = (extra: Record<string, string | undefined> = {}) => ({
  RESELLER_JOURNAL: undefined,
  PGPASSWORD: undefined,
  ...extra,
});
const passwordNotices = (stderr: string) =>
  jsonLines(stderr).filter((e) => e.type === "notice" && String(e.message).includes("password"));
const expectNoPart = (text: string) => {
  for (const part of PARTS) expect(text).not.toContain(part);
};

describe("a PostgreSQL journal's password, passed as the messages say", () => {
  it("A4: --journal without a password and PGPASSWORD set opens the journal, with no warning", async () => {
    const args = ["--emulator", "--journal", `postgres://app@127.0.0.1:${server.port}/reseller`, "recover"];
    // The server does check it: without PGPASSWORD the journal cannot open.
    const without = await runCli(cli(), args, env());
    expect(without.code, without.stderr).toBe(4);
    const r = await runCli(cli(), args, env({ PGPASSWORD: PASSWORD }));
    expect(r.code, r.stderr).toBe(0);
    expect(
      jsonLines(r.stderr).find((e) => e.type === "notice" && String(e.message).startsWith("journal: postgres:")),
    ).toBeTruthy();
    expect(passwordNotices(r.stderr)).toEqual([]);
    expectNoPart(r.stdout + r.stderr);
  }, 60_000);

  it("H2: the password percent-encoded in --journal opens the journal, with the command-line warning", async () => {
    const r = await runCli(
      cli(),
      [
        "--emulator",
        "--journal",
        `postgres://app:${encodeURIComponent(PASSWORD)}@127.0.0.1:${server.port}/reseller`,
        "recover",
      ],
      env(),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(passwordNotices(r.stderr)).toHaveLength(1);
    expectNoPart(r.stdout + r.stderr);
  }, 60_000);

  it("H2: the same password unencoded is refused before any connection (exit 2), naming the encoding", async () => {
    for (const [args, extra] of [
      [["--emulator", "--journal", `postgres://app:${PASSWORD}@127.0.0.1:${server.port}/reseller`, "recover"], {}],
      [["recover"], { RESELLER_JOURNAL: `postgres://app:${PASSWORD}@127.0.0.1:${server.port}/reseller` }],
    ] as [string[], Record<string, string>][]) {
      const r = await runCli(cli(), args, env(extra));
      expect(r.code, r.stderr).toBe(2);
      const [error] = jsonLines(r.stderr);
      expect(error).toMatchObject({ type: "error", code: "cli_usage", exitCode: 2 });
      expect(error.message).toContain("@ → %40");
      expectNoPart(r.stdout + r.stderr);
    }
  }, 60_000);
});
