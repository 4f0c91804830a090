/**
 * What migration 3 cannot do in SQL, done once when a journal opens: the D4 fingerprint of every
 * row written before it (SHA-256 is not an SQLite function), and the H2 rule for sensitive request
 * bodies — marked on unsettled rows (dropped at their settle), dropped now from settled ones.
 */
import { createHash } from "node:crypto";
import { fingerprintInput, isTerminal, isCommandState, type NewCommand } from "../journal";
import { isSensitiveRequest } from "./journal-common";
import type { SqliteDatabase } from "./sqlite-migrate";

/** Sync SHA-256 (node:crypto): the same value as the async `commandFingerprint()`. */
export function fingerprintSync(method: string, path: string, query: string, body: Uint8Array | null): string {
  return createHash("sha256")
    .update(fingerprintInput(method, path, query, body))
    .digest("hex");
}

interface OldRow {
  id: string;
  operation_id: string;
  method: string;
  path: string;
  query: string;
  body: Uint8Array | null;
  state: string;
}

/** Fills every missing fingerprint, 500 rows per statement, in one IMMEDIATE transaction. Returns the rows done. */
export function backfillSqlite(db: SqliteDatabase): number {
  const pending = db.prepare("SELECT 1 FROM commands WHERE fingerprint IS NULL LIMIT 1");
  if (pending.get() === undefined) return 0; // the usual case: one indexed probe per open
  const page = db.prepare(
    "SELECT id, operation_id, method, path, query, body, state FROM commands WHERE fingerprint IS NULL LIMIT 500",
  );
  const fill = db.prepare(
    `UPDATE commands SET fingerprint = ?, body_sensitive = ?,
       body = CASE WHEN ? = 1 THEN NULL ELSE body END, response_body = CASE WHEN ? = 1 THEN NULL ELSE response_body END,
       body_pruned = CASE WHEN ? = 1 THEN 1 ELSE body_pruned END
     WHERE id = ?`,
  );
  const run = db.transaction(() => {
    let done = 0;
    for (;;) {
      const rows = page.all() as OldRow[];
      if (rows.length === 0) return done;
      for (const r of rows) {
        const sensitive = isSensitiveRequest({
          operationId: r.operation_id as NewCommand["operationId"],
          body: r.body,
        });
        const drop = sensitive && isCommandState(r.state) && isTerminal(r.state) ? 1 : 0;
        fill.run(fingerprintSync(r.method, r.path, r.query, r.body), sensitive ? 1 : 0, drop, drop, drop, r.id);
      }
      done += rows.length;
    }
  });
  return run.immediate();
}
