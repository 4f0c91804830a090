/**
 * Results: a table on a TTY, JSON lines with --json or when stdout is not a TTY (one object per
 * line, nothing else on stdout, so `| jq` always works). Tables use cli-table3.
 */
import type { Writable } from "node:stream";
import Table from "cli-table3";

export interface OutputMode {
  /** JSON lines on stdout instead of tables/text. */
  json: boolean;
  /** stderr is a terminal: the live progress line and human summaries go there. */
  ttyErr: boolean;
}

export function outputMode(json: boolean, stdout: { isTTY?: boolean }, stderr: { isTTY?: boolean }): OutputMode {
  return { json: json || !stdout.isTTY, ttyErr: !!stderr.isTTY };
}

export function jsonLine(value: unknown): string {
  return JSON.stringify(value) + "\n";
}

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.map(cell).join(", ");
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  return JSON.stringify(value) ?? "";
}

export function renderTable<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  const table = new Table({ head: columns.map((c) => c.header), style: { head: [], border: [] } });
  for (const row of rows) table.push(columns.map((c) => cell(c.value(row))));
  return table.toString() + "\n";
}

/** Key/value pairs as a two-column table. */
export function renderPairs(pairs: readonly [string, unknown][]): string {
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
  ) {}

  push(row: T): void {
    if (this.mode.json) this.out.write(jsonLine(this.toJson(row)));
    else this.buffered.push(row);
  }

  end(empty = "(none)"): void {
    if (this.mode.json) return;
    this.out.write(this.buffered.length === 0 ? empty + "\n" : renderTable(this.buffered, this.columns));
  }
}
