-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-reindex.html (option list: CONCURRENTLY [ boolean ], VERBOSE; "Rebuilding Indexes Concurrently" keeps writes going)
-- verified: PG15: INFO index reindexed; index relfilenode changed (new concurrent copy), succeeds outside a block
-- pg-version: 15
-- given: CREATE TABLE audit_log (id bigserial PRIMARY KEY, actor text, happened_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE INDEX audit_log_happened_at_idx ON audit_log (happened_at);
REINDEX (VERBOSE, CONCURRENTLY) INDEX audit_log_happened_at_idx;
