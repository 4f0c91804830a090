/**
 * Idempotency (D1–D4, G1): every POST/PUT/PATCH/DELETE gets an Idempotency-Key (the caller's, or a
 * fresh UUID), validated 1..160 after trimming; the serialised body bytes are frozen ONCE here and
 * every retry resends exactly them with the same key; then the command is recorded in the journal
 * BEFORE the first byte is sent — a rejected record() aborts the send (G1).
 */
import type { Middleware } from "openapi-fetch";
import type { Clock } from "../runtime/clock";
import { callContextOf, type CallContext } from "../runner";
import { InvalidArgumentError } from "../core";
import { commandFingerprint, type CommandRecord, type CommandState, type Journal, type LeaseKeeper } from "../journal";
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

/**
 * D4/D5: is this the request already journalled under the key? The server's own test — the
 * fingerprint of method, path with query and exact body bytes — so it still holds once the stored
 * body was pruned (H2 retention) or dropped at settle.
 */
function sameRequest(existing: Pick<CommandRecord, "fingerprint">, fingerprint: string): boolean {
  return existing.fingerprint === fingerprint;
}

/** I6: the domain a purchase acts on — one in-flight command per domain. */
function lockKeyOf(operationId: string, path: Record<string, unknown> | undefined, body: unknown): string | null {
  if (operationId === "orders.create") {
    const domain = (body as { domain?: unknown } | null)?.domain;
    return typeof domain === "string" ? `domain-name:${domain.toLowerCase()}` : null;
  }
  if (operationId === "domains.renew" && typeof path?.domainUuid === "string")
    return `domain:${path.domainUuid.toLowerCase()}`;
  return null;
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
    const fingerprint = await commandFingerprint(ctx.op.method, path, url.search, ctx.body);
    const existing = await options.journal.findByIdempotencyKey(options.apiKeyId, key);
    if (existing) {
      if (!sameRequest(existing, fingerprint)) {
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
        fingerprint,
        idempotencyKey: key,
        externalId: typeof externalId === "string" ? externalId : null,
        lockKey: lockKeyOf(ctx.op.operationId, params.path, parsed),
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
