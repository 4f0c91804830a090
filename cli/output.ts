/**
 * Results: a table on a TTY, JSON lines with --json or when stdout is not a TTY (one object per
 * line, nothing else on stdout, so `| jq` always works). Tables use cli-table3.
 */
import type { Writable } from "node:stream";
import Table from "cli-table3";
import { visibleLength } from "./colour";

export interface OutputMode {
  /** JSON lines on stdout instead of tables/text. */
  json: boolean;
  /** stderr is a terminal: the live progress line and human summaries go there. */
  ttyErr: boolean;
}

export function outputMode(json: boolean, stdout: { isTTY?: boolean }, stderr: { isTTY?: boolean }): OutputMode {
  return { json: json || !stdout.isTTY, ttyErr: !!stderr.isTTY };
}

/** Field names that hold a point in time (epoch ms inside the client): printed as ISO 8601 in JSON. */
const TIME_KEY = /^(?:at|until|untilMs|pausedUntil|windowEndsAt|deadline|leaseUntil)$|At$/;

/** One timestamp format in JSON output: every epoch-ms time field becomes an ISO 8601 string. */
export function isoTimes(value: unknown, depth = 0): unknown {
  if (depth > 16 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => isoTimes(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v === "number" && TIME_KEY.test(k) && v > 1e11 && v < 1e14 && Number.isFinite(v))
      // The name says what the value is: an ISO string is no longer "…Ms" (untilMs → until).
      out[k.endsWith("Ms") ? k.slice(0, -2) : k] = new Date(v).toISOString();
    else out[k] = isoTimes(v, depth + 1);
  }
  return out;
}

export function jsonLine(value: unknown): string {
  return JSON.stringify(isoTimes(value)) + "\n";
}

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
  /**
   * Which columns go first when the terminal is too narrow: the highest number is hidden first;
   * 0 (the default) is never hidden, only truncated.
   */
  priority?: number;
}

export interface TableLayout {
  /** --wide: every column at full width, whatever the terminal. */
  wide?: boolean;
  /** The terminal's width; undefined (not a terminal) means no limit. */
  columns?: number;
}

/** The width a table on `stream` may use: the terminal's columns, or undefined when it is no terminal. */
export function terminalColumns(target: object): number | undefined {
  const stream = target as { isTTY?: boolean; columns?: number };
  if (!stream.isTTY) return undefined;
  return stream.columns !== undefined && stream.columns > 0 ? stream.columns : 80;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.map(cell).join(", ");
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  return JSON.stringify(value) ?? "";
}

/** A cell's longest line, escapes not counted. */
function widthOf(text: string): number {
  return Math.max(0, ...text.split("\n").map(visibleLength));
}

/** cli-table3's frame: one border per column plus one, and one space of padding on each side. */
const frame = (n: number) => 3 * n + 1;
/** Narrowest a kept column gets before the table is stacked instead. */
const MIN_COLUMN = 6;
/** A long cell may be cut to this many characters before a less useful column is hidden instead. */
const TRUNCATED = 20;

function fitWidths(natural: number[], budget: number): number[] {
  const widths = [...natural];
  let over = widths.reduce((a, b) => a + b, 0) - budget;
  while (over > 0) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest] <= MIN_COLUMN) break;
    widths[widest] -= 1;
    over -= 1;
  }
  return widths;
}

/**
 * A table that fits the terminal: the least useful columns (highest `priority`) are hidden first,
 * then the widest are truncated with "…"; if even that does not fit, each row is stacked as
 * `header: value` lines. `--wide` (or no terminal) prints everything at full width.
 */
