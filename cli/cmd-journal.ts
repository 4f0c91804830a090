/**
 * `reseller commands …` (inspect the journal; needs no token) and `reseller recover` (settle what
 * earlier runs left). Records are printed as journalled: the journal never holds a token or an
 * x-sensitive-fields value (H2), so neither does this output.
 */
import type { Writable } from "node:stream";
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
import { bodyText, pathText, supportNote } from "./support-note";

const ALL_STATES: readonly CommandState[] = [...UNSETTLED_STATES, "succeeded", "completed", "failed", "rejected"];

function plain(record: CommandRecord, includeText = false): Record<string, unknown> {
  return {
    id: record.id,
    state: record.state,
    operation: record.operationId,
    method: record.method,
    path: pathText(record),
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

/** Rows `commands list` prints unless --limit says otherwise (newest first): a terminal stays usable. */
export const LIST_DEFAULT_LIMIT = 100;

export interface CommandsListOptions {
  states: readonly CommandState[];
  /** Rows at most, newest first; 0 = every row (streamed page by page, never all in memory). */
  limit: number;
  /** Only commands created before this one (command id or Idempotency-Key) or this ISO 8601 time. */
  before?: string;
}

const LIMIT_FIX = "e.g. --limit 500, or --limit 0 for every row";

/** --limit: a whole number of rows; 0 lists every row. */
export function parseLimit(raw: string): number {
  const value = /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value))
    throw new UsageError(`--limit takes a whole number of rows (${LIMIT_FIX}), got ${JSON.stringify(raw)}.`);
  return value;
}

/** A date (UTC midnight) or a date and time with Z or an offset: never a time in an unstated zone. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2}))?$/i;

const BEFORE_FIX =
  "give the command id the previous page ended with (its summary's nextBefore, or the hint after a cut list), or an ISO 8601 time such as 2026-01-31 or 2026-01-31T12:00:00Z";

/** Where --before starts the listing: the journal's (createdAt, id) position of a command, or a time. */
async function beforePosition(
  queries: JournalQueries,
  raw: string,
  env: NodeJS.ProcessEnv,
): Promise<{ createdAt: number; id: string; label: string }> {
  const value = raw.trim();
  if (ISO_TIME.test(value)) {
    const at = Date.parse(value);
    if (!Number.isFinite(at))
      throw new UsageError(`--before: ${JSON.stringify(raw)} is not a valid time; ${BEFORE_FIX}.`);
    // id "" sorts before every id: the page holds commands created strictly before `at`.
    return { createdAt: at, id: "", label: new Date(at).toISOString() };
  }
  const record = value ? await queries.find(value, keyIdFromEnv(env)) : undefined;
  if (!record) throw new UsageError(`--before: no command ${JSON.stringify(raw)} in this journal; ${BEFORE_FIX}.`);
  return { createdAt: record.createdAt, id: record.id, label: record.id };
}

export async function runCommandsList(
  global: GlobalOptions,
  rt: Runtime,
  options: CommandsListOptions,
): Promise<ExitCode> {
  const { states } = options;
  return withJournal(global, rt, "list", async (queries) => {
    const from = options.before === undefined ? undefined : await beforePosition(queries, options.before, rt.env);
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
    const counts = await queries.countByState(states);
    const total = states.reduce((n, s) => n + (counts[s] ?? 0), 0);
    const limit = options.limit === 0 ? Number.POSITIVE_INFINITY : options.limit;
    let shown = 0;
    let cut = false;
    let last: CommandRecord | undefined;
    let manual = 0;
    let oldestManual = now;
    const out = rt.stdout as Writable;
    // Page by page from the journal (one row past the limit tells whether more exist): memory holds
    // one page, whatever the journal's size — except a table on a terminal, which needs its rows.
    for await (const r of queries.stream(
      { states, before: from && { createdAt: from.createdAt, id: from.id } },
      Number.isFinite(limit) ? limit + 1 : undefined,
    )) {
      if (shown >= limit) {
        cut = true;
        break;
      }
      printer.push(r);
      shown += 1;
      last = r;
      if (r.state === "needs_manual_check") {
        manual += 1;
        oldestManual = Math.min(oldestManual, r.updatedAt);
      }
      if (out.writableNeedDrain) await new Promise((resolve) => out.once("drain", resolve));
    }
    const named = states.length === ALL_STATES.length ? "any state" : states.join(", ");
    const where = `${named}${from ? ` created before ${from.label}` : ""}`;
    printer.end(`no command in ${where}`);
    const nextBefore = cut && last ? last.id : null;
    // Every one in the journal (the count), not only the ones this page shows.
    const manualTotal = counts.needs_manual_check ?? 0;
    const cutText = `${shown} of ${total} command(s) in ${named} shown (the newest${
      from ? ` created before ${from.label}` : ""
    }); more exist: the same command with --before ${nextBefore} lists the next page, --limit 0 lists every one`;
    if (jsonStderr(global.json, rt.stderr)) {
      if (cut) stderrNotice(rt.stderr, true, `cut at --limit ${options.limit}: ${cutText}`);
      rt.stderr.write(
        jsonLine({
          at: new Date().toISOString(),
          type: "summary",
          job: "commands list",
          states,
          before: from?.label ?? null,
          limit: options.limit === 0 ? null : options.limit,
          rows: shown,
          total,
          truncated: cut,
          nextBefore,
          needsManualCheck: manualTotal,
        }),
      );
    } else {
      rt.stderr.write(
        `${cut ? cutText : `${shown} command(s) in ${where}`}${
          manualTotal
            ? `; ${manualTotal} need a manual check${
                manual === manualTotal ? `, the oldest for ${formatDuration(now - oldestManual)}` : ""
              }: reseller commands notes, then reseller commands resolve ID --as completed|failed --note "…"`
            : ""
        }\n`,
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
 * Closes a needs_manual_check command with what support confirmed (F4: keep the UUIDs, never
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
