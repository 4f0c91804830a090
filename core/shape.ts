import type { OperationResource } from "./outcome";

/**
 * Total readers of a response body's shape. A body is whatever the server (or a proxy) sent — `null`,
 * an array, a number, a string, an object without `data` — so the code that looks inside one never
 * assumes a shape: it reads through these and gets `undefined` for anything unexpected.
 */

/** A plain JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** `body.data` when `body` is an object, else undefined. */
function envelopeData(body: unknown): unknown {
  return isRecord(body) ? body.data : undefined;
}

/** `body.data` when it is an array (a list page), else undefined. */
export function envelopeList(body: unknown): unknown[] | undefined {
  const data = envelopeData(body);
  return Array.isArray(data) ? data : undefined;
}

/** The Operation in a body (F2) when it is one — an object with a string uuid and status — else undefined. */
export function operationResourceOf(body: unknown): OperationResource | undefined {
  const op = envelopeData(body);
  if (!isRecord(op) || typeof op.uuid !== "string" || typeof op.status !== "string") return undefined;
  return op as unknown as OperationResource;
}
