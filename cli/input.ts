/**
 * Streaming input: files and stdin are read line by line (or CSV record by record), so a
 * 100,000-line file is never held in memory and the first row goes out before the last is read.
 * Every row keeps its 1-based line number for error messages.
 */
import { createReadStream, statSync } from "node:fs";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import { parse as parseCsv } from "csv-parse";
import { UsageError } from "./errors";

export interface InputSource {
  stream: Readable;
  /** "stdin" or the file path, for messages. */
  name: string;
  /** The file path, when the input is a regular file (its lines can be counted up front). */
  file?: string;
}

export interface Line {
  line: number;
  text: string;
}

/** A record from CSV or JSON lines: its fields, or why the line could not be read. */
export type RecordRow = { line: number; fields: Record<string, unknown> } | { line: number; error: string };

export function openInput(spec: string | undefined, stdin: Readable & { isTTY?: boolean }): InputSource | undefined {
  if (spec === undefined || spec === "-") {
    if (spec === undefined && stdin.isTTY) return undefined;
    return { stream: stdin, name: "stdin" };
  }
  // Usage errors before any network: a missing file or a directory is said now, not after the
  // context call, recovery and the first lookups ran (exit 2, nothing sent).
  let stat;
  try {
    stat = statSync(spec);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(
      code === "ENOENT"
        ? `Cannot read ${spec}: no such file. Give an existing file, or - to read stdin.`
        : `Cannot read ${spec}: ${code}.`,
    );
  }
  if (stat.isDirectory())
    throw new UsageError(`Cannot read ${spec}: it is a directory; give a file, or - to read stdin.`);
  const stream = createReadStream(spec);
  return { stream, name: spec, file: spec };
}

/**
 * No FILE and stdin is not a terminal (cron, a pipe): stdin must bring at least one byte, or the
 * invocation is a usage error — a cron entry that forgot its file must not "succeed" with 0 rows.
 */
export async function ensureStdinHasData(stream: Readable, what: string): Promise<void> {
  for (;;) {
    const chunk = stream.read() as Buffer | string | null;
    if (chunk !== null) {
      stream.unshift(chunk);
      return;
    }
    if (stream.readableEnded || stream.destroyed) break;
    const ended = await Promise.race([
      once(stream, "readable").then(() => false),
      once(stream, "end").then(() => true),
      once(stream, "close").then(() => true),
    ]);
    if (ended && stream.readableLength === 0) break;
  }
  throw new UsageError(
    `${what} got no FILE and stdin is empty: give a FILE (or - for stdin with data), or ${
      what === "renew" ? "--expiring-within 30d" : "pipe the rows in"
    }.`,
  );
}

/** Fails with a UsageError (not a stack trace) when the file cannot be opened. */
export async function ensureReadable(source: InputSource): Promise<void> {
  if (!source.file) return;
  const stream = source.stream;
  await Promise.race([
    once(stream, "open"),
    once(stream, "error").then(([error]) => {
      throw new UsageError(`Cannot read ${source.name}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`);
    }),
  ]);
}

/** Counts lines with data (not blank, not a `#` comment) without keeping the file: the job's total. */
async function countDataLines(file: string): Promise<number> {
  let count = 0;
  let atStart = true; // no non-blank byte seen yet on this line
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    for (const b of chunk) {
      if (b === 10) atStart = true;
      else if (atStart && b !== 32 && b !== 9 && b !== 13) {
        atStart = false;
        if (b !== 35) count += 1; // "#"
      }
    }
  }
  return count;
}

async function* readLines(stream: Readable): AsyncGenerator<Line> {
  const rl = createInterface({ input: stream, crlfDelay: Infinity });
  let line = 0;
  for await (const text of rl) {
    line += 1;
    yield { line, text };
  }
}

/** Lines that carry data: blank lines and `#` comments are skipped (their numbers still count). */
export async function* dataLines(stream: Readable): AsyncGenerator<Line> {
  for await (const l of readLines(stream)) {
    const text = l.text.trim();
    if (text === "" || text.startsWith("#")) continue;
    yield { line: l.line, text };
  }
}

