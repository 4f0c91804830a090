/**
 * `reseller commands …` (inspect the journal; needs no token) and `reseller recover` (settle what
 * earlier runs left). Records are printed as journalled: the journal never holds a token or an
 * x-sensitive-fields value (H2), so neither does this output.
 */
import type { CommandRecord, CommandState } from "../src/index";
import { UsageError } from "./errors";
import { EXIT, type ExitCode } from "./exit-codes";
import { UNSETTLED_STATES, type Runtime } from "./job-session";
import { formatDuration } from "./args";
import { JournalQueries } from "./journal-queries";
import {
  jsonLine,
  jsonStderr,
  outputMode,
  renderPairs,
  renderTable,
  RowPrinter,
  stderrNotice,
  terminalColumns,
} from "./output";
import { openSession, type GlobalOptions } from "./session";
import { journalNotice, openJournal } from "./stores";
import { isoOf } from "./shape";
import { bodyText, supportNote } from "./support-note";

const ALL_STATES: readonly CommandState[] = [...UNSETTLED_STATES, "succeeded", "completed", "failed", "rejected"];

function plain(record: CommandRecord, includeText = false): Record<string, unknown> {
  return {
    id: record.id,
    state: record.state,
    operation: record.operationId,
    method: record.method,
    path: record.path + record.query,
    body: bodyText(record, includeText),
    idempotency_key: record.idempotencyKey,
    key_id: record.apiKeyId,
    environment: record.environment,
    external_id: record.externalId,
    created_at: isoOf(record.createdAt),
    updated_at: isoOf(record.updatedAt),
    resources: record.resources,
    attempts: record.attempts,
    response_status: record.response?.status ?? null,
    reconciliation: record.reconciliation,
    manual_check: record.manualCheck,
  };
}

export function parseStates(raw: string | undefined, all: boolean): readonly CommandState[] {
  if (all) return ALL_STATES;
  if (!raw) return UNSETTLED_STATES;
  const states = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = states.find((s) => !(ALL_STATES as readonly string[]).includes(s));
  if (bad) throw new UsageError(`--state: unknown state ${JSON.stringify(bad)}; states: ${ALL_STATES.join(", ")}`);
  return states as CommandState[];
}

/**
 * Opens the journal a `commands …` command reads (or prunes, or resolves a command of): never a new
 * one — a journal file that does not exist is a set-up error naming it (`what`: "list", "show"…),
 * not an empty journal with "nothing to check".
 */
export async function withJournal<T>(
  global: GlobalOptions,
  rt: Runtime,
  what: string,
  fn: (queries: JournalQueries) => Promise<T>,
): Promise<T> {
  const opened = await openJournal(global.journal, rt.env, global.emulator, global.journalSync, { what });
  stderrNotice(rt.stderr, global.json, journalNotice(opened));
  try {
    return await fn(new JournalQueries(opened.journal));
  } finally {
    await opened.journal.close();
  }
}

/** The key id of RESELLER_API_TOKEN, when set: an Idempotency-Key is then one indexed lookup. */
function keyIdFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  return /^rsl_(?:test|live)_([A-Za-z0-9]{24})\./.exec(env.RESELLER_API_TOKEN?.trim() ?? "")?.[1];
}

/** Rows `commands list` prints at most (newest first). */
const LIST_LIMIT = 1000;

export async function runCommandsList(
  global: GlobalOptions,
  rt: Runtime,
  states: readonly CommandState[],
): Promise<ExitCode> {
  return withJournal(global, rt, "list", async (queries) => {
    const mode = outputMode(global.json, rt.stdout, rt.stderr);
    const now = Date.now();
    const printer = new RowPrinter<CommandRecord>(
      rt.stdout,
      mode,
      [
        { header: "id", value: (r) => r.id, priority: 2 },
        { header: "state", value: (r) => r.state, priority: 0 },
        { header: "age", value: (r) => formatDuration(now - r.updatedAt), priority: 1 },
        { header: "operation", value: (r) => r.operationId, priority: 1 },
        { header: "path", value: (r) => r.path, priority: 3 },
        { header: "key id", value: (r) => r.apiKeyId, priority: 4 },
        { header: "updated", value: (r) => isoOf(r.updatedAt).slice(0, 19).replace("T", " "), priority: 5 },
      ],
      (r) => ({ ...plain(r), age_s: Math.max(0, Math.round((now - r.updatedAt) / 1000)) }),
      { wide: global.wide === true, columns: terminalColumns(rt.stdout) },
    );
    const records = await queries.list(states, LIST_LIMIT);
    for (const r of records) printer.push(r);
    printer.end(`no command in ${states.join(", ")}`);
    if (!mode.json) {
      const manual = records.filter((r) => r.state === "needs_manual_check");
      const oldest = manual.reduce((m, r) => Math.min(m, r.updatedAt), now);
      stderrNotice(
        rt.stderr,
        global.json,
        `${records.length} command(s)${records.length >= LIST_LIMIT ? ` (the newest ${LIST_LIMIT})` : ""}${
          manual.length
            ? `; ${manual.length} need a manual check, the oldest for ${formatDuration(now - oldest)}: reseller commands notes, then reseller commands resolve ID --as completed|failed --note "…"`
            : ""
        }`,
      );
    }
    return EXIT.ok;
  });
}

