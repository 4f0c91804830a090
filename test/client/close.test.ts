// client.close() as a service's shutdown uses it (fleet.md: `await client.close()`, then close the
// journal): work started before it finishes and is journalled, its lease kept until then; work asked
// for after it is refused with ClientClosedError and nothing is recorded or sent.
import { describe, expect, it } from "vitest";
import { ClientClosedError, isClientClosedError } from "../../src/index";
import { VirtualClock } from "../../runtime/clock";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import { requestsTo, setup } from "./harness";

const LEASE = 3_000;

/** A fetch that holds renewals' answers until released: a request the server has, its answer on the way. */
function holdingFetch(inner: (request: Request) => Promise<Response>) {
  const held: (() => void)[] = [];
  const fetch = async (request: Request) => {
    const response = await inner(request);
    if (request.method === "POST" && request.url.endsWith("/renew")) await new Promise<void>((r) => held.push(r));
    return response;
  };
  return { fetch, held };
}

describe("client.close()", () => {
  it("G1, G6: a renewal in flight at close() finishes and is journalled under its lease; later calls throw ClientClosedError, nothing sent", async () => {
    const h = setup();
    // The client's and the journal's time moves only when the test says (nothing times out meanwhile).
    const clock = new VirtualClock({ start: h.clock.now(), autoAdvance: false });
    const journal = createSqliteJournal({ filename: ":memory:", clock });
    const { fetch, held } = holdingFetch(h.fetch);
    const client = h.makeClient({ journal, fetch, clock, fleet: { workerId: "shutting-down", leaseMs: LEASE } });
    const renewal = client.domains.renew(
      { domainUuid: h.domainUuid, body: { period: 1 } },
      { idempotencyKey: "close-1" },
    );
    while (held.length === 0) await new Promise((r) => setTimeout(r, 1));
    let closed = false;
    const closing = client.close().then(() => (closed = true));

    const sentBefore = h.captured.length;
    const refused = await client.domains
      .renew({ domainUuid: h.domainUuid, body: { period: 1 } }, { idempotencyKey: "close-2" })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isClientClosedError(refused)).toBe(true);
    expect((refused as ClientClosedError).message).toMatch(/domains\.renew was called after client\.close\(\)/);
    await expect(client.operations.wait("3f1e1c0e-8d4a-4c1b-9a55-5d3c1f0b2a11")).rejects.toBeInstanceOf(
      ClientClosedError,
    );
    await expect(client.recover()).rejects.toBeInstanceOf(ClientClosedError);
    const pages = client.domains.list({ query: { per_page: 1 } });
    await expect(Promise.resolve(pages)).rejects.toBeInstanceOf(ClientClosedError);
    expect(h.captured.length).toBe(sentBefore);
    expect(await journal.findByIdempotencyKey(h.publicKeyId, "close-2")).toBeUndefined();

    // The held renewal outlives two leases: the heartbeat still runs, so no survivor may take it.
    for (let t = 0; t < 2 * LEASE; t += LEASE / 6) {
      clock.advance(LEASE / 6);
      await new Promise((r) => setImmediate(r));
    }
    expect(closed).toBe(false);
    const survivor = h.makeClient({ journal, clock, fleet: { workerId: "survivor", leaseMs: LEASE } });
    expect((await survivor.recover()).examined).toBe(0);
    const during = await journal.findByIdempotencyKey(h.publicKeyId, "close-1");
    expect([during?.owner, (during?.leaseUntil ?? 0) > clock.now()]).toEqual(["shutting-down", true]);
    held.shift()!();
    const outcome = await renewal;
    await closing;
    expect(outcome.kind, JSON.stringify(outcome)).toBe("accepted");
    const record = await journal.findByIdempotencyKey(h.publicKeyId, "close-1");
    expect([record?.state, record?.owner]).toEqual(["accepted", "shutting-down"]);
    expect(requestsTo(h.captured, "POST", "/renew")).toHaveLength(1);
    await client.close(); // again: already closed
    await survivor.close();
    await journal.close();
  });

  it("G6: close() with nothing in flight resolves at once; a client without fleet mode closes the same way", async () => {
    const h = setup();
    const client = h.makeClient();
    expect((await client.context.get()).kind).toBe("succeeded");
    await client.close();
    await expect(client.context.get()).rejects.toSatisfy(isClientClosedError);
    expect(requestsTo(h.captured, "GET", "/context")).toHaveLength(1);
  });
});
