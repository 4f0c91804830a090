/** `reseller context` and `reseller domains list`: read-only commands (no journal writes, no recovery). */
import type { Writable } from "node:stream";
import type { ExitCode } from "./exit-codes";
import { EXIT } from "./exit-codes";
import type { Runtime } from "./job-session";
import { jsonLine, outputMode, renderPairs, RowPrinter, terminalColumns } from "./output";
import { openSession, type GlobalOptions } from "./session";
import { zoneOf } from "./rows";
import { listedDomainOf, type ListedDomain } from "./shape";

export async function runContext(global: GlobalOptions, rt: Runtime): Promise<ExitCode> {
  const session = await openSession(global, rt);
  try {
    for (const n of session.notices) rt.stderr.write(n + "\n");
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
      journal: session.journalLabel,
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

export async function runDomainsList(global: GlobalOptions, rt: Runtime, options: ListOptions): Promise<ExitCode> {
  const session = await openSession(global, rt);
  try {
    for (const n of session.notices) rt.stderr.write(n + "\n");
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
    const zone = options.zone?.replace(/^\./, "").toLowerCase();
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
      if (options.status && d.status !== options.status) continue;
      if (zone && zoneOf(d.name, [zone]) !== zone) continue;
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
      rt.stderr.write(
        `reseller: ${skipped} listed item(s) without a uuid, a name or a valid expires_at were skipped\n`,
      );
    if (!mode.json) rt.stderr.write(`${count} domain(s)\n`);
    return EXIT.ok;
  } finally {
    await session.close();
  }
}
