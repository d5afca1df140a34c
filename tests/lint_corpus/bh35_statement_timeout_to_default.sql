-- expect: unsafe timeout-guard-off
-- doc: https://www.postgresql.org/docs/current/sql-set.html (SET ... TO DEFAULT restores the default, 0 = disabled for statement_timeout)
-- verified: PG15: SHOW statement_timeout after the SET = 0
-- given: CREATE TABLE events (id bigint PRIMARY KEY, payload jsonb);
SET statement_timeout TO DEFAULT;
ANALYZE events;
