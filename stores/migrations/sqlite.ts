/**
 * Versioned SQLite migrations for the command journal. Append new versions; never edit an applied
 * one. `migrateSqlite` applies them in one IMMEDIATE transaction, recorded in `schema_migrations`.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

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
];