export function renderTable<T>(rows: readonly T[], columns: readonly Column<T>[], layout: TableLayout = {}): string {
  const cells = rows.map((row) => columns.map((c) => cell(c.value(row))));
  const natural = columns.map((c, i) => Math.max(widthOf(c.header), ...cells.map((r) => widthOf(r[i]))));
  const limit = layout.wide ? undefined : layout.columns;
  let keep = columns.map((_, i) => i);
  if (limit !== undefined) {
    // A column is hidden only when the table would not fit even with long cells cut to TRUNCATED.
    const need = () => keep.reduce((a, i) => a + Math.min(natural[i], TRUNCATED), 0) + frame(keep.length);
    const byDropOrder = keep
      .filter((i) => (columns[i].priority ?? 0) > 0)
      .sort((a, b) => (columns[b].priority ?? 0) - (columns[a].priority ?? 0) || b - a);
    for (const i of byDropOrder) {
      if (need() <= limit) break;
      keep = keep.filter((k) => k !== i);
    }
    const budget = limit - frame(keep.length);
    if (keep.length * MIN_COLUMN > budget) return stacked(columns, cells, limit);
  }
  const widths =
    limit === undefined
      ? keep.map((i) => natural[i])
      : fitWidths(
          keep.map((i) => natural[i]),
          limit - frame(keep.length),
        );
  const table = new Table({
    head: keep.map((i) => columns[i].header),
    style: { head: [], border: [] },
    colWidths: widths.map((w) => w + 2),
    truncate: "…",
  });
  for (const r of cells) table.push(keep.map((i) => r[i]));
  const hidden = columns.length - keep.length;
  const note =
    hidden > 0
      ? `(hidden to fit: ${columns
          .filter((_, i) => !keep.includes(i))
          .map((c) => c.header)
          .join(", ")}; --wide shows all)\n`
      : "";
  return table.toString() + "\n" + note;
}

/** Rows as blocks of `header: value` lines, values cut to the terminal's width. */
function stacked<T>(columns: readonly Column<T>[], cells: string[][], limit: number): string {
  const label = Math.max(...columns.map((c) => c.header.length)) + 2;
  return (
    cells
      .map((r) =>
        columns
          .map((c, i) => {
            const head = `${c.header}:`.padEnd(label);
            const room = Math.max(8, limit - label);
            const value = r[i].replace(/\s*\n\s*/g, " ");
            return head + (value.length > room ? value.slice(0, room - 1) + "…" : value);
          })
          .join("\n"),
      )
      .join("\n\n") + "\n"
  );
}

/** Key/value pairs as a two-column table; long values wrap to the terminal's width (never cut). */
export function renderPairs(pairs: readonly [string, unknown][], layout: TableLayout = {}): string {
  const limit = layout.wide ? undefined : layout.columns;
  const keyWidth = Math.max(...pairs.map(([k]) => k.length), 1);
  const values = pairs.map(([, v]) => cell(v));
  const valueWidth = Math.max(...values.map(widthOf), 1);
  if (limit !== undefined && keyWidth + valueWidth + frame(2) > limit) {
    const room = limit - keyWidth - frame(2);
    if (room < 12) return pairs.map(([k], i) => `${k}: ${values[i]}`).join("\n") + "\n";
    const table = new Table({
      style: { head: [], border: [] },
      colWidths: [keyWidth + 2, room + 2],
      wordWrap: true,
      wrapOnWordBoundary: false,
    });
    pairs.forEach(([k], i) => table.push({ [k]: values[i] }));
    return table.toString() + "\n";
  }
  const table = new Table({ style: { head: [], border: [] } });
  for (const [k, v] of pairs) table.push({ [k]: cell(v) });
  return table.toString() + "\n";
}

/** Streams rows to `out`: JSON lines immediately, or a table once every row is in. */
export class RowPrinter<T> {
  private readonly buffered: T[] = [];
  constructor(
    private readonly out: Writable,
    private readonly mode: OutputMode,
    private readonly columns: readonly Column<T>[],
    private readonly toJson: (row: T) => unknown = (row) => row,
    private readonly layout: TableLayout = {},
  ) {}

  push(row: T): void {
    if (this.mode.json) this.out.write(jsonLine(this.toJson(row)));
    else this.buffered.push(row);
  }

  end(empty = "(none)"): void {
    if (this.mode.json) return;
    this.out.write(this.buffered.length === 0 ? empty + "\n" : renderTable(this.buffered, this.columns, this.layout));
  }
}

/** stderr carries JSON events only: with --json, or whenever it is not a terminal (`2> events.jsonl`). */
export function jsonStderr(json: boolean, stderr: { isTTY?: boolean }): boolean {
  return json || !stderr.isTTY;
}

/**
 * A line for the operator on stderr (where the journal is, --emulator, a count): plain text on a
 * terminal, else one `{"type":"notice"}` event, as jobs print theirs — never a line `jq` trips over.
 */
export function stderrNotice(stderr: Writable & { isTTY?: boolean }, json: boolean, message: string): void {
  if (jsonStderr(json, stderr)) stderr.write(jsonLine({ at: new Date().toISOString(), type: "notice", message }));
  else stderr.write(message + "\n");
}