export interface NoteOptions {
  /** Print free text of request bodies (ticket messages); left out by default (H2). */
  includeText: boolean;
}

export async function runCommandsShow(
  global: GlobalOptions,
  rt: Runtime,
  id: string,
  options: NoteOptions = { includeText: false },
): Promise<ExitCode> {
  return withJournal(global, rt, "show", async (queries) => {
    const record = await queries.find(id, keyIdFromEnv(rt.env));
    if (!record)
      throw new UsageError(
        `No command ${JSON.stringify(id)} in this journal (give a command id or an Idempotency-Key).`,
      );
    const mode = outputMode(global.json, rt.stdout, rt.stderr);
    const p = plain(record, options.includeText);
    if (mode.json) rt.stdout.write(jsonLine(p));
    else {
      rt.stdout.write(
        renderPairs(
          Object.entries(p)
            .filter(([k]) => k !== "attempts" && k !== "manual_check")
            .map(([k, v]) => [k, v !== null && typeof v === "object" ? JSON.stringify(v) : v]),
          { wide: global.wide === true, columns: terminalColumns(rt.stdout) },
        ),
      );
      if (record.state === "needs_manual_check") rt.stdout.write("\n" + supportNote(record, options));
    }
    return EXIT.ok;
  });
}

/** Prints every needs_manual_check command as a note; exits 0 (printing them is the success). */
export async function runCommandsNotes(
  global: GlobalOptions,
  rt: Runtime,
  options: NoteOptions = { includeText: false },
): Promise<ExitCode> {
  return withJournal(global, rt, "write a note for", async (queries) => {
    const mode = outputMode(global.json, rt.stdout, rt.stderr);
    let count = 0;
    for await (const r of queries.stream({ states: ["needs_manual_check"] })) {
      if (mode.json)
        rt.stdout.write(jsonLine({ commandId: r.id, note: supportNote(r, options), ...plain(r, options.includeText) }));
      else rt.stdout.write((count > 0 ? "\n-----\n\n" : "") + supportNote(r, options));
      count += 1;
    }
    if (!mode.json)
      stderrNotice(
        rt.stderr,
        global.json,
        `${count} command(s) need a manual check${
          count ? '; after support answers: reseller commands resolve ID --as completed|failed --note "…"' : ""
        }`,
      );
    return EXIT.ok;
  });
}

export interface ResolveOptions {
  as: "completed" | "failed";
  note: string;
  reference?: string;
}

/**
 * Closes a needs_manual_check command with what support confirmed (F4, seed: keep the UUIDs, never
 * repeat the purchase). Journalled with the operator's note and support's reference; sends nothing,
 * needs no token. `completed`: the purchase happened. `failed`: it did not; the domain is free again.
 */
