// Runs the same Redocly CLI that `npm run lint:spec` runs, once for the real spec and every fixture.
// Why the CLI and not @redocly/openapi-core's lint(): the installed openapi-core (1.x, pulled in by
// openapi-typescript) is a different major from the core bundled in @redocly/cli 2.x, so its verdict
// could differ from the one `npm run lint:spec` gives. One spawn for all files keeps this ~2 s.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { ops, root } from "./spec-doc";

const run = promisify(execFile);
const CLI = join(root, "node_modules/@redocly/cli/bin/cli.js");
const CONFIG = "spec/redocly.yaml";
const FIXTURES = "test/fixtures/lint";

interface Problem {
  ruleId: string;
  severity: "error" | "warn" | "warning";
  message: string;
  location: { source: { ref: string }; pointer: string }[];
}
interface Report {
  totals: { errors: number; warnings: number };
  problems: Problem[];
}

/** `redocly lint --format json` prints one JSON object per file, back to back. */
function splitJsonObjects(text: string): Report[] {
  const out: Report[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "{") {
      if (depth++ === 0) start = i;
    } else if (c === "}" && --depth === 0) out.push(JSON.parse(text.slice(start, i + 1)) as Report);
  }
  return out;
}

async function lint(files: string[]): Promise<Report[]> {
  // Exit code 1 just means "problems found"; the JSON on stdout is what we assert on.
  const result = await run(process.execPath, [CLI, "lint", ...files, "--config", CONFIG, "--format", "json"], {
    cwd: root,
    maxBuffer: 32 * 1024 * 1024,
  }).catch((error: unknown) => {
    const e = error as { stdout?: string; stderr?: string; code?: number };
    if (e.code !== 1 || !e.stdout) throw new Error(`redocly lint crashed (exit ${e.code}): ${e.stderr}`);
    return { stdout: e.stdout, stderr: e.stderr ?? "" };
  });
  const reports = splitJsonObjects(result.stdout);
  if (reports.length !== files.length)
    throw new Error(`expected ${files.length} reports, got ${reports.length}: ${result.stderr}`);
  return reports;
}

const failing = readdirSync(join(root, FIXTURES))
  .filter((f) => f.endsWith(".yaml") && f !== "valid.yaml")
  .map((f) => f.replace(/\.yaml$/, ""));

// rule id (without the `rule/` prefix) → the contract rule it enforces and the broken thing in its fixture.
const CASES: [rule: string, title: string][] = [
  ["idempotency-key-on-writes", "D1: a POST without Idempotency-Key"],
  ["unknown-outcome-on-writes", "E4: a POST without x-unknown-outcome"],
  ["no-idempotency-key-on-reads", "D1: a GET that takes Idempotency-Key"],
  ["rate-limit-429-response", "C11: an operation without a 429 response"],
  ["rate-limit-429-retry-after", "C11/C12: a 429 without Retry-After"],
  ["error-responses-use-envelope", "E1: a 422 JSON body that is not the ErrorEnvelope"],
  ["error-responses-json", "E1: a 500 with only an HTML body"],
  ["list-pagination-params", "H1: a list operation without per_page"],
  ["per-page-bounds", "H1: per_page with maximum 500"],
  ["operation-description", "J2: an operation without description"],
  ["parameter-description", "J2: a parameter without description"],
  ["schema-property-description", "J2: a schema property without description"],
  ["operation-security-scopes", "A6: a non-context operation without scopes"],
];

// Plugin rules (spec/plugins/reseller.js): rule id `reseller/<name>`, fixture `reseller-<name>.yaml`.
const PLUGIN_CASES: [rule: string, title: string][] = [
  ["error-status-codes", "E4: a 422 whose envelope names `conflict` (a 409 code)"],
  ["proxy-rate-limit", "C12: a 429 that allows only the API's JSON body"],
];

let problemsByFile: Map<string, Problem[]>;
let specReport: Report;
let validReport: Report;

beforeAll(async () => {
  const files = ["spec/openapi.yaml", `${FIXTURES}/valid.yaml`, ...failing.map((f) => `${FIXTURES}/${f}.yaml`)];
  const reports = await lint(files);
  [specReport, validReport] = reports;
  problemsByFile = new Map();
  for (const report of reports.slice(2))
    for (const p of report.problems) {
      const ref = p.location[0]?.source.ref ?? "?";
      problemsByFile.set(ref, [...(problemsByFile.get(ref) ?? []), p]);
    }
});

describe("spec/openapi.yaml lint (npm run lint:spec)", () => {
  it("J3: the real spec has zero errors and zero warnings", () => {
    expect(specReport.problems.map((p) => `${p.ruleId}: ${p.message} @ ${p.location[0]?.pointer}`)).toEqual([]);
    expect(specReport.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it("the control fixture (inline and $ref'd parameters, context.get without scopes) passes every rule", () => {
    expect(validReport.problems).toEqual([]);
  });

  it("every custom rule has exactly one failing fixture and every fixture has a test", () => {
    const config = readFileSync(join(root, CONFIG), "utf8");
    const declared = [...config.matchAll(/^ {2}rule\/([\w-]+):/gm)].map((m) => m[1]).sort();
    expect(declared).toEqual(CASES.map(([r]) => r).sort());
    const plugin = [...config.matchAll(/^ {2}reseller\/([\w-]+):/gm)].map((m) => m[1]).sort();
    expect(plugin).toEqual(PLUGIN_CASES.map(([r]) => r).sort());
    expect(failing.sort()).toEqual([...CASES.map(([r]) => r), ...PLUGIN_CASES.map(([r]) => `reseller-${r}`)].sort());
  });
});

describe("custom lint rules fire on their fixtures", () => {
  for (const [rule, title] of CASES)
    it(`${title} fails lint rule ${rule}`, () => {
      const problems = problemsByFile.get(`${FIXTURES}/${rule}.yaml`) ?? [];
      const ours = problems.filter((p) => p.ruleId === `rule/${rule}`);
      expect(ours.length, JSON.stringify(problems.map((p) => p.ruleId))).toBeGreaterThan(0);
      expect(ours.every((p) => p.severity === "error")).toBe(true);
      // The fixture breaks one thing only: no other custom rule fires on it.
      expect(problems.filter((p) => p.ruleId.startsWith("rule/") && p.ruleId !== `rule/${rule}`)).toEqual([]);
    });
});

describe("plugin rules fire on their fixtures", () => {
  for (const [rule, title] of PLUGIN_CASES)
    it(`${title} fails lint rule reseller/${rule}`, () => {
      const problems = problemsByFile.get(`${FIXTURES}/reseller-${rule}.yaml`) ?? [];
      const ours = problems.filter((p) => p.ruleId === `reseller/${rule}`);
      expect(ours.length, JSON.stringify(problems.map((p) => p.ruleId))).toBeGreaterThan(0);
      expect(ours.every((p) => p.severity === "error")).toBe(true);
      expect(problems.filter((p) => p.ruleId !== `reseller/${rule}` && !p.ruleId.startsWith("no-unused"))).toEqual([]);
    });
});

describe("reference docs (npm run docs)", () => {
  it("J1/J2: redocly build-docs renders a page listing every operation", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spec-docs-"));
    try {
      const out = join(dir, "ref.html");
      await run(process.execPath, [CLI, "build-docs", "spec/openapi.yaml", "--config", CONFIG, "-o", out], {
        cwd: root,
      });
      const html = readFileSync(out, "utf8");
      for (const o of ops) {
        expect(html, o.id).toContain(`"operationId":"${o.id}"`);
        expect(html, o.id).toContain(o.op.summary);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
