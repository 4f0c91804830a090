/**
 * Versioned SQLite migrations for the command journal. Append new versions; never edit an applied
 * one. `migrateSqlite` applies them in one IMMEDIATE transaction, recorded in `schema_migrations`.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** SQL lists of the unsettled and the settled states, fixed by the I5 state machine (journal/command-state.ts). */
export const UNSETTLED_SQL =
  "'recorded', 'sending', 'accepted', 'conflict', 'unknown', 'reconciling', 'needs_manual_check'";
export const SETTLED_SQL = "'succeeded', 'completed', 'failed', 'rejected'";

export const sqliteMigrations: readonly Migration[] = [
  {
    version: 1,
    name: "commands, attempts, domain lock",
    sql: `
CREATE TABLE commands (
  id              TEXT PRIMARY KEY,
  environment     TEXT NOT NULL CHECK (environment IN ('test', 'live')),
  api_key_id      TEXT NOT NULL,          -- the key's publicKeyId, never the secret (H2)
  operation_id    TEXT NOT NULL,
  method          TEXT NOT NULL,
  path            TEXT NOT NULL,
  query           TEXT NOT NULL,
  body            BLOB,                   -- exact bytes (D3); NULL = no body, never '{}' (D4)
  idempotency_key TEXT NOT NULL,
  external_id     TEXT,
  lock_key        TEXT,
  lock_held       INTEGER NOT NULL DEFAULT 0 CHECK (lock_held IN (0, 1)),
  state           TEXT NOT NULL,
  version         INTEGER NOT NULL DEFAULT 0, -- optimistic concurrency for transition()
  created_at      INTEGER NOT NULL,       -- ms since epoch, client clock
  updated_at      INTEGER NOT NULL,
  order_uuid      TEXT,
  domain_uuid     TEXT,
  operation_uuid  TEXT,
  response_status INTEGER,
  response_body   TEXT,                   -- JSON, redacted (H2)
  reconciliation  TEXT,
  manual_check    TEXT,                   -- JSON ManualCheck (F4)
  CONSTRAINT commands_idempotency_key UNIQUE (api_key_id, idempotency_key)
);
-- I6: at most one lock-holding command per domain and environment, across every process.
CREATE UNIQUE INDEX commands_domain_lock ON commands (environment, lock_key) WHERE lock_held = 1;
CREATE INDEX commands_state_created ON commands (state, created_at);
CREATE INDEX commands_external_id ON commands (api_key_id, external_id) WHERE external_id IS NOT NULL;

CREATE TABLE command_attempts (
  command_id      TEXT NOT NULL REFERENCES commands (id) ON DELETE CASCADE,
  seq             INTEGER NOT NULL,
  at              INTEGER NOT NULL,
  delay_ms        INTEGER NOT NULL,
  status          INTEGER,
  error_code      TEXT,
  request_id      TEXT,
  transport_error TEXT,
  replayed        INTEGER,
  PRIMARY KEY (command_id, seq)
);
`,
  },
  {
    version: 2,
    name: "worker leases",
    sql: `
-- Fleet mode: the worker that owns an in-flight command and until when (journal clock, ms). Rows
-- written before this version have no owner; recover() takes those as before (staleAfterMs). No
-- index on them: claims go through the state index, and a heartbeat rewrites lease_until of every
-- held command, which an index would make costlier on every write.
ALTER TABLE commands ADD COLUMN owner TEXT;
ALTER TABLE commands ADD COLUMN lease_until INTEGER;
`,
  },
  {
    version: 3,
    name: "fingerprint, pruned bodies, indexes over unsettled commands only",
    sql: `
-- D4: the request fingerprint, kept when the body is pruned. Rows from before are filled in by the
-- journal when it opens (SHA-256 is not an SQLite function), in the store's backfill step.
ALTER TABLE commands ADD COLUMN fingerprint TEXT;
CREATE INDEX commands_fingerprint_missing ON commands (id) WHERE fingerprint IS NULL; -- empty once filled
-- H2 retention: 1 once the request body was dropped (prune, or at settle for a sensitive request).
ALTER TABLE commands ADD COLUMN body_pruned INTEGER NOT NULL DEFAULT 0;
-- H2: the request carries sensitive fields (x-sensitive-fields, auth codes): dropped at settle.
ALTER TABLE commands ADD COLUMN body_sensitive INTEGER NOT NULL DEFAULT 0;
-- Claims, recover() and listByState(unsettled) read only unsettled commands: index only those, so
-- their cost follows the unsettled count, not the history (the old index held every settled row).
DROP INDEX commands_state_created;
CREATE INDEX commands_unsettled ON commands (state, created_at) WHERE state IN (${UNSETTLED_SQL});
-- latestByLockKey(): "was this domain already ordered/renewed since T?"
CREATE INDEX commands_lock_latest ON commands (api_key_id, lock_key, created_at) WHERE lock_key IS NOT NULL;
-- listCommands(): newest first, for one API key or all.
CREATE INDEX commands_key_newest ON commands (api_key_id, created_at, id);
CREATE INDEX commands_newest ON commands (created_at, id);
-- prune(): settled commands that still hold a body; a pruned row leaves this index.
CREATE INDEX commands_prunable ON commands (updated_at)
  WHERE state IN (${SETTLED_SQL}) AND (body_pruned = 0 OR response_body IS NOT NULL);
`,
  },
  {
    version: 4,
    name: "newest-first over every key through the per-key index",
    sql: `
-- G1 cost: each index is one more B-tree page in every commit's WAL frames. listCommands() over
-- every key merges commands_key_newest, one seek per key: the all-keys copy of that index was a
-- write per command for a listing that a handful of keys serve as well.
DROP INDEX commands_newest;
`,
  },
];
