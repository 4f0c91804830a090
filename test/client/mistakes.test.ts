// A new user's mistakes fail before anything is sent, with a typed error whose message says the fix.
import { describe, expect, it } from "vitest";
import { InvalidOptionsError, LiveOnlyError, MissingDependencyError, isMissingDependencyError } from "../../src/index";
import { loadPeer } from "../../stores/optional-peer";
import { setup } from "./harness";

describe("mistakes that say the fix", () => {
  it.each([
    ["http://127.0.0.1:8080", "http://127.0.0.1:8080/api/reseller/v1"],
    ["https://reseller.example.kz/", "https://reseller.example.kz/api/reseller/v1"],
    ["https://reseller.example.kz/api", "https://reseller.example.kz/api/reseller/v1"],
  ])("A1: baseUrl %s without the API base path is refused, naming the URL to use; nothing is sent", (baseUrl, fix) => {
    const h = setup();
    let error: unknown;
    try {
      h.makeClient({ baseUrl });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).option).toBe("baseUrl");
    expect((error as Error).message).toContain("must end with the API base path /api/reseller/v1");
    expect((error as Error).message).toContain(`use ${fix}.`);
    expect(h.captured).toHaveLength(0);
  });

  it("A1: a baseUrl with the base path and a trailing slash works", async () => {
    const h = setup();
    const client = h.makeClient({ baseUrl: "http://127.0.0.1/api/reseller/v1/" });
    expect((await client.context.get()).kind).toBe("succeeded");
    expect(new URL(h.captured[0].url).pathname).toBe("/api/reseller/v1/context");
  });

  it("G4: recover() without a journal throws at once, naming the journal option; no unhandled rejection, nothing sent", async () => {
    const h = setup();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      let error: unknown;
      try {
        void h.client.recover(); // not awaited, as a forgetful caller would write it
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InvalidOptionsError);
      expect((error as InvalidOptionsError).option).toBe("journal");
      expect((error as Error).message).toMatch(/^recover\(\) needs the journal option: create the client with journal/);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
      expect(h.captured).toHaveLength(0);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("B4: a live-only call with a test key names allowLiveOnlyWithTestKey and why; nothing is sent", async () => {
    const h = setup();
    const error = await h.client.balance.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LiveOnlyError);
    expect((error as Error).message).toBe(
      "balance.get is live-only: support and finance resources answer 403 to a test key, so nothing was sent. " +
        "Use a rsl_live_ key, or set the client option allowLiveOnlyWithTestKey: true to send it anyway " +
        "(the server's 403 then comes back as a rejected outcome, useful to test that path).",
    );
    expect(h.captured).toHaveLength(0);
  });

  it("a missing optional driver is a MissingDependencyError naming the package to install", () => {
    let error: unknown;
    try {
      loadPeer("reseller-api-driver-that-is-not-installed", "reseller-api/stores/example");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MissingDependencyError);
    expect(isMissingDependencyError(error)).toBe(true);
    expect((error as MissingDependencyError).packageName).toBe("reseller-api-driver-that-is-not-installed");
    expect((error as Error).message).toBe(
      'reseller-api/stores/example needs the package "reseller-api-driver-that-is-not-installed", which is not ' +
        "installed (it is an optional peer dependency of reseller-api). Install it: npm install reseller-api-driver-that-is-not-installed",
    );
  });

  it("a driver that is installed loads, and an error inside it keeps its own message", () => {
    expect(typeof loadPeer("better-sqlite3", "reseller-api/stores/sqlite")).toBe("function");
  });
});
