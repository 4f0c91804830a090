/**
 * HEAD (RFC 9110 §9.3.2; A7 and D1 name GET/HEAD as the safe methods): a `head` operation in the
 * spec is its path's GET without the body. It is not an operation of its own in the table or the
 * facade; the GET's row says `head: true`, and the emulator answers HEAD only where that is set.
 * The spec must keep the two in step, so the generator refuses a HEAD that differs from its GET in
 * anything but the body.
 */
import { isObject, SpecError, type Json, type Spec } from "./spec";

interface GetFacts {
  readonly operationId: string;
  readonly scopes: readonly string[];
  /** `in:name` of every parameter the GET takes. */
  readonly params: readonly string[];
}

type ReadScopes = (spec: Spec, op: Json, pointer: string) => string[];
type ReadParams = (spec: Spec, item: Json, op: Json, pointer: string) => readonly string[];

/** Whether the path item declares HEAD for its GET; throws where the HEAD is not that GET without a body. */
export function readHead(
  spec: Spec,
  item: Json,
  itemPointer: string,
  get: GetFacts | null,
  readScopes: ReadScopes,
  readParams: ReadParams,
): boolean {
  if (item.head === undefined) return false;
  const pointer = `${itemPointer}/head`;
  if (get === null) throw new SpecError(pointer, "a HEAD needs a GET on the same path (it is that GET without a body)");
  const head = spec.deref(item.head, pointer);
  const want = `${get.operationId}Head`;
  if (head.operationId !== want)
    throw new SpecError(`${pointer}/operationId`, `expected ${want}, got ${JSON.stringify(head.operationId)}`);
  if (head.requestBody !== undefined) throw new SpecError(`${pointer}/requestBody`, "a HEAD takes no body");
  const scopes = readScopes(spec, head, pointer);
  if (scopes.join(" ") !== get.scopes.join(" "))
    throw new SpecError(`${pointer}/security`, `scopes must equal the GET's (${get.scopes.join(", ") || "none"})`);
  const params = [...readParams(spec, item, head, pointer)].sort();
  const getParams = [...get.params].sort();
  if (params.join(" ") !== getParams.join(" "))
    throw new SpecError(`${pointer}/parameters`, `parameters must equal the GET's (${getParams.join(", ")})`);
  if (!isObject(head.responses)) throw new SpecError(`${pointer}/responses`, "a HEAD needs responses");
  for (const [status, raw] of Object.entries(head.responses)) {
    const response = spec.deref(raw, `${pointer}/responses/${status}`);
    if (response.content !== undefined)
      throw new SpecError(`${pointer}/responses/${status}/content`, "a HEAD response has no body");
  }
  return true;
}
