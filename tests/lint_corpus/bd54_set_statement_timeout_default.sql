-- expect: unsafe timeout-guard-off
-- doc: https://www.postgresql.org/docs/current/sql-set.html (SET ... TO DEFAULT: the value it would have had without SET, normally 0 = no limit for statement_timeout)
-- verified: PG15: accepted, statement_timeout becomes the server default 0; the CONCURRENTLY build itself then runs without a limit
-- given: CREATE TABLE search_docs (id bigserial PRIMARY KEY, body text);
SET SESSION statement_timeout TO DEFAULT;
CREATE INDEX CONCURRENTLY IF NOT EXISTS search_docs_body_pattern_idx ON search_docs (body text_pattern_ops);