export async function runCommandsResolve(
  global: GlobalOptions,
  rt: Runtime,
  id: string,
  options: ResolveOptions,
): Promise<ExitCode> {
  if (!options.note.trim())
    throw new UsageError('--note needs the words support answered with, e.g. --note "renewed on 2026-12-01".');
  return withJournal(global, rt, "resolve", async (queries) => {
    const record = await queries.find(id, keyIdFromEnv(rt.env));
    if (!record)
      throw new UsageError(
        `No command ${JSON.stringify(id)} in this journal (give a command id or an Idempotency-Key from reseller commands list).`,
      );
    if (record.state !== "needs_manual_check")
      throw new UsageError(
        `Command ${record.id} is ${record.state}, not needs_manual_check: only a manual check is resolved by hand${
          record.state === "unknown" || record.state === "accepted" ? "; run reseller recover to settle it" : ""
        }.`,
      );
    const resolved = await queries.resolveManualCheck(record.id, {
      as: options.as,
      note: options.note.trim(),
      reference: options.reference?.trim() || undefined,
      at: Date.now(),
    });
    const mode = outputMode(global.json, rt.stdout, rt.stderr);
    if (mode.json) rt.stdout.write(jsonLine(plain(resolved)));
    else
      rt.stdout.write(
        `command ${resolved.id} (${resolved.method} ${resolved.path}) is now ${resolved.state}: ${
          options.as === "completed"
            ? "the purchase happened; a re-run reports it as already done"
            : "it did not happen; the domain is free for a new command (a renewal needs --attempt 2)"
        }. Nothing was sent.\n`,
      );
    return EXIT.ok;
  });
}

export async function runRecover(global: GlobalOptions, rt: Runtime): Promise<ExitCode> {
  const session = await openSession(global, rt);
  try {
    for (const n of session.notices) stderrNotice(rt.stderr, global.json, n);
    await session.context();
    const mode = outputMode(global.json, rt.stdout, rt.stderr);
    const jsonErr = jsonStderr(global.json, rt.stderr);
    const summary = await session.recover((event) => {
      if (jsonErr)
        rt.stderr.write(
          jsonLine({
            at: new Date().toISOString(),
            ...(event as unknown as Record<string, unknown>),
            type: "recovery",
            step: event.type,
          }),
        );
    });
    const rows = [
      ...summary.resolved.map((t) => ({ ...t, result: "settled", note: "" })),
      ...summary.stillPending.map((t) => ({ ...t, result: "still pending", note: t.reason })),
      ...summary.manual.map((t) => ({ ...t, result: "needs manual check", note: t.manualCheck.reason })),
      ...summary.skipped.map((s) => ({
        commandId: s.commandId,
        operationId: "",
        from: "",
        to: "",
        idempotencyKey: "",
        result: "skipped",
        note: s.reason,
      })),
    ];
    if (mode.json) for (const r of rows) rt.stdout.write(jsonLine(r));
    else {
      rt.stdout.write(
        rows.length === 0
          ? "nothing to recover: every journalled command is settled\n"
          : renderTable(
              rows,
              [
                { header: "command", value: (r) => r.commandId, priority: 2 },
                { header: "operation", value: (r) => r.operationId },
                { header: "from → to", value: (r) => (r.from ? `${r.from} → ${r.to}` : ""), priority: 3 },
                { header: "result", value: (r) => r.result },
                { header: "note", value: (r) => r.note, priority: 1 },
              ],
              { wide: global.wide === true, columns: terminalColumns(rt.stdout) },
            ),
      );
    }
    // Commands of this key that wait for a manual check, whichever run moved them there: until
    // support answered and `commands resolve` closed them, recover has not settled everything (exit 3).
    let waiting = 0;
    for await (const r of new JournalQueries(session.journal).stream({
      apiKeyId: session.apiKeyId,
      states: ["needs_manual_check"],
    }))
      if (r.apiKeyId === session.apiKeyId) waiting += 1;
    const line = `recover: examined ${summary.examined}, settled ${summary.resolved.length}, still pending ${summary.stillPending.length}, manual ${summary.manual.length}, skipped ${summary.skipped.length}; ${waiting} command(s) of this key wait for a manual check`;
    if (!jsonErr)
      rt.stderr.write(
        line +
          (waiting
            ? ' — reseller commands notes prints the support notes; after support answers: reseller commands resolve ID --as completed|failed --note "…"'
            : "") +
          "\n",
      );
    else
      rt.stderr.write(
        jsonLine({
          at: new Date().toISOString(),
          type: "summary",
          job: "recover",
          examined: summary.examined,
          resolved: summary.resolved.length,
          stillPending: summary.stillPending.length,
          manual: summary.manual.length,
          skipped: summary.skipped.length,
          needsManualCheck: waiting,
        }),
      );
    return summary.manual.length + summary.stillPending.length + summary.skipped.length + waiting > 0
      ? EXIT.unsettled
      : EXIT.ok;
  } finally {
    await session.close();
  }
}
