/**
 * A4/H2: every request body and text the `commands` commands print passes through the SDK's URL
 * redaction — a webhook URL with basic auth, a secret-looking query value, an auth code, a token or
 * signing secret pasted into a ticket — in notes, show, list, JSON and with --include-text alike.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, jsonLines, recordManualTicket, runCli, tempDir } from "./harness";

const tmp = tempDir("reseller-cli-notes-redaction-");
afterAll(() => tmp.cleanup());

const file = join(tmp.dir, "notes.sqlite");
const env = { RESELLER_JOURNAL: file, RESELLER_API_TOKEN: undefined };
const SECRETS = [
  "HookPassw0rd",
  "QueryS3cret",
  "TicketPassw0rd",
  "AuthC0deXYZ123",
  "whsec_AbCdEfGh12345678",
  "SubjPass77",
];
const ID = "c0000000-0000-4000-8000-0000000000a1";

beforeAll(async () => {
  await recordManualTicket(file, {
    id: ID,
    idempotencyKey: "repro-wh-1",
    body: {
      url: "https://hookuser:HookPassw0rd@hooks.example.kz/r?token=QueryS3cret&site=kz",
      events: ["domain.renewed"],
      auth_code: "AuthC0deXYZ123",
      subject: "see ftp://ops:SubjPass77@files.example.kz/log",
      message: "our hook https://u:TicketPassw0rd@x.example.kz/a and secret whsec_AbCdEfGh12345678",
    },
    reason: "the outcome could not be read",
    ageMs: 60_000,
  });
});

describe("what the commands commands print", () => {
  for (const args of [
    ["commands", "notes"],
    ["commands", "notes", "--include-text"],
    ["--json", "commands", "notes"],
    ["--json", "commands", "notes", "--include-text"],
    ["commands", "show", ID],
    ["commands", "show", ID, "--include-text"],
    ["--json", "commands", "show", ID, "--include-text"],
    ["commands", "list", "--all", "--json"],
    ["commands", "list", "--all", "--wide"],
  ]) {
    it(`A4: ${args.join(" ")} prints no URL password, secret query value, auth code or signing secret`, async () => {
      const r = await runCli(cli(), args, env);
      expect(r.code, r.stderr).toBe(0);
      for (const secret of SECRETS) expect(r.stdout + r.stderr, secret).not.toContain(secret);
      if (!args.includes("list") || args.includes("--json")) {
        expect(r.stdout).toContain("hookuser:[REDACTED]@hooks.example.kz/r?token=[REDACTED]&site=kz");
        expect(r.stdout).toContain("[REDACTED]");
      }
      if (args.includes("--json")) jsonLines(r.stdout); // still one JSON object a line
      if (args.includes("--include-text")) expect(r.stdout).toContain("u:[REDACTED]@x.example.kz/a");
    });
  }
});
