/**
 * Versioned PostgreSQL migrations for the command journal. `{{schema}}` is replaced by the quoted
 * schema name. Append new versions; never edit an applied one. Applied by stores/pg-journal.ts in
 * one transaction under pg_advisory_xact_lock, recorded in `schema_migrations`.
 */
import { SETTLED_SQL, UNSETTLED_SQL, type Migration } from "./sqlite";

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
  {
    version: 3,
    name: "fingerprint, pruned bodies, indexes over unsettled commands only",
    sql: `
-- D4: the request fingerprint, kept when the body is pruned; rows from before are filled in by the
-- journal when it opens, by the store's backfill step.
ALTER TABLE {{schema}}.commands ADD COLUMN fingerprint TEXT;
CREATE INDEX commands_fingerprint_missing ON {{schema}}.commands (id) WHERE fingerprint IS NULL;
-- H2 retention: true once the request body was dropped (prune, or at settle for a sensitive request).
ALTER TABLE {{schema}}.commands ADD COLUMN body_pruned BOOLEAN NOT NULL DEFAULT false;
-- H2: the request carries sensitive fields (x-sensitive-fields, auth codes): dropped at settle.
ALTER TABLE {{schema}}.commands ADD COLUMN body_sensitive BOOLEAN NOT NULL DEFAULT false;
-- Claims, recover() and listByState(unsettled) read only unsettled commands: index only those, so
-- their cost (and the index's size and dead entries) follows the unsettled count, not the history.
DROP INDEX {{schema}}.commands_state_created;
CREATE INDEX commands_unsettled ON {{schema}}.commands (state, created_at, seq) WHERE state IN (${UNSETTLED_SQL});
-- latestByLockKey(): "was this domain already ordered/renewed since T?"
CREATE INDEX commands_lock_latest ON {{schema}}.commands (api_key_id, lock_key, created_at) WHERE lock_key IS NOT NULL;
-- listCommands(): newest first, for one API key or all.
CREATE INDEX commands_key_newest ON {{schema}}.commands (api_key_id, created_at, id);
CREATE INDEX commands_newest ON {{schema}}.commands (created_at, id);
-- prune(): settled commands that still hold a body; a pruned row leaves this index.
CREATE INDEX commands_prunable ON {{schema}}.commands (updated_at)
  WHERE state IN (${SETTLED_SQL}) AND (NOT body_pruned OR response_body IS NOT NULL);
`,
  },
];
