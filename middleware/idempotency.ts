/**
 * Idempotency (D1–D4, G1): every POST/PUT/PATCH/DELETE gets an Idempotency-Key (the caller's, or a
 * fresh UUID), validated 1..160 after trimming; the serialised body bytes are frozen ONCE here and
 * every retry resends exactly them with the same key; then the command is recorded in the journal
 * BEFORE the first byte is sent — a rejected record() aborts the send (G1).
 */
import type { Middleware } from "openapi-fetch";
import type { OperationMeta } from "../generated/operations";
import type { Clock } from "../runtime/clock";
import { callContextOf, type CallContext } from "../runner";
import { InvalidArgumentError } from "../core";
import type { CommandState, Journal, LeaseKeeper } from "../journal";
import { validateIdempotencyKey } from "../core";

export interface IdempotencyOptions {
  environment: "test" | "live";
  apiKeyId: string;
  clock: Clock;
  journal?: Journal;
  /** Fleet mode: new commands are recorded as this worker's, under its lease. */
  leases?: LeaseKeeper;
  generateKey?: () => string;
}

/** States a resend may continue from (G4): not yet sent, mid-send (crash), or awaiting reconciliation. */
const RESUMABLE: ReadonlySet<CommandState> = new Set<CommandState>(["recorded", "sending", "unknown", "conflict"]);

function sameBytes(a: Uint8Array | null, b: Uint8Array | null | undefined): boolean {
  if (a === null || b === null || b === undefined) return a === null && (b === null || b === undefined);
  return a.byteLength === b.byteLength && a.every((v, i) => v === b[i]);
}

/** I6: the domain a purchase acts on — one in-flight command per domain; where it is, the spec's x-lock-key says. */
function lockKeyOf(op: OperationMeta, path: Record<string, unknown> | undefined, body: unknown): string | null {
  if (op.lockKey === null) return null;
  const source = op.lockKey.from === "path" ? path : (body as Record<string, unknown> | null | undefined);
  const value = source?.[op.lockKey.field];
  return typeof value === "string" ? `${op.lockKey.prefix}:${value.toLowerCase()}` : null;
}

export function createIdempotencyMiddleware(options: IdempotencyOptions): Middleware {
  const generateKey = options.generateKey ?? (() => crypto.randomUUID());
  return {
    onRequest(callback) {
      const ctx = callContextOf(callback.request, callback.schemaPath);
      if (!ctx?.op.idempotencyRequired) return undefined; // reads: nothing to do, no extra await
      return freeze(ctx, callback);
    },
  };

  async function freeze(
    ctx: CallContext,
    { request, params, options: merged }: Parameters<NonNullable<Middleware["onRequest"]>>[0],
  ): Promise<undefined> {
    // The facade's option, else a header a raw client.http caller set (params.header), else a UUID.
    const key = validateIdempotencyKey(ctx.idempotencyKey ?? request.headers.get("Idempotency-Key") ?? generateKey());
    ctx.sentIdempotencyKey = key;
    request.headers.set("Idempotency-Key", key);
    // D3/D4: serialised once by openapi-fetch; these exact bytes are what every attempt sends.
    if (ctx.body === undefined) {
      ctx.body = request.body === null ? null : new Uint8Array(await request.clone().arrayBuffer());
    }
    if (!options.journal) return undefined;
    let parsed: unknown = null;
    try {
      parsed = ctx.body ? JSON.parse(new TextDecoder().decode(ctx.body)) : null;
    } catch {
      parsed = null;
    }
    const url = new URL(request.url);
    const basePath = new URL(merged.baseUrl).pathname.replace(/\/+$/, "");
    const path = url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : url.pathname;
    // A resend of a command already journalled under this key (after a restart, or a caller's
    // manual retry) resumes it; a DIFFERENT command under the same key is refused locally (D5, D7).
    const existing = await options.journal.findByIdempotencyKey(options.apiKeyId, key);
    if (existing) {
      const same =
        existing.method === ctx.op.method &&
        existing.path === path &&
        existing.query === url.search &&
        sameBytes(existing.body, ctx.body);
      if (!same) {
        throw new InvalidArgumentError(
          `This Idempotency-Key already belongs to command ${existing.id} with a different method, path or body (D5, D7): never reuse a key for a new business action.`,
          "idempotencyKey",
        );
      }
      ctx.commandId = existing.id;
      ctx.journalState = RESUMABLE.has(existing.state) ? existing.state : undefined;
      return undefined;
    }
    const externalId = (parsed as { external_id?: unknown } | null)?.external_id;
    const record = await options.journal.record(
      {
        id: crypto.randomUUID(),
        environment: options.environment,
        apiKeyId: options.apiKeyId,
        operationId: ctx.op.operationId,
        method: ctx.op.method,
        path,
        query: url.search,
        body: ctx.body,
        idempotencyKey: key,
        externalId: typeof externalId === "string" ? externalId : null,
        lockKey: lockKeyOf(ctx.op, params.path, parsed),
        createdAt: options.clock.now(),
      },
      options.leases?.lease,
    );
    options.leases?.recorded(record.id);
    ctx.journalState = record.state;
    ctx.commandId = record.id;
    return undefined;
  }
}
