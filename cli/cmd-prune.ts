/**
 * `reseller commands prune --older-than 30d [--dry-run]`: the journal's data-at-rest retention (H2)
 * from the command line. It drops the request and response bodies of commands settled before the
 * cutoff and says how many, by state; the key, fingerprint, state, UUIDs, request ids and times stay,
 * which is all "never buy twice" needs. Unsettled and `needs_manual_check` commands are never
 * touched. Needs no token: it only reads and writes the journal.
 */
import { TERMINAL_STATES, type CommandState } from "../src/index";
import { withJournal } from "./cmd-journal";
import { EXIT, type ExitCode } from "./exit-codes";
import { UNSETTLED_STATES, type Runtime } from "./job-session";
import { jsonLine, outputMode, renderTable, terminalColumns } from "./output";
import type { GlobalOptions } from "./session";
import { isoOf } from "./shape";

export interface PruneOptions {
  /** Commands settled longer ago than this lose their bodies… */
  olderThanMs: number;
  /** …as the operator wrote it (e.g. "30d"). */
  olderThan: string;
  /** Count only; change nothing. */
  dryRun: boolean;
}

export async function runCommandsPrune(global: GlobalOptions, rt: Runtime, options: PruneOptions): Promise<ExitCode> {
  return withJournal(global, rt, "prune", async (queries) => {
    const settledBefore = (rt.clock?.now() ?? Date.now()) - options.olderThanMs;
    const byState: Partial<Record<CommandState, number>> = {};
    let matched = 0;
    for await (const r of queries.prunable(settledBefore)) {
      byState[r.state] = (byState[r.state] ?? 0) + 1;
      matched += 1;
    }
    const pruned = options.dryRun ? matched : (await queries.prune(settledBefore)).pruned;
    const counts = await queries.countByState();
    const manual = counts.needs_manual_check ?? 0;
    const unsettled = UNSETTLED_STATES.reduce((n, s) => n + (s === "needs_manual_check" ? 0 : (counts[s] ?? 0)), 0);
    const mode = outputMode(global.json, rt.stdout, rt.stderr);
    if (mode.json) {
      rt.stdout.write(
        jsonLine({
          type: "prune",
          dry_run: options.dryRun,
          settled_before: isoOf(settledBefore),
          older_than_ms: options.olderThanMs,
          pruned,
          by_state: byState,
          never_pruned: { unsettled, needs_manual_check: manual },
        }),
      );
      return EXIT.ok;
    }
    const rows = TERMINAL_STATES.filter((s) => byState[s]).map((s) => ({ state: s, commands: byState[s] ?? 0 }));
    if (rows.length > 0)
      rt.stdout.write(
        renderTable(
          rows,
          [
            { header: "state", value: (r) => r.state },
            { header: options.dryRun ? "would prune" : "pruned", value: (r) => r.commands },
          ],
          { wide: global.wide === true, columns: terminalColumns(rt.stdout) },
        ),
      );
    // Short lines: a report that wraps at 80 columns is hard to read.
    rt.stdout.write(
      [
        `${options.dryRun ? "would prune" : "pruned"} ${pruned} settled command(s) older than ${options.olderThan}`,
        `  last updated before ${isoOf(settledBefore)}`,
        `  bodies ${options.dryRun ? "would be " : ""}dropped; keys, fingerprints, states, UUIDs, request ids kept`,
        `never pruned: ${unsettled} unsettled, ${manual} needs_manual_check`,
        ...(options.dryRun ? ["dry run: nothing was changed"] : []),
      ].join("\n") + "\n",
    );
    return EXIT.ok;
  });
}
