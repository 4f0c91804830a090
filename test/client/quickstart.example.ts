import type { ResellerClient } from "../../src/index";

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
