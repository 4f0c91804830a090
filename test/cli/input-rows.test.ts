/**
 * Input rows, as an operator writes them: an external_id that is the token's secret part is an
 * `invalid` row (D-rules: it could never be matched again), and a domain named twice — once by UUID,
 * once by name — keeps the first line, as for the same name twice.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, jsonLines, runCli, seedDomains, useEmulatorProcess } from "./harness";

const fx = useEmulatorProcess(["--window-ms", "1000", "--rate-limit", "600"], "reseller-cli-input-rows-");
const { tmp, env } = fx;
let n = 0;
const journal = () => join(tmp.dir, `j-${++n}.sqlite`);
const file = (name: string, text: string) => {
  const path = join(tmp.dir, name);
  writeFileSync(path, text);
  return path;
};

describe("an external_id that is a secret", () => {
  it("A4: an external_id equal to the token's secret part is an invalid row: nothing sent, exit 1, never printed", async () => {
    const secret = fx.emu.token.slice(fx.emu.token.lastIndexOf(".") + 1);
    const orders = file(
      "tok-orders.csv",
      `external_id,domain,period,nameservers\n${secret},secretid-one.kz,1,\nok-order-1,secretid-two.kz,1,\n`,
    );
    const orderEffects = async () =>
      (await fx.emu.control<{ kind: string }[]>("GET", "/effects")).filter((e) => e.kind === "order.create").length;
    const j = journal();
    for (const args of [
      ["register", "--dry-run", orders, "--journal", j],
      ["register", orders, "--journal", j],
      ["register", orders, "--journal", j], // a re-run: the same, never unknown
    ]) {
      const before = await orderEffects();
      const r = await runCli(cli(), args, env());
      expect(r.code, r.stderr).toBe(1);
      const rows = jsonLines(r.stdout);
      expect(rows[0]).toMatchObject({ line: 2, kind: "invalid" });
      expect(rows[0].message).toMatch(/change the external_id/);
      expect(r.stdout + r.stderr).not.toContain(secret);
      if (!args.includes("--dry-run")) expect(await orderEffects()).toBeLessThanOrEqual(before + 1); // only the other row
    }
    const recover = await runCli(cli(), ["recover", "--journal", j], env());
    expect(recover.code, recover.stderr).toBe(0);
  });
});

describe("a domain named by UUID and by name", () => {
  it("D1: `<uuid>,2` on line 1 and its name on line 3: line 1 is kept (renewed 2 years), line 3 is the duplicate", async () => {
    const [name, other] = await seedDomains(fx.emu, 2, "uuidname");
    const domains = await fx.emu.control<{ uuid: string; name: string }[]>("GET", "/domains");
    const uuid = domains.find((d) => d.name === name)!.uuid;
    const input = file("uuid-name.txt", `${uuid},2\n${other}\n${name}\n`);
    const r = await runCli(cli(), ["renew", input, "--journal", journal()], env());
    expect(r.code, r.stderr).toBe(1);
    const rows = jsonLines(r.stdout).sort((a, b) => a.line - b.line);
    expect(rows.map((x) => [x.line, x.kind])).toEqual([
      [1, "done"],
      [2, "done"],
      [3, "invalid"],
    ]);
    expect(rows[0].data.period).toBe(2);
    expect(rows[2].message).toMatch(/duplicate of line 1/);
  });
});

describe("register waits for its orders", () => {
  it("F5: a placed order is `done` only once it completed (not while pending); a re-run is already_done, nothing sent", async () => {
    const orders = file(
      "wait-orders.csv",
      "external_id,domain,period,nameservers\nwait-order-1,wait-order-one.kz,1,\n",
    );
    const j = journal();
    const r = await runCli(cli(), ["register", orders, "--journal", j], env());
    expect(r.code, r.stderr).toBe(0);
    const [row] = jsonLines(r.stdout);
    expect(row).toMatchObject({ kind: "done", message: "order completed" });
    const orderUuid = row.orderUuid as string;
    const order = await fx.emu.control<{ status: string }>("GET", `/orders/${orderUuid}`).catch(() => undefined);
    if (order) expect(order.status).toBe("completed");
    const again = await runCli(cli(), ["register", orders, "--journal", j], env());
    expect(again.code, again.stderr).toBe(0);
    expect(jsonLines(again.stdout)[0]).toMatchObject({ kind: "already_done" });
  });
});
