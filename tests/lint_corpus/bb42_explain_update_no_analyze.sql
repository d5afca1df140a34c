-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-explain.html (without ANALYZE the statement is only planned, not executed)
-- verified: PG15 with 1000 seeded rows: plan printed without actual times; all 1000 emails unchanged afterwards
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
EXPLAIN UPDATE users SET email = lower(email);
