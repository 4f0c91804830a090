// API reports of the public surface: one etc/<entry>.api.md per package.json export, made by
// @microsoft/api-extractor from the built dist/*.d.ts (run `npm run bundle` first).
//   node etc/api-report.mjs check   fails when a report is stale, missing, or shows `any`
//   node etc/api-report.mjs update  rewrites the reports
// A new export in package.json gets its report with no change here.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const mode = process.argv[2];
if (mode !== "check" && mode !== "update") {
  console.error("usage: node etc/api-report.mjs check|update");
  process.exit(2);
}
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** "./stores/sqlite" → "reseller-api-stores-sqlite": one report name per export subpath. */
const reportName = (subpath) => [pkg.name, ...subpath.slice(2).split("/").filter(Boolean)].join("-");

const entries = Object.entries(pkg.exports)
  .filter(([, target]) => typeof target === "object" && target.import?.types)
  .map(([subpath, target]) => ({ subpath, name: reportName(subpath), dts: join(root, target.import.types) }));

const missing = entries.filter((e) => !existsSync(e.dts));
if (missing.length > 0) {
  console.error(`Missing ${missing.map((e) => e.dts).join(", ")}: run \`npm run bundle\` first.`);
  process.exit(1);
}

const reportFolder = join(root, "etc");
const tempFolder = join(root, ".tmp", "api");
mkdirSync(tempFolder, { recursive: true });
const problems = [];

for (const entry of entries) {
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: entry.dts,
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: "ES2022",
            module: "ESNext",
            moduleResolution: "Bundler",
            lib: ["ES2022", "DOM"],
            types: ["node"],
            skipLibCheck: true,
            strict: true,
          },
          files: [entry.dts],
        },
      },
      apiReport: { enabled: true, reportFileName: `${entry.name}.api.md`, reportFolder, reportTempFolder: tempFolder },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: "warning" } },
        // Release tags (@public/@beta) are not used here: everything exported is public.
        extractorMessageReporting: {
          default: { logLevel: "warning" },
          "ae-missing-release-tag": { logLevel: "none", addToApiReportFile: false },
          // Doc coverage is the docs site's concern; this report tracks shapes.
          "ae-undocumented": { logLevel: "none", addToApiReportFile: false },
          // Kept in the report as a comment (a type users reach but cannot import by name), not a failure.
          "ae-forgotten-export": { logLevel: "none", addToApiReportFile: true },
        },
        tsdocMessageReporting: { default: { logLevel: "none" } },
      },
    },
    configObjectFullPath: join(root, "etc", "api-extractor.json"),
    packageJsonFullPath: join(root, "package.json"),
  });
  const result = Extractor.invoke(config, {
    localBuild: mode === "update",
    showVerboseMessages: false,
    messageCallback: quiet,
  });
  if (mode === "check" && result.apiReportChanged) {
    problems.push(
      `etc/${entry.name}.api.md is stale (${entry.subpath}): run \`npm run bundle && npm run api:update\`, commit it, and add a changeset whose bump matches the change.`,
    );
  } else if (!result.succeeded) {
    problems.push(
      `api-extractor failed for ${entry.subpath} (${result.errorCount} errors, ${result.warningCount} warnings).`,
    );
  }
  const report = join(reportFolder, `${entry.name}.api.md`);
  if (existsSync(report)) {
    const anyLines = readFileSync(report, "utf8")
      .split("\n")
      .filter((line) => !line.trimStart().startsWith("//") && /\bany\b/.test(line));
    if (anyLines.length > 0)
      problems.push(`etc/${entry.name}.api.md: \`any\` in the public API:\n  ${anyLines.join("\n  ")}`);
  }
}

// A report whose export was removed from package.json is stale too.
const expected = new Set(entries.map((e) => `${e.name}.api.md`));
for (const file of readdirSync(reportFolder).filter((f) => f.endsWith(".api.md") && !expected.has(f))) {
  if (mode === "update") rmSync(join(reportFolder, file));
  else problems.push(`etc/${file} has no export in package.json: run \`npm run api:update\`.`);
}

if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log(
  `${entries.length} API reports ${mode === "update" ? "written" : "current"} (${[...expected].join(", ")}).`,
);

function quiet(message) {
  // The report diff itself is printed by the check above; the rest stays at its configured level.
  const noise = [
    "console-api-report-changed",
    "console-api-report-copied",
    "console-api-report-created",
    "console-compiler-version-notice",
  ];
  if (noise.includes(message.messageId)) message.handled = true;
}
