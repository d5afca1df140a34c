-- expect: unsafe require-concurrent-index
-- doc: https://www.postgresql.org/docs/15/sql-createindex.html (IF NOT EXISTS only skips when a relation of that name exists; otherwise a normal SHARE-locked build)
-- verified: PG15: index did not exist, so a normal build ran: ShareLock on orders in pg_locks
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE orders (id bigserial PRIMARY KEY, user_id bigint NOT NULL, total numeric(12,2), state text, placed_at timestamptz);
CREATE INDEX IF NOT EXISTS "orders_placed_at_idx" ON "orders"("placed_at");
