/**
 * The CLI's jobs against `reseller-emulator` over loopback (cli/main.ts through `node --import tsx`):
 * credentials never from argv, register from CSV with line-numbered bad rows and --on-error, dry runs
 * that send no purchase, Ctrl-C that lets in-flight rows settle and resumes, and the support note of
 * a command that needs a manual check.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import { cli, jsonLines, runCli, seedDomains, spawnCli, startEmulator, tempDir, type EmulatorProcess } from "./harness";

let emu: EmulatorProcess;
const tmp = tempDir("reseller-cli-jobs-");
let n = 0;
const journal = () => join(tmp.dir, `journal-${++n}.sqlite`);
const env = () => ({ RESELLER_API_TOKEN: emu.token, RESELLER_API_BASE_URL: emu.baseUrl });
const writes = (requests: { method: string; path: string }[], path: RegExp) =>
  requests.filter((r) => r.method !== "GET" && path.test(r.path));

beforeAll(async () => {
  emu = await startEmulator(["--window-ms", "1000", "--rate-limit", "300"]);
});
afterAll(async () => {
  await emu?.stop();
  tmp.cleanup();
});

describe("credentials", () => {
  it("A4: a token on the command line is refused, with where to put it, and never echoed", async () => {
    for (const args of [
      ["context", "--token", emu.token],
      ["context", `--token=${emu.token}`],
      ["check", emu.token],
    ]) {
      const r = await runCli(cli(), args, {});
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("RESELLER_API_TOKEN");
      expect(r.stderr).toContain("--token-file");
      expect(r.stderr + r.stdout).not.toContain(emu.token.split(".")[1]);
    }
  });

  it("A4: the token comes from RESELLER_API_TOKEN or --token-file; none at all is a usage error", async () => {
    const none = await runCli(cli(), ["context"], { RESELLER_API_BASE_URL: emu.baseUrl, RESELLER_API_TOKEN: "" });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("No API token");
    const file = join(tmp.dir, "token");
    writeFileSync(file, emu.token + "\n", { mode: 0o600 });
    const r = await runCli(cli(), ["context", "--token-file", file, "--journal", journal()], {
      RESELLER_API_BASE_URL: emu.baseUrl,
      RESELLER_API_TOKEN: "",
    });
    expect(r.code, r.stderr).toBe(0);
    const [info] = jsonLines(r.stdout);
    expect(info).toMatchObject({ environment: "test", key_id: emu.keyId, rate_limit_per_window: 300 });
    expect(r.stdout + r.stderr).not.toContain(emu.token);
  });
});

describe("register", () => {
  it("F5/D7: CSV orders — bad rows get line-numbered errors before anything is sent for them; a re-run orders nothing twice", async () => {
    const csv = join(tmp.dir, "orders.csv");
    writeFileSync(
      csv,
      [
        "external_id,domain,period,nameservers",
        "crm-1,first-order.kz,1,ns1.example.kz ns2.example.kz",
        ",no-id.kz,1,",
        "crm-2,second-order.com.kz,2,",
        "crm-3,wrong-zone.xyz,1,",
        "crm-1,first-order.kz,1,ns1.example.kz ns2.example.kz",
        "crm-2,other-domain.kz,1,",
        'crm-4,"unterminated.kz,1,',
      ].join("\n") + "\n",
    );
    const j = journal();
    const r = await runCli(cli(), ["register", csv, "--journal", j], env());
    expect(r.code, r.stderr).toBe(1);
    const results = jsonLines(r.stdout);
    const byLine = Object.fromEntries(results.map((x) => [x.line, x]));
    expect(byLine[2]).toMatchObject({ kind: "done", subject: "first-order.kz" });
    expect(byLine[3]).toMatchObject({ kind: "invalid", message: expect.stringContaining("external_id is required") });
    expect(byLine[4]).toMatchObject({ kind: "done", subject: "second-order.com.kz" });
    expect(byLine[5]).toMatchObject({ kind: "invalid", message: expect.stringContaining("unknown zone .xyz") });
    expect(byLine[6]).toMatchObject({ kind: "invalid", message: expect.stringContaining("duplicate of line 2") });
    expect(byLine[7]).toMatchObject({
      kind: "invalid",
      message: expect.stringContaining("already used on line 4 for a different order"),
    });
    expect(results.find((x) => x.kind === "invalid" && /malformed CSV/.test(x.message))).toBeTruthy();
    const effects = (await emu.control<{ kind: string; idempotency_key: string }[]>("GET", "/effects")).filter(
      (e) => e.kind === "order.create",
    );
    expect(effects.map((e) => e.idempotency_key).sort()).toEqual(["rsl-cli:register:crm-1", "rsl-cli:register:crm-2"]);

    const before = (await emu.control<unknown[]>("GET", "/requests")).length;
    const again = await runCli(cli(), ["register", csv, "--journal", j], env());
    expect(again.code).toBe(1); // the bad rows are still bad
    expect(
      jsonLines(again.stdout)
        .filter((x) => x.kind === "already_done")
        .map((x) => x.line),
    ).toEqual([2, 4]);
    const requests = (await emu.control<{ method: string; path: string }[]>("GET", "/requests")).slice(before);
    expect(writes(requests, /./)).toEqual([]);

    // The same external_id with another body, in a later file: refused against the journal.
    const changed = join(tmp.dir, "changed.jsonl");
    writeFileSync(changed, JSON.stringify({ external_id: "crm-1", domain: "first-order.kz", period: 3 }) + "\n");
    const reused = await runCli(cli(), ["register", changed, "--journal", j], env());
    expect(reused.code).toBe(1);
    expect(jsonLines(reused.stdout)[0]).toMatchObject({
      line: 1,
      kind: "invalid",
      message: expect.stringContaining("already used for a different order"),
    });
  });

  it("--on-error stop: the first bad row stops new rows from starting", async () => {
    const file = join(tmp.dir, "stop.jsonl");
    const rows = [
      { external_id: "stop-1", domain: "stop-one.kz" },
      { external_id: "stop-2", domain: "bad..kz" },
      { external_id: "stop-3", domain: "stop-three.kz" },
    ];
    writeFileSync(file, rows.map((x) => JSON.stringify(x)).join("\n") + "\n");
    const r = await runCli(
      cli(),
      ["register", file, "--journal", journal(), "--on-error", "stop", "--concurrency", "1"],
      env(),
    );
    expect(r.code).toBe(1);
    const results = jsonLines(r.stdout);
    expect(results.map((x) => x.kind)).toEqual(["done", "invalid"]);
    expect(jsonLines(r.stderr).find((e) => e.type === "summary")).toMatchObject({ stoppedByPolicy: true });
  });
});

describe("dry runs", () => {
  it("--dry-run shows what would be sent and what it would cost, and sends no renewal", async () => {
    const names = await seedDomains(emu, 5, "dry", 5);
    const file = join(tmp.dir, "dry.txt");
    writeFileSync(file, names.join("\n") + "\n");
    const before = (await emu.control<unknown[]>("GET", "/requests")).length;
    const r = await runCli(cli(), ["renew", file, "--dry-run", "--period", "2", "--journal", journal()], env());
    expect(r.code, r.stderr).toBe(0);
    const results = jsonLines(r.stdout);
    expect(results).toHaveLength(5);
    for (const x of results) {
      expect(x.kind).toBe("dry_run");
      expect(x.message).toMatch(/^would send POST \/domains\/[0-9a-f-]{36}\/renew \{"period":2\}$/);
      expect(x.data.price).toEqual({ amount: "9000.00", currency: "KZT" });
    }
    expect(jsonLines(r.stderr).find((e) => e.type === "notice" && /would cost/.test(e.message))?.message).toContain(
      "45000.00 KZT",
    );
    const requests = (await emu.control<{ method: string; path: string }[]>("GET", "/requests")).slice(before);
    expect(writes(requests, /renew|orders/)).toEqual([]);
  });

  it("check --dry-run needs no credentials and sends nothing", async () => {
    const r = await runCli(cli(), ["check", "--dry-run", "a-name.kz", "b-name.kz"], {
      RESELLER_API_TOKEN: "",
      RESELLER_API_BASE_URL: "",
    });
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout).map((x) => x.kind)).toEqual(["dry_run", "dry_run"]);
  });
});

describe("interruption", () => {
  it("G4: the first Ctrl-C stops new rows, lets in-flight ones settle and says how to resume; the re-run finishes, once per domain", async () => {
    const names = await seedDomains(emu, 40, "intr", 5);
    const file = join(tmp.dir, "intr.txt");
    writeFileSync(file, names.join("\n") + "\n");
    const j = journal();
    const args = ["renew", file, "--journal", j, "--window-ms", "1000", "--concurrency", "10"];
    const run = spawnCli(cli(), args, env());
    await run.until((out) => (out.match(/"kind":"done"/g) ?? []).length >= 3);
    run.child.kill("SIGINT");
    const { code } = await run.exited;
    expect(code).toBe(130);
    const events = jsonLines(run.stderr());
    expect(events.find((e) => e.type === "interrupt")).toBeTruthy();
    expect(events.find((e) => e.type === "summary")).toMatchObject({
      interrupted: true,
      resume: expect.stringContaining("Re-run the same command"),
    });
    const first = jsonLines(run.stdout());
    expect(first.length).toBeLessThan(40);
    // Rows in flight settled before the exit: no command is left mid-send (accepted ones wait for the re-run).
    const store = createSqliteJournal({ filename: j });
    try {
      expect((await store.listByState(["recorded", "sending"])).map((c) => c.state)).toEqual([]);
    } finally {
      await store.close();
    }

    const again = await runCli(cli(), args, env());
    expect(again.code, again.stderr).toBe(0);
    // A row the first run renewed reports the same terms on the re-run, not the renewed expiry twice.
    const done = first.filter((r) => r.kind === "done");
    const repeated = jsonLines(again.stdout).filter((r) => r.kind === "already_done");
    expect(done.length).toBeGreaterThan(0);
    for (const before of done) {
      const r = repeated.find((x) => x.line === before.line);
      expect([r?.data.from, r?.data.target]).toEqual([before.data.from, before.data.target]);
    }
    const effects = (await emu.control<{ kind: string; idempotency_key: string }[]>("GET", "/effects")).filter(
      (e) => e.kind === "domain.renew",
    );
    const ours = new Set(
      (await emu.control<{ uuid: string; name: string }[]>("GET", "/domains"))
        .filter((d) => d.name.startsWith("intr"))
        .map((d) => d.uuid),
    );
    const renewed = effects.filter((e) => ours.has(e.idempotency_key.split(":")[2]));
    expect(renewed).toHaveLength(40);
    expect(new Set(renewed.map((e) => e.idempotency_key)).size).toBe(40);
  });
});

describe("manual checks", () => {
  it("F4: a renewal stuck in processing becomes needs_manual_check, printed as a support note with ids and no secret", async () => {
    const [name] = await seedDomains(emu, 1, "stuck", 5);
    const file = join(tmp.dir, "stuck.txt");
    writeFileSync(file, name + "\n");
    await emu.control("POST", "/faults", {
      method: "POST",
      path: "/domains/{domainUuid}/renew",
      kind: "stuck_processing",
      times: 1,
    });
    const j = journal();
    const args = ["renew", file, "--journal", j, "--window-ms", "1000", "--request-timeout", "1s"];
    const first = await runCli(cli(), args, env());
    expect(first.code).toBe(3);
    expect(jsonLines(first.stdout)[0]).toMatchObject({ kind: "unknown" });

    const second = await runCli(cli(), args, env());
    expect(second.code).toBe(3);
    expect(jsonLines(second.stdout)[0]).toMatchObject({
      kind: "manual",
      message: expect.stringContaining("reseller commands notes"),
    });

    const notes = await runCli(cli(), ["commands", "notes", "--journal", j], {});
    expect(notes.code).toBe(0); // printing the notes is the success; the job itself exited 3
    const [note] = jsonLines(notes.stdout);
    expect(note.note).toContain(`API key id:       ${emu.keyId}`);
    expect(note.note).toMatch(/X-Request-IDs: {4}[0-9a-f-]{36}/);
    expect(note.note).toMatch(/Domain UUID: {6}[0-9a-f-]{36}/);
    expect(note.note).toMatch(/First sent: {7}\d{4}-\d\d-\d\dT/);
    expect(note.note).toContain("409");
    expect(JSON.stringify(note)).not.toContain(emu.token.split(".")[1]);
    const listed = await runCli(cli(), ["commands", "list", "--state", "needs_manual_check", "--journal", j], {});
    expect(jsonLines(listed.stdout)).toHaveLength(1);
  });
});
