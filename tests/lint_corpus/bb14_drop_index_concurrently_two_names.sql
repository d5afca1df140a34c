-- expect: unsafe require-concurrent-index-drop
-- doc: https://www.postgresql.org/docs/15/sql-dropindex.html (CONCURRENTLY: "only one index name can be specified, and the CASCADE option is not supported")
-- verified: PG15: ERROR: DROP INDEX CONCURRENTLY does not support dropping multiple objects
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE orders (id bigserial PRIMARY KEY, user_id bigint NOT NULL, total numeric(12,2), state text, placed_at timestamptz);
-- given: CREATE INDEX orders_state_idx ON orders (state);
-- given: CREATE INDEX orders_placed_at_idx ON orders (placed_at);
DROP INDEX CONCURRENTLY orders_state_idx, orders_placed_at_idx;
