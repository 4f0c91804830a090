import { readFileSync } from "node:fs";
import { createResellerClient, type ResellerClient } from "../../src/index";
import { createSqliteJournal } from "../../stores/sqlite-journal";

/** Connects to the emulator that `npx reseller-emulator --print-to emulator.json` started, and renews one domain. */
export async function main(emulatorJson = "emulator.json", journalFile = "commands.sqlite"): Promise<string> {
  const { baseUrl, keys } = JSON.parse(readFileSync(emulatorJson, "utf8"));
  const token: string = keys.find((k: { environment: string }) => k.environment === "test").token; // A3: a test key
  const client = createResellerClient({
    baseUrl,
    token, // A4: from your server's secret store in real life; never logged, never in a URL
    journal: createSqliteJournal({ filename: journalFile }), // G1: every command is stored before it is sent
  });
  const context = await client.context.get(); // A5: the first call; also teaches the pacer the key's limit
  if (context.kind !== "succeeded") return `context: ${context.kind}`;
  const page = await client.domains.list({ query: { per_page: 1 } });
  const domain = page.kind === "succeeded" ? page.data.data[0] : undefined;
  if (!domain) return "no domain to renew";
  return `${domain.name}: ${await renewOnce(client, domain.uuid, `renew-${domain.uuid}-2026`)}`;
}

/** Renews a domain once — whatever happens on the wire — and says what to do next. */
export async function renewOnce(client: ResellerClient, domainUuid: string, commandId: string): Promise<string> {
  const outcome = await client.domains.renew(
    { domainUuid, body: { period: 1 } },
    { idempotencyKey: commandId }, // your own id of this logical command: the same on every retry (D2)
  );
  switch (outcome.kind) {
    case "accepted": {
      // 202 confirms acceptance, not the registry's result (F1): poll the operation.
      const done = await client.operations.wait(outcome.operationUuid, { commandId: outcome.commandId });
      return done.kind === "completed"
        ? "renewed"
        : `renewal ${done.kind}: keep the operation ${outcome.operationUuid}`;
    }
    case "succeeded":
      return "renewed";
    case "rejected":
      // Nothing happened (400/401/403/404/405/422): fix the cause; never retry unchanged.
      return `rejected ${outcome.status} ${outcome.error?.code ?? "(no API envelope)"}`;
    case "conflict":
      // 409: the key is busy or belongs to another command — reconcile, never take a new key (D6).
      return "conflict: reconcile this command before anything else";
    case "unknown":
      // Timeout, reset, 5xx, broken body: the renewal MAY have happened. Reconcile; do not buy again.
      return `unknown (${outcome.reason}): reconcile with request ids ${outcome.attempts
        .map((a) => a.requestId)
        .join(", ")}`;
    default: {
      const exhaustive: never = outcome;
      return exhaustive;
    }
  }
}
