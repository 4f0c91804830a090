/**
 * The built `reseller` bin installed as a user gets it — `npm install reseller-api`, without the
 * optional better-sqlite3 — run by Bun, Node.js 22, Deno and Node.js 20: each opens its own SQLite
 * on its own (bun:sqlite, node:sqlite), and where none loads or the runtime may not write the file,
 * the advice works there (never "pass --journal FILE" for a missing driver).
 */
import { cpSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSqliteJournal } from "../../stores/sqlite-journal";
import { runtimeBinary } from "../runtimes/binaries";
import { REPO, buildBin, jsonLines, runCli, tempDir } from "./harness";

const tmp = tempDir("reseller-cli-runtimes-");
let built: { bin: string };
let app: string;
let bin: string;

beforeAll(() => {
  built = buildBin();
  // node_modules/reseller-api as npm installs it, with its one dependency and no optional peer.
  app = join(tmp.dir, "app");
  const pkg = join(app, "node_modules", "reseller-api");
  mkdirSync(pkg, { recursive: true });
  cpSync(join(built.bin, ".."), join(pkg, "dist"), { recursive: true });
  cpSync(join(REPO, "package.json"), join(pkg, "package.json"));
  for (const dep of ["openapi-fetch", "openapi-typescript-helpers"])
    symlinkSync(join(REPO, "node_modules", dep), join(app, "node_modules", dep), "dir");
  writeFileSync(join(app, "package.json"), JSON.stringify({ private: true, dependencies: { "reseller-api": "*" } }));
  bin = join(pkg, "dist", "reseller.js");
}, 900_000);
afterAll(() => {
  tmp.cleanup();
});

const env = (extra: Record<string, string> = {}) => ({ XDG_STATE_HOME: join(tmp.dir, "state"), ...extra });
const journalNotices = (stderr: string) =>
  jsonLines(stderr)
    .filter((e) => e.type === "notice" && String(e.message).startsWith("journal: "))
    .map((e) => String(e.message));

/** Commands the journal file holds, read back by this (Node.js 20, better-sqlite3) process. */
async function commandsIn(file: string) {
  const journal = createSqliteJournal({ filename: file });
  try {
    return await journal.listCommands({ limit: 100 });
  } finally {
    await journal.close();
  }
}

// Each case opens its journal with `--emulator --journal FILE recover`: a command that may send, so it
// creates the journal (the `commands …` commands never create one).
describe("the reseller bin on each runtime, without better-sqlite3", () => {
  it("G1: Bun journals through bun:sqlite by itself; the file opens anywhere", async () => {
    const file = join(tmp.dir, "bun.sqlite");
    const args = ["--emulator", "--journal", file, "renew", "--expiring-within", "400d", "--no-wait", "--json"];
    const r = await runCli([bin, ...args], [], env(), undefined, runtimeBinary("bun"));
    expect(r.code, r.stderr).toBe(0);
    expect(journalNotices(r.stderr)).toEqual([`journal: ${file} (bun:sqlite)`]);
    const results = jsonLines(r.stdout);
    expect(results.map((x) => x.kind)).toEqual(["accepted", "accepted", "accepted"]);
    const commands = await commandsIn(file);
    expect(commands.map((c) => c.idempotencyKey).sort()).toEqual(results.map((x) => x.idempotencyKey).sort());
  }, 120_000);

  it("G1: Node.js 22 falls back to its built-in node:sqlite", async () => {
    const file = join(tmp.dir, "node22.sqlite");
    const r = await runCli(
      [bin, "--emulator", "--journal", file, "recover"],
      [],
      env(),
      undefined,
      runtimeBinary("node22"),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(journalNotices(r.stderr)).toEqual([`journal: ${file} (node:sqlite)`]);
    expect(existsSync(file)).toBe(true);
  }, 120_000);

  it("Deno: node:sqlite with -A; without write permission the advice is Deno's flags, not another --journal", async () => {
    const deno = runtimeBinary("deno");
    const file = join(tmp.dir, "deno", "deno.sqlite");
    mkdirSync(join(tmp.dir, "deno"), { recursive: true });
    const denied = await runCli(
      [
        "run",
        "--allow-env",
        "--allow-sys",
        "--allow-net",
        "--allow-read",
        bin,
        "--emulator",
        "--journal",
        file,
        "recover",
      ],
      [],
      env(),
      undefined,
      deno,
      app,
    );
    expect(denied.code, denied.stderr).toBe(4);
    const [error] = jsonLines(denied.stderr).filter((e) => e.type === "error");
    expect(error.message).toContain(`--allow-write=${join(tmp.dir, "deno")}`);
    expect(error.message).not.toContain("--journal FILE");
    const allowed = await runCli(
      ["run", "-A", bin, "--emulator", "--journal", file, "recover"],
      [],
      env(),
      undefined,
      deno,
      app,
    );
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(journalNotices(allowed.stderr)).toEqual([`journal: ${file} (node:sqlite)`]);
  }, 120_000);

  it("Node.js 20 has no SQLite of its own: exit 4 with what works (install better-sqlite3, a newer Node.js, Bun or Deno, PostgreSQL); no file made", async () => {
    const file = join(tmp.dir, "node20.sqlite");
    const r = await runCli([bin, "--emulator", "--journal", file, "recover"], [], env());
    expect(r.code).toBe(4);
    const [error] = jsonLines(r.stderr).filter((e) => e.type === "error");
    expect(error.code).toBe("cli_setup");
    expect(error.message).toContain("npm install better-sqlite3");
    expect(error.message).toMatch(/Node\.js ≥ 22\.5.*Bun.*Deno/);
    expect(error.message).toContain("--journal postgres://");
    expect(error.message).not.toContain("--journal FILE");
    expect(existsSync(file)).toBe(false);
  }, 120_000);
});