export async function* readJsonLines(stream: Readable): AsyncGenerator<RecordRow> {
  for await (const { line, text } of dataLines(stream)) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      yield { line, error: `not valid JSON (${(error as Error).message})` };
      continue;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      yield { line, error: 'a JSON line must be an object such as {"external_id":…,"domain":…}' };
      continue;
    }
    yield { line, fields: value as Record<string, unknown> };
  }
}

/** CSV with a header row; a malformed record is reported with its line and the rest goes on. */
export async function* readCsv(stream: Readable): AsyncGenerator<RecordRow> {
  const skipped: RecordRow[] = [];
  const parser = stream.pipe(
    parseCsv({
      columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
      info: true,
      trim: true,
      skip_empty_lines: true,
      comment: "#",
      comment_no_infix: true,
      skip_records_with_error: true,
      on_skip: (error: { message: string; lines?: number } | undefined) => {
        if (error) skipped.push({ line: error.lines ?? 0, error: `malformed CSV: ${error.message}` });
      },
    }),
  );
  for await (const entry of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
    while (skipped.length > 0) yield skipped.shift()!;
    yield { line: entry.info.lines, fields: entry.record };
  }
  while (skipped.length > 0) yield skipped.shift()!;
}

/**
 * An input FILE with no line of data (empty, or only blank lines and `#` comments) is a usage error,
 * like an empty stdin: a cron entry whose export came out empty must not "succeed" with 0 rows.
 * Returns the file's data lines (the job's total), or undefined for stdin.
 */
export async function ensureFileHasData(source: InputSource, what: string): Promise<number | undefined> {
  if (!source.file) return undefined;
  const lines = await countDataLines(source.file);
  if (lines === 0)
    throw new UsageError(
      `${what}: ${source.name} is empty (no line with data; blank lines and # comments do not count). Give a file with the rows; nothing was sent.`,
    );
  return lines;
}

/** The start of an input: its first line with data (or null: none), and whether it is not text. */
export interface InputHead {
  firstLine: string | null;
  binary: boolean;
}

/** The first line that is not blank and not a `#` comment, once it is complete (or the input ended). */
function firstDataLine(text: string, ended: boolean): string | null | undefined {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === "" || line.startsWith("#")) continue;
    return i < lines.length - 1 || ended ? line : undefined;
  }
  return ended ? null : undefined;
}

/**
 * Reads the input's first line with data (at most `maxBytes`) and puts every byte back: the source's
 * stream is replaced by one that replays them, then goes on with the rest, still streamed.
 */
export async function peekHead(source: InputSource, maxBytes = 64 * 1024): Promise<InputHead> {
  const iterator = (source.stream as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
  const chunks: Buffer[] = [];
  let size = 0;
  let ended = false;
  let line: string | null | undefined;
  for (;;) {
    line = firstDataLine(Buffer.concat(chunks).toString("utf8"), ended || size >= maxBytes);
    if (line !== undefined) break;
    const next = await iterator.next();
    if (next.done) ended = true;
    else {
      const chunk = typeof next.value === "string" ? Buffer.from(next.value) : next.value;
      chunks.push(chunk);
      size += chunk.length;
    }
  }
  const head = Buffer.concat(chunks);
  source.stream = Readable.from(
    (async function* () {
      if (head.length > 0) yield head;
      if (ended) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    })(),
    { objectMode: false },
  );
  const sample = head.subarray(0, 8192);
  const binary =
    sample.includes(0) ||
    (sample[0] === 0x50 && sample[1] === 0x4b && sample[2] === 0x03 && sample[3] === 0x04) ||
    // invalid UTF-8 in the first bytes (a chunk may end inside a character: that one is allowed)
    sample.toString("utf8").slice(0, -4).includes("\uFFFD");
  return { firstLine: line, binary };
}
