/**
 * HEAD (RFC 9110 §9.3.2; A7 and D1 name GET/HEAD as the safe methods): a `head` operation in the
 * spec is its path's GET without the body. It is not an operation of its own in the table or the
 * facade; the GET's row says `head: true`, and the emulator answers HEAD only where that is set.
 * The spec must keep the two in step, so the generator refuses a HEAD that differs from its GET in
 * anything but the body.
 */
import { checkExtensions } from "./extensions";
import { isObject, SpecError, type Json, type Spec } from "./spec";

interface GetFacts {
  readonly operationId: string;
  readonly scopes: readonly string[];
  /** `in:name` of every parameter the GET takes. */
  readonly params: readonly string[];
  /** The statuses its responses list, sorted. */
  readonly statuses: readonly string[];
  readonly deprecated: boolean;
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
  checkExtensions(head, [], pointer, "a HEAD (it takes its GET's extensions; put them on the GET)");
  const want = `${get.operationId}Head`;
  if (head.operationId !== want)
    throw new SpecError(`${pointer}/operationId`, `expected ${want}, got ${JSON.stringify(head.operationId)}`);
  if (head.requestBody !== undefined) throw new SpecError(`${pointer}/requestBody`, "a HEAD takes no body");
  if ((head.deprecated === true) !== get.deprecated)
    throw new SpecError(`${pointer}/deprecated`, `deprecated must equal the GET's (${String(get.deprecated)})`);
  const scopes = readScopes(spec, head, pointer);
  if (scopes.join(" ") !== get.scopes.join(" "))
    throw new SpecError(`${pointer}/security`, `scopes must equal the GET's (${get.scopes.join(", ") || "none"})`);
  const params = [...readParams(spec, item, head, pointer)].sort();
  const getParams = [...get.params].sort();
  if (params.join(" ") !== getParams.join(" "))
    throw new SpecError(`${pointer}/parameters`, `parameters must equal the GET's (${getParams.join(", ")})`);
  if (!isObject(head.responses)) throw new SpecError(`${pointer}/responses`, "a HEAD needs responses");
  // The same statuses as the GET, less the router's 405 (a path with a GET answers HEAD, E4/E5).
  const statuses = Object.keys(head.responses).sort();
  const getStatuses = get.statuses.filter((s) => s !== "405");
  if (statuses.join(" ") !== getStatuses.join(" ")) {
    const missing = getStatuses.filter((s) => !statuses.includes(s));
    const extra = statuses.filter((s) => !getStatuses.includes(s));
    throw new SpecError(
      `${pointer}/responses`,
      `the statuses must equal the GET's less 405 (${getStatuses.join(", ")})${missing.length ? `; missing ${missing.join(", ")}` : ""}${extra.length ? `; not the GET's ${extra.join(", ")}` : ""}`,
    );
  }
  for (const [status, raw] of Object.entries(head.responses)) {
    const response = spec.deref(raw, `${pointer}/responses/${status}`);
    if (response.content !== undefined)
      throw new SpecError(`${pointer}/responses/${status}/content`, "a HEAD response has no body");
  }
  return true;
}
