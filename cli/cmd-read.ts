/**
 * `reseller context` and `reseller domains list`: read-only commands. They open no journal at all
 * (no file, no folder, no connection) and run no recovery; `context` names where jobs journal.
 */
import type { Writable } from "node:stream";
import type { ExitCode } from "./exit-codes";
import { UsageError } from "./errors";
import { EXIT } from "./exit-codes";
import type { Runtime } from "./job-session";
import { jsonLine, outputMode, renderPairs, RowPrinter, stderrNotice, terminalColumns } from "./output";
import { openSession, type GlobalOptions } from "./session";
import { zoneOf } from "./rows";
import { listedDomainOf, type ListedDomain } from "./shape";

export async function runContext(global: GlobalOptions, rt: Runtime): Promise<ExitCode> {
  const session = await openSession(global, rt, "none");
  try {
    for (const n of session.notices) stderrNotice(rt.stderr, global.json, n);
    const ctx = await session.context();
    const info = {
      environment: ctx.environment,
      base_url: session.baseUrl,
      key_id: ctx.publicKeyId,
      reseller_status: ctx.resellerStatus,
      scopes: ctx.scopes,
      rate_limit_per_window: ctx.limit,
      window_ms: session.windowMs,
      window_source: global.windowFromFlag
        ? "--window-ms"
        : global.emulator
          ? "the in-process emulator's"
          : "the API's documented window (the server does not report it; --window-ms if yours differs)",
      window: "fixed, starts at the first counted request (C3)",
      key_expires_at: ctx.expiresAt,
      language: ctx.language,
      // Where a job (renew, register, recover) would journal; this command itself opens none.
      jobs_journal: session.journalLabel,
    };
    const mode = outputMode(global.json, rt.stdout, rt.stderr);
    rt.stdout.write(
      mode.json
        ? jsonLine(info)
        : renderPairs(Object.entries(info), { wide: global.wide === true, columns: terminalColumns(rt.stdout) }),
    );
    return EXIT.ok;
  } finally {
    await session.close();
  }
}

export interface ListOptions {
  expiringWithinMs?: number;
  status?: string;
  zone?: string;
  zones: readonly string[];
}

/** Every status a domain can have (the API's Domain.status). */
export const DOMAIN_STATUSES = ["active", "expired", "pending", "suspended"] as const;

/** --status and --zone name values that exist, or the invocation is a usage error (never "0 rows"). */
function checkFilters(options: ListOptions): { status?: string; zone?: string } {
  const status = options.status?.trim().toLowerCase();
  if (status !== undefined && !(DOMAIN_STATUSES as readonly string[]).includes(status))
    throw new UsageError(`--status takes one of ${DOMAIN_STATUSES.join(", ")}, got ${JSON.stringify(options.status)}.`);
  const zone = options.zone?.trim().replace(/^\./, "").toLowerCase();
  if (zone !== undefined && !options.zones.includes(zone))
    throw new UsageError(
      `--zone takes one of the zones ${options.zones.join(", ")} (--zones to change the list), got ${JSON.stringify(options.zone)}.`,
    );
  return { status, zone };
}

export async function runDomainsList(global: GlobalOptions, rt: Runtime, options: ListOptions): Promise<ExitCode> {
  const { status, zone } = checkFilters(options);
  const session = await openSession(global, rt, "none");
  try {
    for (const n of session.notices) stderrNotice(rt.stderr, global.json, n);
    const mode = outputMode(global.json, rt.stdout, rt.stderr);
    const printer = new RowPrinter<ListedDomain>(
      rt.stdout,
      mode,
      [
        { header: "name", value: (d) => d.name },
        { header: "expires", value: (d) => d.expires_at.slice(0, 10) },
        {
          header: "days left",
          value: (d) => Math.floor((Date.parse(d.expires_at) - Date.now()) / 86_400_000),
          priority: 2,
        },
        { header: "status", value: (d) => d.status, priority: 1 },
        { header: "auto-renew", value: (d) => (d.auto_renew ? "yes" : "no"), priority: 3 },
        { header: "uuid", value: (d) => d.uuid, priority: 4 },
      ],
      (row) => row,
      { wide: global.wide === true, columns: terminalColumns(rt.stdout) },
    );
    const horizon = options.expiringWithinMs === undefined ? undefined : Date.now() + options.expiringWithinMs;
    let count = 0;
    let skipped = 0;
    // Every page, 100 per request; the pacer spaces them within the key's window.
    for await (const item of session.client.domains.list({ query: { per_page: 100 } })) {
      const d = listedDomainOf(item);
      if (!d) {
        skipped += 1; // E5: an item of the wrong shape is reported, not a TypeError
        continue;
      }
      if (horizon !== undefined && Date.parse(d.expires_at) > horizon) continue;
      if (status && d.status !== status) continue;
      // Exact: the name's zone as the CLI's zone list reads it, so kz never includes com.kz.
      if (zone && zoneOf(d.name.toLowerCase(), options.zones) !== zone) continue;
      count += 1;
      printer.push({
        uuid: d.uuid,
        name: d.name,
        status: d.status,
        expires_at: d.expires_at,
        auto_renew: d.auto_renew,
      });
      if ((rt.stdout as Writable).writableNeedDrain) await new Promise((r) => (rt.stdout as Writable).once("drain", r));
    }
    printer.end("no domain matches");
    if (skipped > 0)
      stderrNotice(
        rt.stderr,
        global.json,
        `${skipped} listed item(s) without a uuid, a name or a valid expires_at were skipped`,
      );
    if (!mode.json) stderrNotice(rt.stderr, global.json, `${count} domain(s)`);
    return EXIT.ok;
  } finally {
    await session.close();
  }
}
