-- expect: unsafe non-transactional-in-transaction
-- doc: https://www.postgresql.org/docs/15/sql-createindex.html ("a regular CREATE INDEX command can be performed within a transaction block, but CREATE INDEX CONCURRENTLY cannot")
-- verified: PG15: ERROR: CREATE INDEX CONCURRENTLY cannot run inside a transaction block
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE orders (id bigserial PRIMARY KEY, user_id bigint NOT NULL, total numeric(12,2), state text, placed_at timestamptz);
BEGIN;
CREATE INDEX CONCURRENTLY orders_placed_at_idx ON orders (placed_at);
COMMIT;
