// A4/H2: the client's own token, or only its secret part, anywhere in a command is never journalled
// nor sent: the journal alone can only see token-shaped text, the client knows its own secret.
import { describe, expect, it } from "vitest";
import { isSensitiveDataError } from "../../src/index";
import { createMemoryJournal } from "../../stores/memory-journal";
import { setup } from "./harness";

describe("client: a command holding the client's own secret", () => {
  it("A4, H2: the token's secret part in a body or an Idempotency-Key is refused before anything is journalled or sent", async () => {
    const h = setup();
    const journal = createMemoryJournal({ clock: h.clock });
    const client = h.makeClient({ journal });
    const secret = h.token.slice(h.token.indexOf(".") + 1);
    expect(secret).toHaveLength(64);
    const attempts = [
      () => client.orders.create({ body: { external_id: secret, action: "register", domain: "leak.kz", period: 1 } }),
      () =>
        client.orders.create({
          body: { external_id: `note: key ${secret} rotated`, action: "register", domain: "leak.kz", period: 1 },
        }),
      () =>
        client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } }, { idempotencyKey: `renew-${secret}` }),
    ];
    for (const attempt of attempts) {
      const error = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isSensitiveDataError(error), String(error)).toBe(true);
      expect((error as Error).message).not.toContain(secret);
    }
    expect(h.captured).toHaveLength(0);
    expect(await journal.countByState()).toEqual({});
    // The same calls without the secret go through.
    const ok = await client.orders.create({
      body: { external_id: "no-secret", action: "register", domain: "leak.kz", period: 1 },
    });
    expect(ok.kind).toBe("succeeded");
  });
});
