// Plain-text tables for benchmark output (stdout), so every bench prints results the same way.

type Cell = string | number | boolean | null | undefined;
export type Row = Record<string, Cell>;

function format(value: Cell): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return String(value);
    return Number.isInteger(value) ? String(value) : value.toFixed(value >= 100 ? 1 : 3);
  }
  return String(value);
}

/** Renders rows as an aligned table; columns are the union of row keys in first-seen order. */
function formatTable(rows: readonly Row[], columns?: readonly string[]): string {
  const cols = columns ?? [...new Set(rows.flatMap((row) => Object.keys(row)))];
  if (cols.length === 0) return "";
  const cells = rows.map((row) => cols.map((col) => format(row[col])));
  const widths = cols.map((col, i) => Math.max(col.length, ...cells.map((line) => line[i].length)));
  const numeric = cols.map((col) => rows.every((row) => row[col] === undefined || typeof row[col] === "number"));
  const pad = (text: string, i: number) => (numeric[i] ? text.padStart(widths[i]) : text.padEnd(widths[i]));
  const lines = [
    cols.map((col, i) => pad(col, i)).join("  "),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...cells.map((line) => line.map((text, i) => pad(text, i)).join("  ")),
  ];
  return lines.map((line) => line.trimEnd()).join("\n");
}

/** Prints rows as an aligned table to stdout (optionally under a title). */
export function printTable(rows: readonly Row[], options: { title?: string; columns?: readonly string[] } = {}): void {
  const out: string[] = [];
  if (options.title) out.push(options.title);
  out.push(formatTable(rows, options.columns));
  process.stdout.write(out.join("\n") + "\n\n");
}
