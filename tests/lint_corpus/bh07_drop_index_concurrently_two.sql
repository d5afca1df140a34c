-- expect: unsafe require-concurrent-index-drop
-- doc: https://www.postgresql.org/docs/current/sql-dropindex.html (CONCURRENTLY: "only one index name can be specified, and the CASCADE option is not supported")
-- verified: PG15: ERROR: DROP INDEX CONCURRENTLY does not support dropping multiple objects
-- given: CREATE TABLE sessions (id uuid PRIMARY KEY, user_id bigint, expires_at timestamptz);
-- given: CREATE INDEX CONCURRENTLY sessions_user_id_idx ON sessions (user_id);
-- given: CREATE INDEX CONCURRENTLY sessions_expires_at_idx ON sessions (expires_at);
DROP INDEX CONCURRENTLY IF EXISTS sessions_user_id_idx, sessions_expires_at_idx;
