-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-vacuum.html (plain VACUUM: SHARE UPDATE EXCLUSIVE, runs alongside reads and writes); sql-analyze.html
-- verified: PG15: VERBOSE output; relfilenode of orders unchanged
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE orders (id bigserial PRIMARY KEY, user_id bigint NOT NULL, total numeric(12,2), state text, placed_at timestamptz);
VACUUM (ANALYZE, VERBOSE) orders;
