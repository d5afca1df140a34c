-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-reindex.html (Rebuilding Indexes Concurrently, PostgreSQL 12+; SHARE UPDATE EXCLUSIVE)
-- pg-version: 15
-- verified: PG15: run outside a block; both index relfilenodes changed (rebuilt), table relfilenode unchanged, no error
-- given: CREATE TABLE audit_log (id bigserial PRIMARY KEY, actor text, at timestamptz NOT NULL DEFAULT now());
-- given: CREATE INDEX CONCURRENTLY audit_log_at_idx ON audit_log (at);
REINDEX (VERBOSE) TABLE CONCURRENTLY public.audit_log;
