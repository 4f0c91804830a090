/**
 * Versioned PostgreSQL migrations for the command journal. `{{schema}}` is replaced by the quoted
 * schema name. Append new versions; never edit an applied one. Applied by stores/pg-journal.ts in
 * one transaction under pg_advisory_xact_lock, recorded in `schema_migrations`.
 */
import type { Migration } from "./sqlite";

export const pgMigrations: readonly Migration[] = [
  {
    version: 1,
    name: "commands, attempts, domain lock",
    sql: `
CREATE TABLE {{schema}}.commands (
  seq             BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE, -- insertion order, tie-break for listByState
  id              TEXT PRIMARY KEY,
  environment     TEXT NOT NULL CHECK (environment IN ('test', 'live')),
  api_key_id      TEXT NOT NULL,          -- the key's publicKeyId, never the secret (H2)
  operation_id    TEXT NOT NULL,
  method          TEXT NOT NULL,
  path            TEXT NOT NULL,
  query           TEXT NOT NULL,
  body            BYTEA,                  -- exact bytes (D3); NULL = no body, never '{}' (D4)
  idempotency_key TEXT NOT NULL,
  external_id     TEXT,
  lock_key        TEXT,
  lock_held       BOOLEAN NOT NULL DEFAULT false,
  state           TEXT NOT NULL,
  version         INTEGER NOT NULL DEFAULT 0, -- optimistic concurrency for transition()
  created_at      BIGINT NOT NULL,        -- ms since epoch, client clock
  updated_at      BIGINT NOT NULL,
  order_uuid      TEXT,
  domain_uuid     TEXT,
  operation_uuid  TEXT,
  response_status INTEGER,
  response_body   JSON,                   -- redacted (H2); JSON, not JSONB, keeps it as written
  reconciliation  TEXT,
  manual_check    JSON,                   -- ManualCheck (F4)
  CONSTRAINT commands_idempotency_key UNIQUE (api_key_id, idempotency_key)
);
-- I6: at most one lock-holding command per domain and environment, across every process.
CREATE UNIQUE INDEX commands_domain_lock ON {{schema}}.commands (environment, lock_key) WHERE lock_held;
CREATE INDEX commands_state_created ON {{schema}}.commands (state, created_at, seq);
CREATE INDEX commands_external_id ON {{schema}}.commands (api_key_id, external_id) WHERE external_id IS NOT NULL;

CREATE TABLE {{schema}}.command_attempts (
  seq             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  command_id      TEXT NOT NULL REFERENCES {{schema}}.commands (id) ON DELETE CASCADE,
  at              BIGINT NOT NULL,
  delay_ms        BIGINT NOT NULL,
  status          INTEGER,
  error_code      TEXT,
  request_id      TEXT,
  transport_error TEXT,
  replayed        BOOLEAN
);
CREATE INDEX command_attempts_command ON {{schema}}.command_attempts (command_id, seq);
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
ALTER TABLE {{schema}}.commands ADD COLUMN owner TEXT;
ALTER TABLE {{schema}}.commands ADD COLUMN lease_until BIGINT;
`,
  },
];
