-- expect: unsafe non-transactional-in-transaction
-- doc: https://www.postgresql.org/docs/current/sql-reindex.html ("REINDEX SYSTEM does not support CONCURRENTLY ... a REINDEX with CONCURRENTLY cannot run inside a transaction block"); indexcmds.c ExecReindex PreventInTransactionBlock
-- verified: PG15: ERROR: REINDEX CONCURRENTLY cannot run inside a transaction block
-- given: CREATE TABLE sessions (id uuid PRIMARY KEY, user_id bigint NOT NULL, expires_at timestamptz NOT NULL);
-- given: CREATE INDEX sessions_expires_at_idx ON sessions (expires_at);
BEGIN;
SET LOCAL lock_timeout = '3s';
REINDEX INDEX CONCURRENTLY sessions_expires_at_idx;
COMMIT;
