/**
 * The client's end-to-end smoke as a user's program on another runtime (bundled by esbuild, run by
 * that runtime's binary with no node_modules beside it, so "auto" picks the runtime's own SQLite).
 * RESELLER_SMOKE_MODE:
 *  - quickstart: the README quickstart's main() verbatim (context, list, a journalled renew, a 202
 *    wait), then prints one JSON line with what it said and which SQLite it used;
 *  - crash: renews the second domain with a long timeout; the test SIGKILLs it mid-request;
 *  - recover: a new process on the same journal runs recover() and prints the command's state;
 *  - no-access: opens a journal in `locked/`, which the runtime may not write; prints the error.
 */
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { createResellerClient } from "../../../src/index";
import { createSqliteJournal } from "../../../stores/sqlite-journal";
import { pickSqliteDriver } from "../../../stores/sqlite-driver";
import { main } from "../../client/quickstart.example";

const env = (globalThis as unknown as { process: { env: Record<string, string | undefined> } }).process.env;
const dir = env.RESELLER_SMOKE_DIR ?? ".";
const mode = env.RESELLER_SMOKE_MODE;
const CRASH_KEY = "crash-renewal-1";

function client(journalFile: string) {
  const { baseUrl, keys } = JSON.parse(readFileSync(join(dir, "emulator.json"), "utf8")) as {
    baseUrl: string;
    keys: { environment: string; token: string }[];
  };
  const token = keys.find((k) => k.environment === "test")!.token;
  const journal = createSqliteJournal({ filename: join(dir, journalFile) });
  return { journal, client: createResellerClient({ baseUrl, token, journal, timeoutMs: 60_000 }) };
}

async function run(): Promise<unknown> {
  switch (mode) {
    case "quickstart":
      return { said: await main(join(dir, "emulator.json"), join(dir, "commands.sqlite")), driver: pickSqliteDriver() };
    case "crash": {
      const { client: c } = client("crash.sqlite");
      const page = await c.domains.list({ query: { per_page: 2 } });
      if (page.kind !== "succeeded") return { error: `list ${page.kind}` };
      const domain = page.data.data[1];
      console.log(JSON.stringify({ sending: domain.uuid }));
      // The test kills this process while the request hangs; reaching the next line is a failure.
      const outcome = await c.domains.renew(
        { domainUuid: domain.uuid, body: { period: 1 } },
        { idempotencyKey: CRASH_KEY },
      );
      return { error: `not killed: ${outcome.kind}` };
    }
    case "recover": {
      const { client: c, journal } = client("crash.sqlite");
      const apiKeyId = c.credential.publicKeyId;
      const before = (await journal.findByIdempotencyKey(apiKeyId, CRASH_KEY))?.state;
      let summary = await c.recover();
      for (let round = 0; round < 20 && summary.stillPending.length > 0; round++) {
        await new Promise((r) => setTimeout(r, 200));
        summary = await c.recover();
      }
      const after = await journal.findByIdempotencyKey(apiKeyId, CRASH_KEY);
      await journal.close();
      return { before, after: after?.state, attempts: after?.attempts.length, driver: pickSqliteDriver() };
    }
    case "no-access": {
      // Run without write access to `locked/`: the journal must say which permission to grant.
      try {
        createSqliteJournal({ filename: join(dir, "locked", "journal.sqlite") });
        return { error: "opened without write access" };
      } catch (e) {
        const x = e as { name?: string; code?: string; option?: string; message?: string };
        return { name: x.name, code: x.code, option: x.option, message: x.message };
      }
    }
    default:
      return { error: `unknown RESELLER_SMOKE_MODE ${String(mode)}` };
  }
}

run().then(
  (result) => {
    console.log(JSON.stringify(result));
    (globalThis as unknown as { process: { exit(code: number): never } }).process.exit(0);
  },
  (error: unknown) => {
    console.log(JSON.stringify({ error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }));
    (globalThis as unknown as { process: { exit(code: number): never } }).process.exit(1);
  },
);
