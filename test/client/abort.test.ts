// Abort semantics (decided here, documented in middleware/README.md): the caller's AbortSignal stops
// the command. A write that may already have reached the server ends as an `unknown` Outcome (E4:
// the side effect may have happened); anything else throws RequestAbortedError — nothing happened.
import { describe, expect, it } from "vitest";
import { createMemoryJournal } from "../../stores/memory-journal";
import { RequestAbortedError } from "../../src/index";
import { requestsTo, setup } from "./harness";

describe("client: abort", () => {
  it("E4: a write aborted while in flight → unknown (reason aborted), journalled as unknown", async () => {
    const h = setup({ client: { timeoutMs: 60_000 } });
    const journal = createMemoryJournal();
    const ac = new AbortController();
    const client = h.makeClient({
      journal,
      fetch: (req) => {
        const p = h.fetch(req);
        setImmediate(() => ac.abort(new Error("user cancelled")));
        return p;
      },
    });
    h.emulator.control.addFault({ method: "POST", path: "/domains/{domainUuid}/renew", kind: "timeout_after" });
    const out = await client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } }, { signal: ac.signal });
    expect(out.kind).toBe("unknown");
    if (out.kind !== "unknown") return;
    expect(out.reason).toBe("aborted");
    expect(out.attempts).toEqual([expect.objectContaining({ error: "aborted" })]);
    expect((await journal.get(out.commandId!))?.state).toBe("unknown");
    expect(h.emulator.control.effects()).toHaveLength(1); // it did happen: unknown was the right answer
  });

  it("a write whose signal is already aborted throws RequestAbortedError and sends nothing", async () => {
    const h = setup();
    const ac = new AbortController();
    ac.abort();
    await expect(
      h.client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } }, { signal: ac.signal }),
    ).rejects.toBeInstanceOf(RequestAbortedError);
    expect(h.captured).toHaveLength(0);
  });

  it("G1/I6: a journalled write cancelled before its first send is withdrawn — recover() sends nothing later, and the domain can be renewed under a new key", async () => {
    const h = setup({ rateLimit: 1 }); // the second renew waits for the window: the cancel lands there
    const journal = createMemoryJournal();
    const client = h.makeClient({ journal, pacing: { initialLimit: 1 }, deadlineMs: Infinity });
    expect((await client.context.get()).kind).toBe("succeeded"); // fills the key's window
    const ac = new AbortController();
    const pending = client.domains.renew(
      { domainUuid: h.domainUuid, body: { period: 1 } },
      { idempotencyKey: "renew-cancelled-1", signal: ac.signal },
    );
    await h.clock.sleep(1_000); // recorded, waiting for its slot
    expect((await journal.listByState(["recorded"])).map((r) => r.idempotencyKey)).toEqual(["renew-cancelled-1"]);
    ac.abort(new Error("user cancelled"));
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect((error as RequestAbortedError).withdrawn).toBe(true);
    expect((error as Error).message).toMatch(/the journal no longer holds it/);
    expect(await journal.findByIdempotencyKey(h.publicKeyId, "renew-cancelled-1")).toBeUndefined();
    const summary = await client.recover();
    expect(summary.examined).toBe(0); // nothing left to settle: the cancelled command is gone
    const renewed = await client.domains.renew(
      { domainUuid: h.domainUuid, body: { period: 1 } },
      { idempotencyKey: "renew-after-cancel" },
    );
    expect(renewed.kind).toBe("accepted"); // no DomainLockedError from the cancelled command
    expect(h.emulator.control.effects().filter((e) => e.kind === "domain.renew")).toHaveLength(1);
    expect(
      h.captured.filter((c) => c.method === "POST" && c.headers["idempotency-key"] === "renew-cancelled-1"),
    ).toHaveLength(0);
  });

  it("E4/G1: a same-key call resuming a command a crashed process left recorded, cancelled before it sends, ends unknown (aborted) — it may have been sent — and the journal keeps it for recover()", async () => {
    const h = setup();
    const journal = createMemoryJournal();
    const never = () => new Promise<Response>((resolve) => void resolve); // never answers: "killed mid-send"
    const crashed = h.makeClient({ journal, fetch: never });
    void crashed.domains.renew(
      { domainUuid: h.domainUuid, body: { period: 1 } },
      { idempotencyKey: "renew-resumed-1" },
    );
    await h.clock.sleep(10);
    expect((await journal.findByIdempotencyKey(h.publicKeyId, "renew-resumed-1"))?.state).toBe("recorded");
    const ac = new AbortController();
    ac.abort();
    const client = h.makeClient({ journal });
    const out = await client.domains.renew(
      { domainUuid: h.domainUuid, body: { period: 1 } },
      { idempotencyKey: "renew-resumed-1", signal: ac.signal },
    );
    expect([out.kind, out.kind === "unknown" ? out.reason : ""]).toEqual(["unknown", "aborted"]);
    expect(out.commandId).toBeDefined();
    expect((await journal.findByIdempotencyKey(h.publicKeyId, "renew-resumed-1"))?.state).toBe("recorded");
  });

  it("E4: a same-key call joined to one in flight in the same client ends unknown (aborted) as soon as its own signal fires — the other call goes on and buys once", async () => {
    const h = setup({ client: { timeoutMs: 60_000 } });
    const journal = createMemoryJournal();
    const client = h.makeClient({ journal, deadlineMs: Infinity });
    h.emulator.control.addFault({ method: "POST", path: "/domains/{domainUuid}/renew", kind: "timeout_after" });
    const args = { domainUuid: h.domainUuid, body: { period: 1 } };
    let firstSettled = false;
    const first = client.domains.renew(args, { idempotencyKey: "renew-joined-1", timeoutMs: 5_000 });
    void first.then(() => (firstSettled = true));
    await h.clock.sleep(100); // the first is on the wire
    const ac = new AbortController();
    const joined = client.domains.renew(args, { idempotencyKey: "renew-joined-1", signal: ac.signal });
    let settled = false;
    void joined.then(() => (settled = true));
    await h.clock.sleep(100);
    expect(settled).toBe(false); // joined, waiting on the first
    ac.abort(new Error("checkout timed out"));
    const out = await joined;
    expect([out.kind, out.kind === "unknown" ? out.reason : "", out.localReplay?.source]).toEqual([
      "unknown",
      "aborted",
      "joined",
    ]);
    expect(firstSettled).toBe(false); // it did not wait for the other call
    const firstOut = await first; // times out, then its retry gets the replay: one renewal
    expect(["accepted", "unknown"]).toContain(firstOut.kind);
    expect(h.emulator.control.effects().filter((e) => e.kind === "domain.renew")).toHaveLength(1);
  });

  it("a GET aborted in flight throws RequestAbortedError (a read has no side effect to report)", async () => {
    const h = setup();
    h.emulator.control.addFault({ method: "GET", path: "/context", kind: "timeout_before" });
    const ac = new AbortController();
    const p = h.client.context.get({}, { signal: ac.signal });
    setImmediate(() => ac.abort());
    await expect(p).rejects.toBeInstanceOf(RequestAbortedError);
    expect(requestsTo(h.captured, "GET", "/context")).toHaveLength(1);
  });

  it("an abort during the backoff between retries of a write → unknown (an attempt was sent)", async () => {
    const h = setup();
    const ac = new AbortController();
    const client = h.makeClient({ onEvent: (e) => e.type === "retry" && ac.abort() });
    h.emulator.control.addFault({
      method: "POST",
      path: "/domains/{domainUuid}/renew",
      kind: "error_503_before",
      times: 5,
    });
    const out = await client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } }, { signal: ac.signal });
    expect(out.kind).toBe("unknown");
    if (out.kind !== "unknown") return;
    expect(out.reason).toBe("aborted");
    expect(out.attempts).toHaveLength(1);
  });

  it("E4: a fetch that ignores its AbortSignal cannot hang a command — the timeout still ends the attempt", async () => {
    const h = setup();
    let calls = 0;
    const client = h.makeClient({
      timeoutMs: 2_000,
      retry: { maxAttempts: 2 },
      fetch: (req) => (++calls === 1 ? new Promise<Response>(() => undefined) : h.fetch(req)),
    });
    const out = await client.context.get();
    expect(out.kind).toBe("succeeded");
    expect(out.attempts.map((a) => a.error ?? a.status)).toEqual(["timeout", 200]);
  });

  it("E4: a network error whose message echoes the URL and token is redacted in the NetworkError", async () => {
    const h = setup();
    const client = h.makeClient({
      retry: { maxAttempts: 1 },
      fetch: async (req) => {
        throw new TypeError(`fetch failed for ${req.url} with ${req.headers.get("authorization")}`, {
          cause: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }),
        });
      },
    });
    const out = await client.webhooks.test({ webhookUuid: h.domainUuid });
    expect(out.kind).toBe("unknown");
    if (out.kind !== "unknown") return;
    expect(out.reason).toBe("network");
    expect(out.cause?.name).toBe("NetworkError");
    expect((out.cause as { causeCode?: string }).causeCode).toBe("ECONNRESET");
    expect(out.cause?.message).not.toContain(h.token);
    expect(out.cause?.message).toContain("[REDACTED]");
  });
});
