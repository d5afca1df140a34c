-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-alterindex.html (RENAME of an index: no effect on stored data or on queries; only an index name changes)
-- verified: PG15: only ShareUpdateExclusiveLock on the index; relfilenode unchanged, table not locked
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE orders (id bigserial PRIMARY KEY, user_id bigint NOT NULL, total numeric(12,2), state text, placed_at timestamptz);
-- given: CREATE INDEX idx_orders_uid ON orders (user_id);
ALTER INDEX IF EXISTS idx_orders_uid RENAME TO orders_user_id_idx;
