// The contract between the pipeline and the resource handlers. Handlers are synchronous: the
// whole of an execution happens between reserving an Idempotency-Key and storing its response.
import type { OperationMeta } from "../generated/operations";
import type { Translate } from "./i18n";
import type { ApiKey, Reseller, State } from "./state";
import type { Language } from "./types";

export interface HandlerContext {
  state: State;
  key: ApiKey;
  reseller: Reseller;
  op: OperationMeta;
  params: Record<string, string>;
  url: URL;
  query: URLSearchParams;
  /** Parsed JSON body ({} when the operation takes none or it was empty). */
  body: unknown;
  lang: Language;
  tr: Translate;
  idempotencyKey: string | null;
  now: number;
  /** Records an executed side effect for control.effects(). */
  effect(kind: string, resourceUuid: string): void;
  /** Set by async domain operations so the pipeline binds the key durably (D7). */
  boundOperationUuid?: string;
}

interface HandlerResult {
  status: number;
  body?: unknown;
}

export type Handler = (ctx: HandlerContext) => HandlerResult;
