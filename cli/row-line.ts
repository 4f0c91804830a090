/**
 * A result line on a terminal, at most the terminal's width: a line that wraps pushes the live
 * progress line around and reads as two rows. Like the progress line, the least useful fields go
 * first — the message is cut short (its start says what happened), then the input line number, the
 * message and the target are dropped; the subject and the outcome stay.
 */
import { visibleLength } from "./colour";
import type { RowResult } from "./jobs";

/**
 * One field of a line. `drop`: higher goes first, 0 never; `cut`: may be shortened with "…";
 * `glue`: what joins it to the field before (two spaces unless said).
 */
export interface Field {
  text: string;
  drop: number;
  cut?: boolean;
  glue?: string;
}

const SEPARATOR = "  ";
/** A cut message keeps at least this many characters, or it is dropped. */
const MIN_CUT = 16;

/** The usual fields: line N, subject, what the command adds (`middle`), outcome, message. */
export function rowFields(r: RowResult, middle: Field[] = [], kind: string = r.kind): Field[] {
  const fields: Field[] = [];
  if (r.line !== undefined) fields.push({ text: `line ${r.line}`, drop: 3 });
  fields.push({ text: r.subject, drop: 0, cut: true }, ...middle, { text: kind, drop: 0 });
  if (r.message) fields.push({ text: r.message, drop: 2, cut: true });
  return fields;
}

const join = (fields: Field[]) => fields.map((f, i) => (i === 0 ? "" : (f.glue ?? SEPARATOR)) + f.text).join("");

function cutTo(text: string, width: number): string {
  return text.length <= width ? text : text.slice(0, Math.max(0, width - 1)) + "…";
}

/** The fields as one line of at most `width` visible columns (no limit when `width` is undefined). */
export function fitFields(fields: Field[], width: number | undefined): string {
  if (width === undefined) return join(fields);
  let kept = fields.map((f) => ({ ...f }));
  for (;;) {
    const over = visibleLength(join(kept)) - width;
    if (over <= 0) return join(kept);
    // Cut the most droppable cuttable field, if what is left of it still says something.
    const cuttable = kept
      .filter((f) => f.cut && f.drop > 0)
      .sort((a, b) => b.drop - a.drop)
      .find((f) => f.text.length - over >= MIN_CUT);
    if (cuttable) {
      cuttable.text = cutTo(cuttable.text, cuttable.text.length - over);
      continue;
    }
    const droppable = kept.filter((f) => f.drop > 0).sort((a, b) => b.drop - a.drop)[0];
    if (droppable) {
      kept = kept.filter((f) => f !== droppable);
      continue;
    }
    // Only the subject and the outcome are left: shorten the subject, then the line itself.
    const subject = kept.find((f) => f.cut);
    if (subject && subject.text.length > 8) {
      subject.text = cutTo(subject.text, Math.max(8, subject.text.length - over));
      continue;
    }
    return cutTo(join(kept), width);
  }
}
