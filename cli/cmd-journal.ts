/**
 * `reseller commands …` (inspect the journal; needs no token) and `reseller recover` (settle what
 * earlier runs left). Records are printed as journalled: the journal never holds a token or an
 * x-sensitive-fields value (H2), so neither does this output.
 */
import type { CommandRecord, CommandState } from "../src/index";
import { UsageError } from "./errors";
import { EXIT, type ExitCode } from "./exit-codes";
import { UNSETTLED_STATES, type Runtime } from "./job-session";
import { jsonLine, outputMode, renderTable, RowPrinter } from "./output";
import { openSession, type GlobalOptions } from "./session";
import { openJournal } from "./stores";
import { isoOf } from "./shape";
import { supportNote } from "./support-note";

const ALL_STATES: readonly CommandState[] = [...UNSETTLED_STATES, "succeeded", "completed", "failed", "rejected"];

function plain(record: CommandRecord): Record<string, unknown> {
  return {
    id: record.id,
    state: record.state,
    operation: record.operationId,
    method: record.method,
    path: record.path + record.query,
    body: record.body ? new TextDecoder().decode(record.body) : null,
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

async function withJournal<T>(
  global: GlobalOptions,
  rt: Runtime,
  fn: (
    records: (states: readonly CommandState[]) => Promise<CommandRecord[]>,
    get: (id: string) => Promise<CommandRecord | undefined>,
  ) => Promise<T>,
): Promise<T> {
  const opened = await openJournal(global.journal, rt.env, global.emulator, global.journalSync);
  rt.stderr.write(`journal: ${opened.label}\n`);
  try {
    return await fn(
      (states) => opened.journal.listByState(states),
      async (id) =>
        (await opened.journal.get(id)) ??
        (await opened.journal.listByState(ALL_STATES)).find((r) => r.idempotencyKey === id),
    );
  } finally {
    await opened.journal.close();
  }
}

export async function runCommandsList(
  global: GlobalOptions,
  rt: Runtime,
  states: readonly CommandState[],
): Promise<ExitCode> {
  return withJournal(global, rt, async (list) => {
    const mode = outputMode(global.json, rt.stdout, rt.stderr);
    const printer = new RowPrinter<CommandRecord>(
      rt.stdout,
      mode,
      [
        { header: "id", value: (r) => r.id },
        { header: "state", value: (r) => r.state },
        { header: "operation", value: (r) => r.operationId },
        { header: "path", value: (r) => r.path },
        { header: "key id", value: (r) => r.apiKeyId },
        { header: "updated", value: (r) => isoOf(r.updatedAt).slice(0, 19).replace("T", " ") },
      ],
      plain,
    );
    const records = await list(states);
    for (const r of records) printer.push(r);
    printer.end(`no command in ${states.join(", ")}`);
    if (!mode.json) {
      const manual = records.filter((r) => r.state === "needs_manual_check").length;
      rt.stderr.write(
        `${records.length} command(s)${manual ? `; ${manual} need a manual check: reseller commands notes` : ""}\n`,
      );
    }
    return EXIT.ok;
  });
}

export async function runCommandsShow(global: GlobalOptions, rt: Runtime, id: string): Promise<ExitCode> {
  return withJournal(global, rt, async (_list, get) => {
    const record = await get(id);
    if (!record)
      throw new UsageError(
        `No command ${JSON.stringify(id)} in this journal (give a command id or an Idempotency-Key).`,
      );
    const mode = outputMode(global.json, rt.stdout, rt.stderr);
    if (mode.json) rt.stdout.write(jsonLine(plain(record)));
    else {
      const p = plain(record);
      rt.stdout.write(
        renderTable(
          Object.entries(p).filter(([k]) => k !== "attempts" && k !== "manual_check"),
          [
            { header: "field", value: ([k]) => k },
            { header: "value", value: ([, v]) => (v !== null && typeof v === "object" ? JSON.stringify(v) : v) },
          ],
        ),
      );
      if (record.state === "needs_manual_check") rt.stdout.write("\n" + supportNote(record));
    }
    return EXIT.ok;
  });
}

export async function runCommandsNotes(global: GlobalOptions, rt: Runtime): Promise<ExitCode> {
  return withJournal(global, rt, async (list) => {
    const records = await list(["needs_manual_check"]);
    const mode = outputMode(global.json, rt.stdout, rt.stderr);
    records.forEach((r, i) => {
      if (mode.json) rt.stdout.write(jsonLine({ commandId: r.id, note: supportNote(r), ...plain(r) }));
      else rt.stdout.write((i > 0 ? "\n-----\n\n" : "") + supportNote(r));
    });
    if (!mode.json) rt.stderr.write(`${records.length} command(s) need a manual check\n`);
    return records.length > 0 ? EXIT.unsettled : EXIT.ok;
  });
}

export async function runRecover(global: GlobalOptions, rt: Runtime): Promise<ExitCode> {
  const session = await openSession(global, rt.env);
  try {
    for (const n of session.notices) rt.stderr.write(n + "\n");
    await session.context();
    const mode = outputMode(global.json, rt.stdout, rt.stderr);
    const summary = await session.recover((event) => {
      if (!mode.ttyErr)
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
          : renderTable(rows, [
              { header: "command", value: (r) => r.commandId },
              { header: "operation", value: (r) => r.operationId },
              { header: "from → to", value: (r) => (r.from ? `${r.from} → ${r.to}` : "") },
              { header: "result", value: (r) => r.result },
              { header: "note", value: (r) => r.note },
            ]),
      );
    }
    const line = `recover: examined ${summary.examined}, settled ${summary.resolved.length}, still pending ${summary.stillPending.length}, manual ${summary.manual.length}, skipped ${summary.skipped.length}`;
    if (mode.ttyErr)
      rt.stderr.write(
        line + (summary.manual.length ? " — reseller commands notes prints the support notes" : "") + "\n",
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
        }),
      );
    return summary.manual.length + summary.stillPending.length + summary.skipped.length > 0 ? EXIT.unsettled : EXIT.ok;
  } finally {
    await session.close();
  }
}
