-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-set.html (SET SESSION); the rule reports lock_timeout set to 0 or ABOVE its ceiling (10s by default): exactly 10s is not above it
-- verified: PG15: SHOW lock_timeout = 10s after the SET; CREATE INDEX CONCURRENTLY succeeds outside a transaction block; relfilenode of promotions unchanged
-- given: CREATE TABLE promotions (id bigint PRIMARY KEY, starts_at timestamptz NOT NULL, ends_at timestamptz NOT NULL, code text);
SET SESSION lock_timeout = '10s';
CREATE INDEX CONCURRENTLY IF NOT EXISTS promotions_active_window_idx ON promotions (starts_at, ends_at);
