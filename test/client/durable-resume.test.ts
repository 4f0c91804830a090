// G1/D3/D4/I5 with a durable journal (SQLite): a command whose outcome was unknown survives a process
// "crash" (journal closed and reopened) and is resumed with the SAME key and the SAME body bytes read
// back from the journal — the renewal happens once.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import { decode, requestsTo, setup } from "./harness";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("client: durable resume", () => {
  it("G1/G4: unknown renew → crash → reopen journal → resend the stored bytes with the stored key → one renewal", async () => {
    const dir = mkdtempSync(join(tmpdir(), "reseller-client-"));
    dirs.push(dir);
    const filename = join(dir, "journal.db");
    const h = setup({ client: { retry: { maxAttempts: 2 } } });
    h.emulator.control.addFault({ method: "POST", path: "/domains/{domainUuid}/renew", kind: "reset_after" });
    h.emulator.control.addFault({ method: "POST", path: "/domains/{domainUuid}/renew", kind: "error_503_before" });

    const journal1 = createSqliteJournal({ filename });
    const first = await h
      .makeClient({ journal: journal1 })
      .domains.renew({ domainUuid: h.domainUuid, body: { period: 3 } });
    expect(first.kind).toBe("unknown");
    await journal1.close(); // the process dies here

    const journal2 = createSqliteJournal({ filename });
    const [pending] = await journal2.listByState(["unknown"]);
    expect(pending.idempotencyKey).toBe(first.idempotencyKey);
    expect(decode(pending.body)).toBe('{"period":3}');
    expect(pending.attempts).toHaveLength(2);

    const client = h.makeClient({ journal: journal2 });
    const resumed = await client.domains.renew(
      { domainUuid: h.domainUuid, body: pending.body as never },
      { idempotencyKey: pending.idempotencyKey },
    );
    expect(resumed.kind).toBe("accepted");
    if (resumed.kind !== "accepted") return;
    expect(resumed.replayed).toBe(true); // the first attempt had renewed; the key bound it (D7)
    expect(resumed.commandId).toBe(pending.id);
    const after = await journal2.get(pending.id);
    expect(after?.state).toBe("accepted");
    expect(after?.attempts).toHaveLength(3);
    const sent = requestsTo(h.captured, "POST", "/renew");
    expect(new Set(sent.map((s) => s.headers["idempotency-key"])).size).toBe(1);
    expect(new Set(sent.map((s) => decode(s.body))).size).toBe(1);
    expect(h.emulator.control.effects().filter((e) => e.kind.includes("renew"))).toHaveLength(1);
    await journal2.close();
  });
});
