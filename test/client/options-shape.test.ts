// Set-up mistakes a JavaScript caller (or an unset environment variable) makes, caught when the
// client is created: a typed InvalidOptionsError naming the option and the fix, and nothing sent.
import { describe, expect, it } from "vitest";
import { isInvalidOptionsError, type InvalidOptionsError, type ResellerClientOptions } from "../../src/index";
import { createMemoryJournal } from "../../stores/memory-journal";
import { setup } from "./harness";

function thrownBy(make: () => unknown): InvalidOptionsError {
  try {
    make();
  } catch (e) {
    expect(isInvalidOptionsError(e), String(e)).toBe(true);
    return e as InvalidOptionsError;
  }
  throw new Error("expected createResellerClient to throw");
}

describe("client: the options' shape", () => {
  it("A1: a missing, empty or relative baseUrl names baseUrl (an unset environment variable is not a transport choice)", () => {
    const h = setup();
    for (const baseUrl of [undefined, "", "   ", "not a url", "127.0.0.1:8080/api/reseller/v1"]) {
      const error = thrownBy(() => h.makeClient({ baseUrl }));
      expect(error.option).toBe("baseUrl");
      expect(error.message).toContain("https://reseller.example.kz/api/reseller/v1");
      expect(error.message).not.toContain(h.token);
    }
    expect(h.captured).toHaveLength(0);
  });

  it("A1: a baseUrl that stops short of the base path, or names another version, is told the URL that works", () => {
    const h = setup();
    const cases: [string, string][] = [
      ["https://reseller.example.kz/api", "https://reseller.example.kz/api/reseller/v1"],
      ["https://reseller.example.kz/api/reseller", "https://reseller.example.kz/api/reseller/v1"],
      ["https://reseller.example.kz/api/reseller/v2", "https://reseller.example.kz/api/reseller/v1"],
      ["https://reseller.example.kz/api?x=1", "https://reseller.example.kz/api/reseller/v1"],
      ["https://gw.example.kz/registrar", "https://gw.example.kz/registrar/api/reseller/v1"],
      ["https://gw.example.kz/registrar/api/reseller/v1/?a=b", "https://gw.example.kz/registrar/api/reseller/v1"],
    ];
    for (const [baseUrl, works] of cases) {
      const error = thrownBy(() => h.makeClient({ baseUrl }));
      expect(error.message).toContain(`use ${works}.`);
      expect(() => h.makeClient({ baseUrl: works })).not.toThrow();
    }
  });

  it("G1: an option name the client does not know throws with the near name (a typo must not drop the journal)", async () => {
    const h = setup();
    const journal = createMemoryJournal();
    const typos: [Partial<ResellerClientOptions> & Record<string, unknown>, string, string | undefined][] = [
      [{ jounral: journal }, "jounral", "journal"],
      [{ retry: { maxAttempt: 3 } as never }, "retry.maxAttempt", "retry.maxAttempts"],
      [{ pacing: { windowMS: 4000 } as never }, "pacing.windowMS", "pacing.windowMs"],
      [{ retry: { budget: { refillPerSuccess: 1 } as never } }, "retry.budget.refillPerSuccess", undefined],
      [{ journal, fleet: { leaseMS: 5000 } as never }, "fleet.leaseMS", "fleet.leaseMs"],
      [
        { journal, fleet: { continuousRecovery: { interval: 100 } as never } },
        "fleet.continuousRecovery.interval",
        "fleet.continuousRecovery.intervalMs",
      ],
    ];
    for (const [overrides, option, near] of typos) {
      const error = thrownBy(() => h.makeClient(overrides));
      expect(error.option).toBe(option);
      if (near) expect(error.message).toContain(`did you mean ${near}?`);
      else expect(error.message).not.toContain("did you mean");
    }
    expect(h.captured).toHaveLength(0);
    expect(await journal.countByState()).toEqual({});
  });

  it("G1: a journal still a Promise (a forgotten await) or not a journal at all fails at creation, not at the first purchase", () => {
    const h = setup();
    const promised = thrownBy(() => h.makeClient({ journal: Promise.resolve(createMemoryJournal()) as never }));
    expect(promised.option).toBe("journal");
    expect(promised.message).toMatch(/journal is a Promise: await it first/);
    for (const journal of [{}, null, "commands.sqlite", { record: () => undefined }]) {
      const error = thrownBy(() => h.makeClient({ journal: journal as never }));
      expect(error.option).toBe("journal");
      expect(error.message).toMatch(/it lacks .*findByIdempotencyKey.*createSqliteJournal/);
    }
    const store = thrownBy(() => h.makeClient({ pacing: { store: {} as never } }));
    expect(store.option).toBe("pacing.store");
    const pacer = thrownBy(() => h.makeClient({ pacer: Promise.resolve({}) as never }));
    expect(pacer.option).toBe("pacer");
    expect(h.captured).toHaveLength(0);
  });
});
