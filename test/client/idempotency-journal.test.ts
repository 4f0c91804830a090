// D1–D9, G1, I5, I6, H2: keys, frozen bytes, replays, and the journal written before the first byte.
import { describe, expect, it } from "vitest";
import { createMemoryJournal } from "../../stores/memory-journal";
import type { Journal } from "../../journal";
import { DomainLockedError, InvalidArgumentError } from "../../src/index";
import { decode, requestsTo, setup } from "./harness";

describe("client: idempotency and the journal", () => {
  it("D1: every write carries an Idempotency-Key, every GET none; D4: sync sends NO body (never {})", async () => {
    const h = setup();
    await h.client.context.get();
    const sync = await h.client.domains.sync({ domainUuid: h.domainUuid });
    expect(sync.kind).toBe("accepted");
    const [get, post] = h.captured;
    expect(get.headers["idempotency-key"]).toBeUndefined();
    expect(post.headers["idempotency-key"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(post.body).toBeNull();
    expect(post.headers["content-type"]).toBeUndefined();
    expect(post.headers.authorization).toBe(`Bearer ${h.token}`);
    expect(post.headers.accept).toBe("application/json");
  });

  it("D3/D4: caller-supplied exact bytes are sent unchanged (no reordering, whitespace or 1 → 1.0)", async () => {
    const h = setup();
    const bytes = new TextEncoder().encode('{ "period" : 1 }');
    h.emulator.control.addFault({ method: "POST", path: "/domains/{domainUuid}/renew", kind: "reset_after" });
    const out = await h.client.domains.renew({ domainUuid: h.domainUuid, body: bytes as never });
    expect(out.kind).toBe("accepted");
    const sent = requestsTo(h.captured, "POST", "/renew");
    expect(sent.map((s) => decode(s.body))).toEqual(['{ "period" : 1 }', '{ "period" : 1 }']);
  });

  it("D5/D9: the same command again with the same key is a replay, reported as replayed: true", async () => {
    const h = setup();
    const args = { body: { names: ["free-name.kz"] } };
    const first = await h.client.domains.check(args, { idempotencyKey: "check-1" });
    const again = await h.client.domains.check(args, { idempotencyKey: "check-1" });
    expect(first.kind).toBe("succeeded");
    expect(again.kind).toBe("succeeded");
    if (first.kind !== "succeeded" || again.kind !== "succeeded") return;
    expect(first.replayed).toBe(false);
    expect(again.replayed).toBe(true);
    expect(again.data).toEqual(first.data);
    expect(h.events.some((e) => e.type === "replay")).toBe(true);
  });

  it("G1: the command is in the journal BEFORE the first byte is sent", async () => {
    const h = setup();
    const journal = createMemoryJournal();
    let seenAtSend: string | undefined;
    const client = h.makeClient({
      journal,
      fetch: async (request) => {
        const key = request.headers.get("idempotency-key");
        if (key) seenAtSend = (await journal.findByIdempotencyKey(h.publicKeyId, key))?.state;
        return h.fetch(request);
      },
    });
    const out = await client.domains.renew(
      { domainUuid: h.domainUuid, body: { period: 1 } },
      { idempotencyKey: "renew-g1" },
    );
    // Recorded (durable) before the send; sending is written with the attempt, one commit for both.
    expect(seenAtSend).toBe("recorded");
    expect(out.kind).toBe("accepted");
    const rec = await journal.get(out.commandId!);
    expect(rec?.state).toBe("accepted");
    expect(rec?.idempotencyKey).toBe("renew-g1");
    expect(decode(rec!.body)).toBe('{"period":1}');
    expect(rec?.path).toBe(`/domains/${h.domainUuid}/renew`);
    expect(rec?.attempts).toHaveLength(1);
    expect(rec?.attempts[0].status).toBe(202);
    expect(rec?.resources.operationUuid).toBe(out.kind === "accepted" ? out.operationUuid : "");
  });

  it("G1: a journal that refuses the record aborts the send — nothing goes out", async () => {
    const h = setup();
    const memory = createMemoryJournal();
    const failing: Journal = { ...memory, record: async () => Promise.reject(new Error("disk full")) };
    const client = h.makeClient({ journal: failing });
    await expect(client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } })).rejects.toThrow("disk full");
    expect(h.captured).toHaveLength(0);
  });

  it("I5: an unknown outcome is journalled as unknown with every attempt (I7)", async () => {
    const h = setup({ client: { retry: { maxAttempts: 2 } } });
    const journal = createMemoryJournal();
    const client = h.makeClient({ journal });
    h.emulator.control.addFault({ method: "POST", path: "/webhooks", kind: "reset_after" });
    const out = await client.webhooks.create({ body: { url: "https://hooks.example/j", events: ["domain.renewed"] } });
    expect(out.kind).toBe("unknown");
    const rec = await journal.get(out.commandId!);
    expect(rec?.state).toBe("unknown");
    expect(rec?.attempts).toEqual([expect.objectContaining({ transportError: "network" })]);
  });

  it("I6: while a renewal of a domain is in flight (unknown), another renewal of it is refused before sending", async () => {
    const h = setup({ client: { retry: { maxAttempts: 1 } } });
    const journal = createMemoryJournal();
    const client = h.makeClient({ journal });
    h.emulator.control.addFault({ method: "POST", path: "/domains/{domainUuid}/renew", kind: "error_503_before" });
    const first = await client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
    expect(first.kind).toBe("unknown");
    const before = h.captured.length;
    await expect(client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } })).rejects.toBeInstanceOf(
      DomainLockedError,
    );
    expect(h.captured.length).toBe(before);
    // G4: resending the SAME command (same key and bytes) resumes it through reconciling → sending.
    const resumed = await client.domains.renew(
      { domainUuid: h.domainUuid, body: { period: 1 } },
      { idempotencyKey: first.idempotencyKey },
    );
    expect(resumed.kind).toBe("accepted");
    expect(resumed.commandId).toBe(first.commandId);
    expect((await journal.get(first.commandId!))?.state).toBe("accepted");
  });

  it("D5/D7: with a journal, the same key for a DIFFERENT command is refused locally, nothing sent", async () => {
    const h = setup();
    const client = h.makeClient({ journal: createMemoryJournal() });
    await client.domains.check({ body: { names: ["a-name.kz"] } }, { idempotencyKey: "k-1" });
    const before = h.captured.length;
    await expect(
      client.domains.check({ body: { names: ["b-name.kz"] } }, { idempotencyKey: "k-1" }),
    ).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(h.captured.length).toBe(before);
  });

  it("D6/E4 409: a conflict is journalled as conflict and reported, never retried with a new key", async () => {
    const h = setup({ client: { timeoutMs: 5_000 } });
    const journal = createMemoryJournal();
    const client = h.makeClient({ journal });
    h.emulator.control.addFault({ method: "POST", path: "/domains/{domainUuid}/renew", kind: "stuck_processing" });
    const out = await client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
    expect(out.kind).toBe("conflict");
    expect((await journal.get(out.commandId!))?.state).toBe("conflict");
    const keys = new Set(requestsTo(h.captured, "POST", "/renew").map((c) => c.headers["idempotency-key"]));
    expect(keys.size).toBe(1);
  });
});
