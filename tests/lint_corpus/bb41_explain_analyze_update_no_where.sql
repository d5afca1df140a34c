-- expect: unsafe unbounded-data-change
-- doc: https://www.postgresql.org/docs/15/sql-explain.html ("the statement is actually executed when the ANALYZE option is used")
-- verified: PG15 with 1000 seeded rows: plan shows actual times and all 1000 emails were lowercased afterwards (executed)
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
EXPLAIN (ANALYZE, BUFFERS) UPDATE users SET email = lower(email);
