-- expect: unsafe table-rewrite
-- doc: https://www.postgresql.org/docs/15/sql-vacuum.html (FULL: "rewrites the entire contents of the table into a new disk file ... requires an ACCESS EXCLUSIVE lock")
-- verified: PG15: relfilenode of orders and orders_pkey changed (rewritten)
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE orders (id bigserial PRIMARY KEY, user_id bigint NOT NULL, total numeric(12,2), state text, placed_at timestamptz);
VACUUM (FULL, ANALYZE) orders;
