-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-dropindex.html (CONCURRENTLY: SHARE UPDATE EXCLUSIVE, no blocking; IF EXISTS)
-- verified: PG15: succeeds outside a block; index gone; CONCURRENTLY takes SHARE UPDATE EXCLUSIVE on the table (docs)
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE orders (id bigserial PRIMARY KEY, user_id bigint NOT NULL, total numeric(12,2), state text, placed_at timestamptz);
-- given: CREATE INDEX orders_state_idx ON orders (state);
DROP INDEX CONCURRENTLY IF EXISTS "public"."orders_state_idx";
