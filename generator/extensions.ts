/**
 * The spec's `x-*` vocabulary: which extension the generator reads where. A key it does not know is a
 * typo until proven otherwise (`x-live-onyl` would silently drop B1's live-only guard), so the model
 * refuses it and names the nearest known one. Adding an extension means adding it here and to the
 * table in docs/guides/regenerating.md.
 */
import { SpecError, type Json } from "./spec";
import { editDistance } from "../runtime/edit-distance";

/** On an operation (GET/PUT/POST/DELETE/PATCH). Role extensions are read by roles.ts. */
export const OPERATION_EXTENSIONS = [
  "x-live-only",
  "x-async-operation",
  "x-pagination",
  "x-sensitive-fields",
  "x-unknown-outcome",
  "x-malformed-uuid-status",
  "x-lock-key",
  "x-teaches-limit",
  "x-produces-resource",
  "x-poll-operation",
  "x-reconcile-by",
  "x-operations-of-domain",
  "x-renews-domain",
  "x-lists-domains",
] as const;

/** On an operation's requestBody. */
const REQUEST_BODY_EXTENSIONS = ["x-sensitive-fields"] as const;

/** On a schema under components/schemas (its top level). */
export const SCHEMA_EXTENSIONS = ["x-enum-const", "x-error-statuses"] as const;

const ALL = [...OPERATION_EXTENSIONS, ...SCHEMA_EXTENSIONS];

/** The known extension closest to `key`, when it is close enough to be a typo of it. */
function nearest(key: string, known: readonly string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const name of known) {
    const d = editDistance(key, name);
    if (!best || d < best.d) best = { name, d };
  }
  return best && best.d <= Math.max(2, Math.floor(best.name.length / 4)) ? best.name : undefined;
}

/**
 * Refuses every `x-*` key of `node` that is not in `allowed`. `place` says where the node is, for the
 * message ("an operation", "a HEAD", …).
 */
export function checkExtensions(node: Json, allowed: readonly string[], pointer: string, place: string): void {
  for (const key of Object.keys(node)) {
    if (!key.startsWith("x-") || allowed.includes(key)) continue;
    const guess = nearest(key, allowed) ?? nearest(key, ALL);
    const hint = guess
      ? allowed.includes(guess)
        ? `did you mean ${guess}?`
        : `did you mean ${guess}? (it is not read on ${place})`
      : `the generator reads ${allowed.length > 0 ? allowed.join(", ") : "no x-* extension"} on ${place}`;
    throw new SpecError(
      `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`,
      `unknown extension ${key} on ${place}: ${hint} (a new extension must be added to generator/extensions.ts)`,
    );
  }
}

export const checkOperationExtensions = (op: Json, pointer: string) =>
  checkExtensions(op, OPERATION_EXTENSIONS, pointer, "an operation");

export const checkRequestBodyExtensions = (body: Json, pointer: string) =>
  checkExtensions(body, REQUEST_BODY_EXTENSIONS, pointer, "a requestBody");
