/**
 * `npm run generate` (generator/run.ts) and the generator CLI on broken specs: a spec that fails any
 * step writes nothing, every step's status is reported, and a generator failure is one clear line
 * (no worker stack trace). `npm run lint:spec` fails on a Redocly warning (J3: zero warnings).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT, tempDir, type TempDir } from "./support";

const TEXT = readFileSync(join(ROOT, "spec/openapi.yaml"), "utf8");
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the copies are edited node by node
const realSpec = (): any => parse(TEXT, { maxAliasCount: -1 });
const TSX = join(ROOT, "node_modules/.bin/tsx");

let dir: TempDir;
beforeAll(() => {
  dir = tempDir("run");
});
afterAll(() => dir.cleanup());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
function write(name: string, doc: any): string {
  const file = join(dir.dir, name);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

/** The real spec plus a server on example.com: Redocly's recommended no-server-example.com warns on it. */
function withExampleServer() {
  const doc = realSpec();
  doc.servers = [...(doc.servers ?? []), { url: "https://example.com/v1", description: "An example server." }];
  return doc;
}

const stackFree = (text: string) => {
  expect(text).not.toMatch(/^\s+at /m);
  expect(text).not.toContain("worker exited");
  expect(text).not.toContain("Unhandled");
};

describe("J3: npm run lint:spec fails on warnings", () => {
  it("J3: a Redocly warning (no-server-example.com) makes lint:spec exit 1", () => {
    const scripts = (
      JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
    ).scripts;
    const [command, ...args] = scripts["lint:spec"].split(" ");
    expect(command).toBe("redocly");
    const file = write("warn.json", withExampleServer());
    const lint = spawnSync(
      join(ROOT, "node_modules/.bin/redocly"),
      args.map((a) => (a === "spec/openapi.yaml" ? file : a)),
      { cwd: ROOT, encoding: "utf8" },
    );
    expect(lint.status, lint.stdout + lint.stderr).toBe(1);
    expect(lint.stdout + lint.stderr).toContain("no-server-example.com");
  }, 120_000);
});

describe("J3: npm run generate (generator/run.ts) writes nothing from a failing spec", () => {
  const generate = (spec: string, out: string) =>
    spawnSync(TSX, ["generator/run.ts", "--spec", spec, "--out", out], { cwd: ROOT, encoding: "utf8" });

  it("J3: a spec that fails lint (a warning) is not written, and the failing step is named", () => {
    const out = join(dir.dir, "lint-out");
    const run = generate(write("lint-fails.json", withExampleServer()), out);
    expect(run.status, run.stdout + run.stderr).toBe(1);
    expect(run.stderr).toContain("generate: lint:spec failed; generated/ was not written");
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
  }, 180_000);

  it("J3: when the generator fails first, lint and validate are still awaited and their status reported", () => {
    const doc = realSpec();
    doc.paths["/domains/{domainUuid}/renew"].post["x-lock-key"].field = "domainId";
    doc.paths["/balance"].get.description = ""; // also fails lint (J2 operation-description)
    const out = join(dir.dir, "gen-out");
    const run = generate(write("gen-fails.json", doc), out);
    expect(run.status, run.stdout + run.stderr).toBe(1);
    expect(run.stderr).toContain("generator: #/paths/~1domains~1{domainUuid}~1renew/post/x-lock-key/field: I6:");
    expect(run.stderr).toContain("rule/operation-description");
    expect(run.stderr).toContain("generate: lint:spec, generator failed; generated/ was not written");
    expect(run.stdout).toContain("validate: OpenAPI 3.1 schema valid");
    stackFree(run.stderr);
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
  }, 180_000);
});

describe("generator/main.ts: one clear line per failure, exit 1", () => {
  const main = (spec: string) =>
    spawnSync(TSX, ["generator/main.ts", "--spec", spec, "--out", join(dir.dir, "never")], {
      cwd: ROOT,
      encoding: "utf8",
    });

  it("a named spec-pointer error is not followed by a worker stack trace", () => {
    const doc = realSpec();
    doc.paths["/domains/{domainUuid}/renew"].post["x-lock-key"].field = "domainId";
    const run = main(write("pointer.json", doc));
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^generator: #\/paths\/~1domains~1\{domainUuid\}~1renew\/post\/x-lock-key\/field: I6: /),
    ]);
  }, 120_000);

  it("a duplicate operationId is one line naming it, not a stack trace", () => {
    const doc = realSpec();
    doc.paths["/domains/{domainUuid}/sync"].post.operationId = "domains.renew";
    const run = main(write("duplicate.json", doc));
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(
        /^generator: #\/paths\/~1domains~1\{domainUuid\}~1sync\/post: duplicate operationId domains\.renew$/,
      ),
    ]);
  }, 120_000);
});
