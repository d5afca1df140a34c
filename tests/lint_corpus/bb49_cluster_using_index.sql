-- expect: unsafe table-rewrite
-- doc: https://www.postgresql.org/docs/15/sql-cluster.html ("When a table is being clustered, an ACCESS EXCLUSIVE lock is acquired on it"; the table is rewritten)
-- verified: PG15: AccessExclusiveLock on orders; relfilenode of orders and both indexes changed
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE orders (id bigserial PRIMARY KEY, user_id bigint NOT NULL, total numeric(12,2), state text, placed_at timestamptz);
-- given: CREATE INDEX orders_user_id_idx ON orders (user_id);
CLUSTER orders USING orders_user_id_idx;
